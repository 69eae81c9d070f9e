// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// compareKeys orders dotted keys path segment by path segment: a '.' sorts before any other
// byte. So the keys below "a." directly follow "a", and the keys of one object stay together,
// which the de-dotting walk and the collision check rely on.
func compareKeys(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := jsonstr.Load64(a, i) ^ jsonstr.Load64(b, i); x != 0 {
			i += bits.TrailingZeros64(x) / 8 // Load64 is little-endian: the first byte is lowest
			return compareKeyBytes(a[i], b[i])
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return compareKeyBytes(a[i], b[i])
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareKeyBytes orders two different bytes of keys: '.' first, then by value.
func compareKeyBytes(ca, cb byte) int {
	switch {
	case ca == '.':
		return -1
	case cb == '.':
		return 1
	case ca < cb:
		return -1
	}
	return 1
}

// compareEntries sorts by key, then puts a renamed entry before one that had the name first,
// then the entries of one key in the order they were added.
func compareEntries(a, b entry) int { return compareEntryRefs(&a, &b) }

// compareEntryRefs is compareEntries without copying the entries.
func compareEntryRefs(a, b *entry) int {
	if c := compareKeys(a.key, b.key); c != 0 {
		return c
	}
	if a.renamed != b.renamed {
		if a.renamed {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.seq, b.seq)
}

func sortEntries(es []entry) { slices.SortFunc(es, compareEntries) }

// mergeEntries appends the merge of the sorted a and b to dst.
func mergeEntries(dst, a, b []entry) []entry {
	for len(a) > 0 && len(b) > 0 {
		if compareEntries(a[0], b[0]) <= 0 {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	return append(append(dst, a...), b...)
}

// rankWord packs the first eight bytes of k (fewer if k is shorter) big-endian, each turned
// into its place in the order of compareKeys: a '.' becomes 0, a byte below '.' one more than
// itself, and any other byte stays; missing bytes are 0. So each byte keeps a rank of its own
// and, of two words that differ, the lower belongs to the lower key.
func rankWord(k string) uint64 {
	var x uint64
	if len(k) >= 8 {
		x = bits.ReverseBytes64(jsonstr.Load64(k, 0))
	} else {
		for i := range len(k) {
			x |= uint64(k[i]) << (56 - 8*i)
		}
	}
	below := ^((x | jsonstr.Highs) - jsonstr.Ones*'.') &^ x & jsonstr.Highs // bytes below '.', exactly
	t := x ^ (jsonstr.Ones * '.')
	dots := ^(((t &^ jsonstr.Highs) + ^uint64(jsonstr.Highs)) | t) & jsonstr.Highs // the '.' bytes, exactly
	r := (x + below>>7) &^ ((dots >> 7) * 0xff)
	if len(k) < 8 {
		r &= ^uint64(0) << (64 - 8*len(k))
	}
	return r
}

// sortRef stands for an entry in the sort of mergeSorted: the ranks of the first 16 bytes of
// its key, packed big-endian into hi and lo (missing bytes are 0), and its index. Keys whose
// packed ranks differ compare as those do; equal ranks need compareKeys, since a missing byte
// ranks as a '.'.
type sortRef struct {
	hi, lo uint64
	idx    uint32
}

func newSortRef(k string, idx int) sortRef {
	r := sortRef{hi: rankWord(k), idx: uint32(idx)}
	if len(k) > 8 {
		r.lo = rankWord(k[8:])
	}
	return r
}

// after reports whether the entry a stands for sorts after the one b stands for.
func (d *flatDoc) after(a, b sortRef) bool {
	if a.hi != b.hi {
		return a.hi > b.hi
	}
	if a.lo != b.lo {
		return a.lo > b.lo
	}
	return compareEntryRefs(&d.entries[a.idx], &d.entries[b.idx]) > 0
}

// compareRefs is compareEntries on the entries of d that a and b stand for.
func (d *flatDoc) compareRefs(a, b sortRef) int {
	if a.hi != b.hi {
		return cmp.Compare(a.hi, b.hi)
	}
	if a.lo != b.lo {
		return cmp.Compare(a.lo, b.lo)
	}
	return compareEntryRefs(&d.entries[a.idx], &d.entries[b.idx])
}

// mergeSorted appends to dst the entries of env, which are sorted, merged with those of d in
// sorted order. d's entries are not moved: a compact index of them is sorted instead.
func (d *flatDoc) mergeSorted(dst, env []entry) []entry {
	es := d.entries
	refs := d.order[:0]
	for i := range es {
		refs = append(refs, newSortRef(es[i].key, i))
	}
	if len(refs) <= 24 {
		for i := 1; i < len(refs); i++ {
			r := refs[i]
			j := i
			for ; j > 0 && d.after(refs[j-1], r); j-- {
				refs[j] = refs[j-1]
			}
			refs[j] = r
		}
	} else {
		slices.SortFunc(refs, d.compareRefs)
	}
	d.order = refs
	dst = slices.Grow(dst, len(env)+len(es))
	j := 0
	for _, r := range refs {
		en := &es[r.idx]
		for j < len(env) && compareEntryRefs(&env[j], en) <= 0 {
			dst = append(dst, env[j])
			j++
		}
		dst = append(dst, *en)
	}
	return append(dst, env[j:]...)
}
