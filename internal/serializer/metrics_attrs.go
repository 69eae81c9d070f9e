// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// attrShape is what hashing learns of an attribute map that speeds up its equality check: the
// number of grouped keys, and whether a key repeats.
type attrShape struct {
	grouped int32
	repeats bool
}

// grouped reports whether an attribute takes part in grouping and is written: routing
// attributes and the mapping hints do not.
func grouped(k string) bool { return !controlattr.Is(k) }

// equalPointAttrs is equalAttrs for maps of known shape. Without repeated keys, the same
// number of grouped keys and every grouped key of a found in b with an equal value make the
// two sets equal, so b need not be walked and a's keys need no check for repeats.
func equalPointAttrs(a, b pcommon.Map, sa, sb attrShape) bool {
	if sa.grouped != sb.grouped {
		return false
	}
	if sa.repeats || sb.repeats || a.Len() > linearMax || b.Len() > linearMax {
		return equalAttrs(a, b)
	}
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		vb, ok := b.Get(k)
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	return true
}

// equalAttrs compares two attribute maps as sets of grouped keys, in any order. A repeated
// key counts once, with its first value, as it is written. Small maps are compared in place;
// large ones through an index of b's first values, so the time stays linear.
func equalAttrs(a, b pcommon.Map) bool {
	if a.Len() > linearMax || b.Len() > linearMax {
		return equalLargeAttrs(a, b)
	}
	na, nb := 0, 0
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := a.Get(k); first != va {
			continue // a repeated key
		}
		na++
		vb, ok := b.Get(k)
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	for k, vb := range b.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := b.Get(k); first == vb {
			nb++
		}
	}
	return na == nb
}

func equalLargeAttrs(a, b pcommon.Map) bool {
	first := make(map[string]pcommon.Value, b.Len())
	for k, v := range b.All() {
		if _, seen := first[k]; !seen && grouped(k) {
			first[k] = v
		}
	}
	seen := make(map[string]struct{}, a.Len())
	for k, va := range a.All() {
		if _, dup := seen[k]; dup || !grouped(k) {
			continue
		}
		seen[k] = struct{}{}
		vb, ok := first[k]
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	return len(seen) == len(first)
}

// hashMap hashes the grouped attributes of m independently of their order; a repeated key
// counts once, with its first value.
func hashMap(m pcommon.Map) uint64 {
	h, _ := hashAttrs(m)
	return h
}

// hashAttrs returns hashMap of m and its shape. Maps of more than linearMax keys track the
// keys seen in a set, so the time stays linear.
func hashAttrs(m pcommon.Map) (uint64, attrShape) {
	var seen map[string]struct{}
	if m.Len() > linearMax {
		seen = make(map[string]struct{}, m.Len())
	}
	var h uint64
	var shape attrShape
	for k, v := range m.All() {
		if !grouped(k) {
			continue
		}
		if seen != nil {
			if _, dup := seen[k]; dup {
				shape.repeats = true
				continue
			}
			seen[k] = struct{}{}
		} else if first, _ := m.Get(k); first != v {
			shape.repeats = true
			continue
		}
		shape.grouped++
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h, shape
}

// hashPointAttrs is hashAttrs of a data point's attributes with the point's mapping hints (see
// hintsOf), read in the same walk.
func hashPointAttrs(m pcommon.Map) (uint64, attrShape, hintSet) {
	if m.Len() > linearMax {
		h, shape := hashAttrs(m)
		return h, shape, hintsOf(m)
	}
	var h uint64
	var shape attrShape
	var hints hintSet
	hintsSeen := false
	for k, v := range m.All() {
		if !grouped(k) {
			if k == controlattr.MappingHints && !hintsSeen {
				hintsSeen = true // the first value counts, as Get finds it
				hints = hintsOfValue(v)
			}
			continue
		}
		if first, _ := m.Get(k); first != v {
			shape.repeats = true
			continue
		}
		shape.grouped++
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h, shape, hints
}

func hashValue(v pcommon.Value) uint64 {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return xxhash.Sum64String(v.Str())
	case pcommon.ValueTypeInt:
		return mix(1, uint64(v.Int()))
	case pcommon.ValueTypeDouble:
		return mix(2, doubleBits(v.Double()))
	case pcommon.ValueTypeBool:
		if v.Bool() {
			return 3
		}
		return 4
	case pcommon.ValueTypeMap:
		return mix(5, hashMapAll(v.Map()))
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		h := uint64(6)
		for i := range s.Len() {
			h = mix(h, hashValue(s.At(i)))
		}
		return h
	case pcommon.ValueTypeBytes:
		h := uint64(7)
		for _, c := range v.Bytes().All() {
			h = mix(h, uint64(c))
		}
		return h
	}
	return 0
}

// doubleBits returns the bits of f that grouping hashes: every NaN has the same, since NaN
// values group together (see equalValue).
func doubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

// equalValue reports whether two attribute values are one for grouping: pcommon.Value.Equal,
// except that doubles compare by what they hold, so that two NaN are equal (and Elasticsearch
// indexes both as the same missing value), at any depth; 0 and -0, which hash apart and are
// written apart, stay apart.
func equalValue(a, b pcommon.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Type() {
	case pcommon.ValueTypeStr: // the common cases first, without Value.Equal's second switch
		return a.Str() == b.Str()
	case pcommon.ValueTypeInt:
		return a.Int() == b.Int()
	case pcommon.ValueTypeDouble:
		return doubleBits(a.Double()) == doubleBits(b.Double())
	case pcommon.ValueTypeSlice:
		sa, sb := a.Slice(), b.Slice()
		if sa.Len() != sb.Len() {
			return false
		}
		for i := range sa.Len() {
			if !equalValue(sa.At(i), sb.At(i)) {
				return false
			}
		}
		return true
	case pcommon.ValueTypeMap:
		ma, mb := a.Map(), b.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		for k, va := range ma.All() {
			vb, ok := mb.Get(k)
			if !ok || !equalValue(va, vb) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// hashMapAll hashes every key of a nested map, independently of their order.
func hashMapAll(m pcommon.Map) uint64 {
	var h uint64
	for k, v := range m.All() {
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h
}

// mix combines two hashes (the finaliser of SplitMix64 over their sum).
func mix(a, b uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 + b
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
