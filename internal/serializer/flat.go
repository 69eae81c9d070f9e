// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// The ecs, none and raw mapping modes write a document as a set of dotted keys: nested maps are
// flattened to "a.b.c", the keys are sorted, a repeated key keeps its last value, a scalar that
// collides with an object ("a" and "a.b") is renamed "a.value", and the ecs mode then de-dots
// the keys into nested objects. That is the contrib exporter's document model, kept here
// without building a document of copied values: a flatDoc is a reusable index of entries, each
// a key and a handle to its value (a pdata value, or a string or number of the record), and the
// writer walks the sorted index.
//
// Keys that are not a pdata key as it is (a prefixed or nested key, a key with invalid UTF-8, a
// renamed key) are built in the flatDoc's arena, which only grows while a document is built, so
// the strings that view it stay valid until the next reset.

// entryKind says where an entry's value is.
type entryKind uint8

const (
	kindValue     entryKind = iota // val, a pdata value; never a map once flattened
	kindStr                        // s
	kindInt                        // n
	kindTime                       // n, nanoseconds since the epoch, written as RFC 3339
	kindECSLinks                   // the links of the span being written, as ECS objects
	kindLinksJSON                  // the links of the span being written, as a JSON string
	kindJSON                       // s, JSON text written as it is; n indexes its metric (ecs metrics)
	kindDead                       // dropped: a child of a protected ECS field
)

// entry is one key of a flattened document and a handle to its value.
type entry struct {
	key string
	s   string
	val pcommon.Value
	n   int64
	// seq orders the entries of one key by when they were added; the last one wins. Its high
	// bits are the layer the entry came from (resource, scope, record, ...).
	seq     uint32
	kind    entryKind
	renamed bool // renamed to key.value; loses to a key.value of the document
	plain   bool // key is written as it is between quotes: nothing in it needs escaping
}

// layerShift puts the layer of an entry in the high bits of its seq.
const layerShift = 24

// flatDoc is the reusable index of one flattened object.
type flatDoc struct {
	entries []entry
	order   []sortRef // scratch of mergeSorted
	arena   []byte
	seq     uint32
	// invalid counts the bytes of invalid UTF-8 replaced in keys since the last reset.
	invalid int
}

func (d *flatDoc) reset() {
	d.entries = d.entries[:0]
	d.arena = d.arena[:0]
	d.seq = 0
	d.invalid = 0
}

// layer makes the entries added from now on win over those of lower layers.
func (d *flatDoc) layer(l uint32) { d.seq = l << layerShift }

// arenaString views b as a string without copying. b must not change while the string is in
// use: arenas only grow until they are reset, and every entry that views an arena is dropped
// before that reset.
func arenaString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// key returns prefix.k, or k when prefix is empty, with invalid UTF-8 in k replaced by U+FFFD.
func (d *flatDoc) key(prefix, k string) string {
	valid := utf8.ValidString(k)
	if prefix == "" && valid {
		return k
	}
	start := len(d.arena)
	if prefix != "" {
		d.arena = append(append(d.arena, prefix...), '.')
	}
	if valid {
		d.arena = append(d.arena, k...)
	} else {
		d.arena = d.appendRepaired(d.arena, k)
	}
	return arenaString(d.arena[start:])
}

// concat returns a+b, built in the arena.
func (d *flatDoc) concat(a, b string) string {
	start := len(d.arena)
	d.arena = append(append(d.arena, a...), b...)
	return arenaString(d.arena[start:])
}

// hexString returns id as lower-case hex, built in the arena.
func (d *flatDoc) hexString(id []byte) string {
	start := len(d.arena)
	for _, c := range id {
		d.arena = append(d.arena, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return arenaString(d.arena[start:])
}

// appendRepaired appends s with each byte of invalid UTF-8 replaced by U+FFFD, as the writer
// writes it, so that keys that differ only in invalid bytes are the same key.
func (d *flatDoc) appendRepaired(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\ufffd"...)
			d.invalid++
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

func (d *flatDoc) add(en entry) {
	d.seq++
	en.seq = d.seq
	en.plain = plainKey(en.key)
	d.entries = append(d.entries, en)
}

func (d *flatDoc) addStr(key, s string) {
	if s != "" {
		d.add(entry{key: key, kind: kindStr, s: s})
	}
}

func (d *flatDoc) addInt(key string, n int64) { d.add(entry{key: key, kind: kindInt, n: n}) }

func (d *flatDoc) addTime(key string, ts pcommon.Timestamp) {
	d.add(entry{key: key, kind: kindTime, n: int64(ts)}) // signed, as pcommon.Timestamp.AsTime reads it
}

// addDataStream adds data_stream.type, .dataset and .namespace, unless ds is the zero value.
func (d *flatDoc) addDataStream(ds DataStream) {
	if ds.Type != "" {
		d.addStr("data_stream.type", ds.Type)
		d.addStr("data_stream.dataset", ds.Dataset)
		d.addStr("data_stream.namespace", ds.Namespace)
	}
}

func (d *flatDoc) addID(key string, id []byte) {
	for _, c := range id {
		if c != 0 {
			d.addStr(key, d.hexString(id))
			return
		}
	}
}

// addValue adds v under key: a map is flattened below key, an empty value is left out.
func (d *flatDoc) addValue(key string, v pcommon.Value) {
	switch v.Type() {
	case pcommon.ValueTypeEmpty:
	case pcommon.ValueTypeMap:
		d.addMap(key, v.Map(), false)
	default:
		d.add(entry{key: key, kind: kindValue, val: v})
	}
}

// addMap flattens m below prefix. Control attributes are left out of a top-level attribute map.
func (d *flatDoc) addMap(prefix string, m pcommon.Map, attributes bool) {
	for k, v := range m.All() {
		if attributes && controlattr.Is(k) {
			continue
		}
		d.addValue(d.key(prefix, k), v)
	}
}

// addMapNested adds the keys of m as they are, without flattening its maps; for objects
// written with their keys sorted but not de-dotted.
func (d *flatDoc) addMapNested(m pcommon.Map) {
	for k, v := range m.All() {
		d.add(entry{key: d.key("", k), kind: kindValue, val: v})
	}
}

// compareKeys orders dotted keys path segment by path segment: a '.' sorts before any other
// byte. So the keys below "a." directly follow "a", and the keys of one object stay together,
// which the de-dotting walk and the collision check rely on.
func compareKeys(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := load64(a, i) ^ load64(b, i); x != 0 {
			i += bits.TrailingZeros64(x) / 8 // load64 is little-endian: the first byte is lowest
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

// plainKey reports whether k can be written between quotes as it is: printable ASCII without
// a quote or a backslash.
func plainKey(k string) bool {
	i := 0
	for ; i+8 <= len(k); i += 8 {
		if needsWork(load64(k, i)) {
			break
		}
	}
	for ; i < len(k); i++ {
		if c := k[i]; c >= utf8.RuneSelf || escapeASCII[c] != 0 {
			return false
		}
	}
	return true
}

// rankWord packs the first eight bytes of k (fewer if k is shorter) big-endian, each turned
// into its place in the order of compareKeys: a '.' becomes 0, a byte below '.' one more than
// itself, and any other byte stays; missing bytes are 0. So each byte keeps a rank of its own
// and, of two words that differ, the lower belongs to the lower key.
func rankWord(k string) uint64 {
	var x uint64
	if len(k) >= 8 {
		x = bits.ReverseBytes64(load64(k, 0))
	} else {
		for i := range len(k) {
			x |= uint64(k[i]) << (56 - 8*i)
		}
	}
	below := ^((x | highs) - ones*'.') &^ x & highs // bytes below '.', exactly
	t := x ^ (ones * '.')
	dots := ^(((t &^ highs) + ^uint64(highs)) | t) & highs // the '.' bytes, exactly
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

// isChild reports whether key lies below parent ("parent.x").
func isChild(key, parent string) bool {
	return len(key) > len(parent) && key[len(parent)] == '.' && key[:len(parent)] == parent
}

// normalize turns the sorted entries es into the document's fields, in place: of a repeated key
// the last entry wins, empty arrays are left out, and a scalar that collides with an object
// ("a" and "a.b") is renamed "a.value" (which loses to a key "a.value" of its own), unless
// protect says the scalar is a field to keep, in which case the keys below it are dropped. With
// nested set, the keys are not dotted paths and only repeats are dropped. Renamed keys are
// built in d's arena.
func (d *flatDoc) normalize(es []entry, nested bool, protect func(string) bool) []entry {
	for {
		out := es[:0]
		for i := range es {
			en := &es[i]
			if en.kind == kindDead || (i+1 < len(es) && es[i+1].key == en.key) {
				continue
			}
			if !nested && en.kind == kindValue && en.val.Type() == pcommon.ValueTypeSlice && en.val.Slice().Len() == 0 {
				continue
			}
			out = append(out, *en)
		}
		es = out
		if nested {
			return es
		}
		renamed := false
		for i := 0; i+1 < len(es); i++ {
			k := es[i].key
			if es[i].kind == kindDead || !isChild(es[i+1].key, k) {
				continue
			}
			if protect != nil && protect(k) {
				for j := i + 1; j < len(es) && isChild(es[j].key, k); j++ {
					es[j].kind = kindDead
				}
				continue
			}
			es[i].key = d.concat(k, ".value")
			es[i].renamed = true
			renamed = true
		}
		if !renamed {
			return slices.DeleteFunc(es, func(en entry) bool { return en.kind == kindDead })
		}
		sortEntries(es)
	}
}

// flatDocAt returns the scratch flatDoc for objects at the given nesting depth, reset. Depth 0
// is the document; objects inside arrays take the depths below it.
func (e *Encoder) flatDocAt(depth int) *flatDoc {
	for len(e.flat) <= depth {
		e.flat = append(e.flat, new(flatDoc))
	}
	d := e.flat[depth]
	d.reset()
	return d
}

// writeFlat writes the normalized entries es as one object with their keys as they are.
func (e *Encoder) writeFlat(es []entry, depth int, nested bool) {
	e.w.byte('{')
	for i := range es {
		if i > 0 {
			e.w.byte(',')
		}
		e.writeKey(es[i].key, es[i].plain)
		e.w.byte(':')
		e.writeEntry(&es[i], depth, nested)
	}
	e.w.byte('}')
}

// writeDedot writes the normalized entries es as nested objects: "a.b" and "a.c" become
// {"a":{"b":..,"c":..}}. Since es is sorted by path segment and no key is both a value and
// an object, each object's keys come together and no name repeats.
func (e *Encoder) writeDedot(es []entry, depth int) {
	e.w.byte('{')
	open := "" // the path of the innermost open object, with its trailing '.'
	first := true
	for i := range es {
		k := es[i].key
		for open != "" && !strings.HasPrefix(k, open) {
			e.w.byte('}')
			open = open[:strings.LastIndexByte(open[:len(open)-1], '.')+1]
			first = false
		}
		for {
			rest := k[len(open):]
			dot := strings.IndexByte(rest, '.')
			if dot < 0 {
				break
			}
			if !first {
				e.w.byte(',')
			}
			e.writeKey(rest[:dot], es[i].plain)
			e.w.raw(":{")
			open = k[:len(open)+dot+1]
			first = true
		}
		if !first {
			e.w.byte(',')
		}
		e.writeKey(k[len(open):], es[i].plain)
		e.w.byte(':')
		e.writeEntry(&es[i], depth, false)
		first = false
	}
	for ; open != ""; open = open[:strings.LastIndexByte(open[:len(open)-1], '.')+1] {
		e.w.byte('}')
	}
	e.w.byte('}')
}

// writeKey writes a key, or a part of one, as a JSON string; plain says it needs no escaping.
func (e *Encoder) writeKey(k string, plain bool) {
	if plain {
		e.w.buf = append(append(append(e.w.buf, '"'), k...), '"')
		return
	}
	e.w.str(k)
}

func (e *Encoder) writeEntry(en *entry, depth int, nested bool) {
	switch en.kind {
	case kindStr:
		e.w.str(en.s)
	case kindInt:
		e.w.int(en.n)
	case kindTime:
		e.w.rfc3339Nano(en.n)
	case kindECSLinks:
		e.writeECSLinks()
	case kindLinksJSON:
		e.writeLinksJSON()
	case kindJSON:
		e.w.raw(en.s)
	default:
		e.writeFlatValue(en.val, depth, nested)
	}
}

// writeFlatValue writes a value of a flattened document. An object inside an array is a
// document of its own, flattened, normalized and de-dotted; with nested set it keeps its keys
// as they are instead, sorted, the last of a repeated key winning, and empty values are null.
func (e *Encoder) writeFlatValue(v pcommon.Value, depth int, nested bool) {
	switch v.Type() {
	case pcommon.ValueTypeSlice:
		e.w.byte('[')
		for i, el := range v.Slice().All() {
			if i > 0 {
				e.w.byte(',')
			}
			e.writeFlatValue(el, depth, nested)
		}
		e.w.byte(']')
	case pcommon.ValueTypeMap:
		e.writeFlatObject(v.Map(), depth+1, nested)
	default:
		e.writeValue(v, depth) // scalars, and null for an empty value
	}
}

// writeFlatObject writes m as an object of its own, at the given depth of scratch state.
func (e *Encoder) writeFlatObject(m pcommon.Map, depth int, nested bool) {
	d := e.flatDocAt(depth)
	if nested {
		d.addMapNested(m)
	} else {
		d.addMap("", m, false)
	}
	e.w.invalidUTF8 += d.invalid
	sortEntries(d.entries)
	d.entries = d.normalize(d.entries, nested, nil)
	switch {
	case nested:
		e.writeFlat(d.entries, depth, true)
	case len(d.entries) == 0:
		e.w.raw("null") // an object with nothing to write, as contrib writes it
	default:
		e.writeDedot(d.entries, depth)
	}
}

// The layers of a flattened document. Of two entries with the same key, the one of the higher
// layer wins, and within a layer the one added last, as in the contrib exporter, which adds the
// fields in this order.
const (
	layerHead     = iota // none and raw: @timestamp, ids, severity, body, span fields
	layerResource        // resource attributes
	layerScope           // scope attributes (and, in none and raw, the scope's name and version)
	layerRecord          // the record's attributes (and, in none and raw, the data stream)
	layerMetrics         // ecs: the metric values of a metrics document
	layerFields          // ecs: data stream and the fields of the record
	layerEvents          // none and raw: the span's events
)

// setResourceFlat flattens the resource in the mode's layout, once per resource.
func (e *Encoder) setResourceFlat(r pcommon.Resource) {
	e.res.reset()
	e.res.layer(layerResource)
	switch e.mode {
	case ModeECS:
		e.res.addECS(r.Attributes(), ecsResourceRule)
		e.agent = deriveECSAgent(&e.res, r.Attributes())
	case ModeNone, ModeRaw:
		e.res.addMap("Resource", r.Attributes(), true)
	}
	sortEntries(e.res.entries)
	e.resourceRepair = e.res.invalid > 0
	e.sc.reset()
	e.scopeRepair = false
	e.env = append(e.env[:0], e.res.entries...)
}

// setScopeFlat flattens the scope in the mode's layout, once per scope, and merges it with the
// resource.
func (e *Encoder) setScopeFlat(s pcommon.InstrumentationScope) {
	e.sc.reset()
	e.sc.layer(layerScope)
	switch e.mode {
	case ModeECS:
		e.sc.addECS(s.Attributes(), ecsScopeRule)
	case ModeNone, ModeRaw:
		e.sc.addMap("Scope", s.Attributes(), true)
		// Written even when empty, and over attributes of these names, as contrib does.
		e.sc.add(entry{key: "Scope.name", kind: kindStr, s: s.Name()})
		e.sc.add(entry{key: "Scope.version", kind: kindStr, s: s.Version()})
	}
	sortEntries(e.sc.entries)
	e.scopeRepair = e.sc.invalid > 0
	e.env = mergeEntries(e.env[:0], e.res.entries, e.sc.entries)
}

// beginFlat starts a document of the ecs, none or raw mode at the end of dst, and returns the
// flatDoc that collects the record's own entries.
func (e *Encoder) beginFlat(dst []byte) *flatDoc {
	e.begin(dst)
	return e.flatDocAt(0)
}

// endFlat merges the record's entries with the resource's and the scope's, normalizes them and
// writes the document: de-dotted in ecs mode, flat in none and raw.
func (e *Encoder) endFlat(d *flatDoc) []byte {
	e.w.invalidUTF8 += d.invalid
	e.merged = d.mergeSorted(e.merged[:0], e.env)
	if e.mode == ModeECS {
		e.merged = d.normalize(e.merged, false, ecsProtected)
		e.writeDedot(e.merged, 0)
	} else {
		e.merged = d.normalize(e.merged, false, nil)
		e.writeFlat(e.merged, 0, false)
	}
	e.span = ptrace.Span{}
	return e.done()
}
