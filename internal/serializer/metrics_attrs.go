// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// attrShape is what hashing learns of an attribute map that speeds up its equality check and
// its routing: the number of grouped keys, whether a key repeats, and whether a key is one
// that routing reads (routingKey).
type attrShape struct {
	grouped int32
	repeats bool
	routes  bool
}

// grouped reports whether an attribute takes part in grouping and is written: routing
// attributes and the mapping hints do not.
func grouped(k string) bool { return !controlattr.Is(k) }

// routingKey reports whether routing reads the attribute k of a data point: the index, or a
// part of the data stream's name (see MetricPoint's Routes).
func routingKey(k string) bool {
	switch k {
	case controlattr.Index, controlattr.DataStreamType, controlattr.DataStreamDataset, controlattr.DataStreamNamespace:
		return true
	}
	return false
}

// Grouping compares attribute maps in one of two ways. The ecs mode compares pdata values
// (equalValue, hashValue). The otel mode, whose attributes are the time series dimensions of
// Elasticsearch's OTel data streams, compares what Elasticsearch indexes of them (dims): values
// that it takes as one dimension value group together, so that one series at one time is one
// document. dimValue says which; it keeps only the cases that Elasticsearch 8.x (a routing path
// over the dimension text) and 9.x (a typed time series id) both take as one: a one-element
// slice is its element, an empty slice, an empty value and NaN or ±Inf (written null) are as
// if the key were missing, and strings that differ only in invalid UTF-8 are one (written with
// U+FFFD). 1 and "1", or true and "true", stay apart: a routing path over the dimensions (8.x)
// makes them one series, 9.x's index.dimensions two. See docs/documents.md, "Time series
// identity".

// dimValue returns the value Elasticsearch indexes as a dimension for an attribute value v, and
// false when it indexes none (the key is then as if missing).
func dimValue(v pcommon.Value) (pcommon.Value, bool) {
	switch v.Type() {
	case pcommon.ValueTypeStr, pcommon.ValueTypeInt, pcommon.ValueTypeBool:
		return v, true
	case pcommon.ValueTypeEmpty:
		return v, false
	case pcommon.ValueTypeDouble:
		return v, finite(v.Double())
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		switch s.Len() {
		case 0:
			return v, false
		case 1:
			// [null] and [[...]] stay slices: Elasticsearch refuses both.
			switch e := s.At(0); e.Type() {
			case pcommon.ValueTypeEmpty, pcommon.ValueTypeSlice:
			case pcommon.ValueTypeDouble:
				if finite(e.Double()) {
					return e, true
				}
			default:
				return e, true
			}
		}
	}
	return v, true
}

// attrCounts reports whether the value v of a grouped key takes part in grouping: always in
// the ecs mode, with dims when Elasticsearch indexes a dimension value for it.
func attrCounts(v pcommon.Value, dims bool) bool {
	if !dims {
		return true
	}
	_, ok := dimValue(v)
	return ok
}

// attrTerm returns the term of the pair k, v in the hash of an attribute map, and false when
// v does not count (see attrCounts). The common types take one type switch.
func attrTerm(k string, v pcommon.Value, dims bool) (uint64, bool) {
	return keyTerm(xxhash.Sum64String(k), v, dims)
}

// keyTerm is attrTerm for a key whose hash kh is known.
func keyTerm(kh uint64, v pcommon.Value, dims bool) (uint64, bool) {
	var vh uint64
	switch v.Type() {
	case pcommon.ValueTypeStr:
		vh = hashDimStr(v.Str(), dims)
	case pcommon.ValueTypeInt:
		vh = mix(1, uint64(v.Int()))
	case pcommon.ValueTypeBool:
		vh = hashValue(v)
	default:
		if dims {
			var ok bool
			if v, ok = dimValue(v); !ok {
				return 0, false
			}
			if v.Type() == pcommon.ValueTypeStr {
				vh = hashDimStr(v.Str(), dims)
				break
			}
		}
		vh = hashValue(v)
	}
	return mix(kh, vh), true
}

// hashDimStr is hashValue of a string; with dims, of the string as written, invalid UTF-8
// repaired.
func hashDimStr(s string, dims bool) uint64 {
	if dims && !utf8.ValidString(s) {
		s = repairUTF8(s) // allocates; invalid UTF-8 is rare
	}
	return xxhash.Sum64String(s)
}

// sameScalar reports whether a and b are strings, ints or booleans of one type and value: the
// common case of equal values, without dimValue.
func sameScalar(a, b pcommon.Value) bool {
	t := a.Type()
	if t != b.Type() {
		return false
	}
	switch t {
	case pcommon.ValueTypeStr:
		return a.Str() == b.Str()
	case pcommon.ValueTypeInt:
		return a.Int() == b.Int()
	case pcommon.ValueTypeBool:
		return a.Bool() == b.Bool()
	}
	return false
}

// sameAttrValue reports whether the value va of a key, which counts (see attrCounts), and the
// value vb of the same key in another map group together.
func sameAttrValue(va, vb pcommon.Value, dims bool) bool {
	if !dims {
		return equalValue(va, vb)
	}
	da, _ := dimValue(va)
	db, ok := dimValue(vb)
	if !ok {
		return false
	}
	if da.Type() == pcommon.ValueTypeStr && db.Type() == pcommon.ValueTypeStr {
		a, b := da.Str(), db.Str()
		if a == b {
			return true
		}
		if utf8.ValidString(a) && utf8.ValidString(b) {
			return false
		}
		return repairUTF8(a) == repairUTF8(b)
	}
	return equalValue(da, db)
}

// equalPointAttrs is equalAttrs for maps of known shape. Without repeated keys, the same
// number of grouped keys and every grouped key of a found in b with an equal value make the
// two sets equal, so b need not be walked and a's keys need no check for repeats.
func equalPointAttrs(a, b pcommon.Map, sa, sb attrShape, dims bool) bool {
	if sa.grouped != sb.grouped {
		return false
	}
	if sa.repeats || sb.repeats || a.Len() > linearMax || b.Len() > linearMax {
		return equalAttrs(a, b, dims)
	}
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		vb, ok := b.Get(k)
		if ok && sameScalar(va, vb) {
			continue
		}
		if !attrCounts(va, dims) {
			continue
		}
		if !ok || !sameAttrValue(va, vb, dims) {
			return false
		}
	}
	return true
}

// equalAttrs compares two attribute maps as sets of grouped keys, in any order. A repeated
// key counts once, with its first value, as it is written. Small maps are compared in place;
// large ones through an index of b's first values, so the time stays linear.
func equalAttrs(a, b pcommon.Map, dims bool) bool {
	if a.Len() > linearMax || b.Len() > linearMax {
		return equalLargeAttrs(a, b, dims)
	}
	na, nb := 0, 0
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := a.Get(k); first != va || !attrCounts(va, dims) {
			continue // a repeated key, or a value that does not count
		}
		na++
		vb, ok := b.Get(k)
		if !ok || !sameAttrValue(va, vb, dims) {
			return false
		}
	}
	for k, vb := range b.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := b.Get(k); first == vb && attrCounts(vb, dims) {
			nb++
		}
	}
	return na == nb
}

func equalLargeAttrs(a, b pcommon.Map, dims bool) bool {
	first := make(map[string]pcommon.Value, b.Len())
	nb := 0
	for k, v := range b.All() {
		if _, seen := first[k]; !seen && grouped(k) {
			first[k] = v
			if attrCounts(v, dims) {
				nb++
			}
		}
	}
	seen := make(map[string]struct{}, a.Len())
	na := 0
	for k, va := range a.All() {
		if _, dup := seen[k]; dup || !grouped(k) {
			continue
		}
		seen[k] = struct{}{}
		if !attrCounts(va, dims) {
			continue
		}
		na++
		vb, ok := first[k]
		if !ok || !sameAttrValue(va, vb, dims) {
			return false
		}
	}
	return na == nb
}

// hashMap hashes the grouped attributes of m independently of their order; a repeated key
// counts once, with its first value.
func hashMap(m pcommon.Map, dims bool) uint64 {
	h, _ := hashAttrs(m, dims)
	return h
}

// hashAttrs returns hashMap of m and its shape. Maps of more than linearMax keys track the
// keys seen in a set, so the time stays linear.
func hashAttrs(m pcommon.Map, dims bool) (uint64, attrShape) {
	var seen map[string]struct{}
	if m.Len() > linearMax {
		seen = make(map[string]struct{}, m.Len())
	}
	var h uint64
	var shape attrShape
	for k, v := range m.All() {
		if !grouped(k) {
			shape.routes = shape.routes || routingKey(k)
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
		if term, ok := attrTerm(k, v, dims); ok {
			shape.grouped++
			h += term
		}
	}
	return h, shape
}

// hashPointAttrs is hashAttrs of a data point's attributes with the point's mapping hints (see
// hintsOf), read in the same walk. A repeated key is found without a second walk of the map:
// each key's hash, which its term needs anyway, is compared with those of the keys before it,
// and only a key whose hash was seen is looked up.
func hashPointAttrs(m pcommon.Map, dims bool) (uint64, attrShape, hintSet) {
	if m.Len() > linearMax {
		h, shape := hashAttrs(m, dims)
		return h, shape, hintsOf(m)
	}
	var h uint64
	var shape attrShape
	var hints hintSet
	hintsSeen := false
	var seen [linearMax]uint64
	n := 0
	for k, v := range m.All() {
		if !grouped(k) {
			if k == controlattr.MappingHints && !hintsSeen {
				hintsSeen = true // the first value counts, as Get finds it
				hints = hintsOfValue(v)
			}
			shape.routes = shape.routes || routingKey(k)
			continue
		}
		kh := xxhash.Sum64String(k)
		if slices.Contains(seen[:n], kh) {
			if first, _ := m.Get(k); first != v {
				shape.repeats = true
				continue
			}
		}
		seen[n] = kh
		n++
		if term, ok := keyTerm(kh, v, dims); ok {
			shape.grouped++
			h += term
		}
	}
	return h, shape, hints
}

// hashValue hashes an attribute value for grouping (see equalValue). The maps and slices nested
// more than maxDepth levels into v hash by their type alone, so that the walk stays bounded;
// equalValue tells them apart.
func hashValue(v pcommon.Value) uint64 { return hashValueIn(v, maxDepth) }

// hashValueIn is hashValue descending at most room more levels of maps and slices.
func hashValueIn(v pcommon.Value, room int) uint64 {
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
		if room == 0 {
			return 5
		}
		return mix(5, hashMapAll(v.Map(), room-1))
	case pcommon.ValueTypeSlice:
		h := uint64(6)
		if room == 0 {
			return h
		}
		s := v.Slice()
		for i := range s.Len() {
			h = mix(h, hashValueIn(s.At(i), room-1))
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
// written apart, stay apart. Below maxDepth levels of maps and slices the values are compared
// by equalDeep, without recursion.
func equalValue(a, b pcommon.Value) bool { return equalValueIn(a, b, maxDepth) }

// equalValueIn is equalValue descending at most room more levels by recursion.
func equalValueIn(a, b pcommon.Value, room int) bool {
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
		if room == 0 {
			return equalDeep(a, b)
		}
		sa, sb := a.Slice(), b.Slice()
		if sa.Len() != sb.Len() {
			return false
		}
		for i := range sa.Len() {
			if !equalValueIn(sa.At(i), sb.At(i), room-1) {
				return false
			}
		}
		return true
	case pcommon.ValueTypeMap:
		if room == 0 {
			return equalDeep(a, b)
		}
		ma, mb := a.Map(), b.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		for k, va := range ma.All() {
			vb, ok := mb.Get(k)
			if !ok || !equalValueIn(va, vb, room-1) {
				return false
			}
		}
		return true
	}
	return a.Equal(b) // a scalar: Equal does not recurse
}

// equalDeep is equalValue for values of any depth: the pairs of values still to compare are
// kept in a slice rather than on the goroutine stack.
func equalDeep(a, b pcommon.Value) bool {
	todo := [][2]pcommon.Value{{a, b}}
	for len(todo) > 0 {
		a, b := todo[len(todo)-1][0], todo[len(todo)-1][1]
		todo = todo[:len(todo)-1]
		if a.Type() != b.Type() {
			return false
		}
		switch a.Type() {
		case pcommon.ValueTypeSlice:
			sa, sb := a.Slice(), b.Slice()
			if sa.Len() != sb.Len() {
				return false
			}
			for i := range sa.Len() {
				todo = append(todo, [2]pcommon.Value{sa.At(i), sb.At(i)})
			}
		case pcommon.ValueTypeMap:
			ma, mb := a.Map(), b.Map()
			if ma.Len() != mb.Len() {
				return false
			}
			for k, va := range ma.All() {
				vb, ok := mb.Get(k)
				if !ok {
					return false
				}
				todo = append(todo, [2]pcommon.Value{va, vb})
			}
		default:
			if !equalValueIn(a, b, 0) {
				return false
			}
		}
	}
	return true
}

// hashMapAll hashes every key of a nested map, independently of their order, descending at
// most room more levels below it (see hashValue).
func hashMapAll(m pcommon.Map, room int) uint64 {
	var h uint64
	for k, v := range m.All() {
		h += mix(xxhash.Sum64String(k), hashValueIn(v, room))
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
