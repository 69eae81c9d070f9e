// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math"
	"strconv"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// largeAttrs returns the pairs k0=0 to k<2*linearMax-1>, rotated by r.
func largeAttrs(r int) []any {
	n := 2 * linearMax
	kv := make([]any, 0, 2*n)
	for i := range n {
		j := (i + r) % n
		kv = append(kv, "k"+strconv.Itoa(j), j)
	}
	return kv
}

func TestEqualAttrsAndHashMap(t *testing.T) {
	mk := func(kv ...any) pcommon.Map {
		m := pcommon.NewMap()
		putAttrs(m, kv...)
		return m
	}
	nested := func(keys ...string) pcommon.Map {
		m := pcommon.NewMap()
		n := m.PutEmptyMap("n")
		for _, k := range keys {
			n.PutStr(k, k)
		}
		return m
	}
	tests := []struct {
		name string
		a, b pcommon.Map
		want bool
	}{
		{name: "both empty", a: mk(), b: mk(), want: true},
		{name: "key order", a: mk("a", 1, "b", "x", "c", true), b: mk("c", true, "a", 1, "b", "x"), want: true},
		{name: "different value", a: mk("a", 1), b: mk("a", 2), want: false},
		{name: "int and double", a: mk("a", 1), b: mk("a", 1.0), want: false},
		{name: "int and string", a: mk("a", 1), b: mk("a", "1"), want: false},
		{name: "missing key", a: mk("a", 1, "b", 2), b: mk("a", 1), want: false},
		{name: "extra key", a: mk("a", 1), b: mk("a", 1, "b", 2), want: false},
		{name: "control attributes ignored", a: mk("a", 1, "data_stream.dataset", "x"), b: mk("elasticsearch.mapping.hints", hints("_doc_count"), "a", 1), want: true},
		{name: "only control attributes", a: mk("elasticsearch.index", "i"), b: mk(), want: true},
		{name: "nested map key order", a: nested("x", "y"), b: nested("y", "x"), want: true},
		{name: "nested map differs", a: nested("x", "y"), b: nested("x"), want: false},
		{name: "slices", a: mk("s", hints("a", "b")), b: mk("s", hints("a", "b")), want: true},
		{name: "slice order counts", a: mk("s", hints("a", "b")), b: mk("s", hints("b", "a")), want: false},
		{name: "repeated key, first value wins", a: rawAttrs(t, "k", "v", "k", "w"), b: rawAttrs(t, "k", "v"), want: true},
		{name: "repeated key, second value ignored", a: rawAttrs(t, "k", "v", "k", "w"), b: rawAttrs(t, "k", "w"), want: false},
		{name: "repeated key against another key", a: rawAttrs(t, "k", "v", "k", "v"), b: rawAttrs(t, "k", "v", "j", "v"), want: false},
		{name: "large maps, key order", a: mk(largeAttrs(0)...), b: mk(largeAttrs(1)...), want: true},
		{name: "large maps differ", a: mk(largeAttrs(0)...), b: mk(append(largeAttrs(1)[2:], "k0", "x")...), want: false},
	}
	for _, tt := range tests {
		for _, dims := range []bool{false, true} {
			t.Run(tt.name+"/dims="+strconv.FormatBool(dims), func(t *testing.T) {
				checkAttrsEqual(t, tt.a, tt.b, dims, tt.want)
			})
		}
	}
}

// checkAttrsEqual checks every equality of attribute maps, both ways, against want, and that
// equal maps hash alike and different ones (in these tests) apart.
func checkAttrsEqual(t *testing.T, a, b pcommon.Map, dims, want bool) {
	t.Helper()
	if got := equalAttrs(a, b, dims); got != want {
		t.Errorf("equalAttrs = %v, want %v", got, want)
	}
	if got := equalAttrs(b, a, dims); got != want {
		t.Errorf("equalAttrs (swapped) = %v, want %v", got, want)
	}
	_, sa := hashAttrs(a, dims)
	_, sb := hashAttrs(b, dims)
	if got := equalPointAttrs(a, b, sa, sb, dims); got != want {
		t.Errorf("equalPointAttrs = %v, want %v", got, want)
	}
	if got := equalPointAttrs(b, a, sb, sa, dims); got != want {
		t.Errorf("equalPointAttrs (swapped) = %v, want %v", got, want)
	}
	ha, hb := hashMap(a, dims), hashMap(b, dims)
	if want && ha != hb {
		t.Errorf("equal maps hash apart: %x, %x", ha, hb)
	}
	if !want && ha == hb {
		t.Errorf("different maps hash alike: %x", ha)
	}
	ph, ps, _ := hashPointAttrs(a, dims)
	if ph != ha || ps != sa {
		t.Errorf("hashPointAttrs = %x %+v, hashAttrs = %x %+v", ph, ps, ha, sa)
	}
}

// TestDimensionAttrs checks the otel mode's grouping of attribute values that Elasticsearch
// indexes as one time series dimension value (dims), against the ecs mode's, which compares
// pdata values: one-element slices and their element, empty slices, empty values and NaN or
// ±Inf (written null) and a missing key, strings that differ only in invalid UTF-8. Values that
// one Elasticsearch version indexes apart stay apart (see dimValue).
func TestDimensionAttrs(t *testing.T) {
	mk := func(set func(m pcommon.Map)) pcommon.Map {
		m := pcommon.NewMap()
		m.PutStr("k", "v")
		set(m)
		return m
	}
	none := mk(func(pcommon.Map) {})
	slice := func(k string, set ...func(v pcommon.Value)) func(m pcommon.Map) {
		return func(m pcommon.Map) {
			s := m.PutEmptySlice(k)
			for _, f := range set {
				f(s.AppendEmpty())
			}
		}
	}
	str := func(s string) func(v pcommon.Value) { return func(v pcommon.Value) { v.SetStr(s) } }
	dbl := func(f float64) func(v pcommon.Value) { return func(v pcommon.Value) { v.SetDouble(f) } }
	large := func(extra func(m pcommon.Map)) pcommon.Map {
		m := pcommon.NewMap()
		putAttrs(m, largeAttrs(0)...)
		extra(m)
		return m
	}
	tests := []struct {
		name           string
		a, b           pcommon.Map
		want, wantDims bool
	}{
		{name: "[v] and v", a: mk(slice("x", str("a"))), b: mk(func(m pcommon.Map) { m.PutStr("x", "a") }), wantDims: true},
		{name: "[1] and 1", a: mk(slice("x", func(v pcommon.Value) { v.SetInt(1) })), b: mk(func(m pcommon.Map) { m.PutInt("x", 1) }), wantDims: true},
		{name: "[] and missing", a: mk(slice("x")), b: none, wantDims: true},
		{name: "[] and NaN", a: mk(slice("x")), b: mk(func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }), wantDims: true},
		{name: "NaN and missing", a: mk(func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }), b: none, wantDims: true},
		{name: "+Inf and -Inf", a: mk(func(m pcommon.Map) { m.PutDouble("x", math.Inf(1)) }), b: mk(func(m pcommon.Map) { m.PutDouble("x", math.Inf(-1)) }), wantDims: true},
		{name: "empty value and missing", a: mk(func(m pcommon.Map) { m.PutEmpty("x") }), b: none, wantDims: true},
		{name: "invalid UTF-8", a: mk(func(m pcommon.Map) { m.PutStr("x", "a\xff") }), b: mk(func(m pcommon.Map) { m.PutStr("x", "a\xfe") }), wantDims: true},
		{name: "invalid UTF-8 and U+FFFD", a: mk(func(m pcommon.Map) { m.PutStr("x", "a\xff") }), b: mk(func(m pcommon.Map) { m.PutStr("x", "a\ufffd") }), wantDims: true},
		{name: "[invalid UTF-8] and U+FFFD", a: mk(slice("x", str("a\xff"))), b: mk(func(m pcommon.Map) { m.PutStr("x", "a\ufffd") }), wantDims: true},
		{name: "large maps, [] and missing", a: large(slice("x")), b: large(func(pcommon.Map) {}), wantDims: true},
		{name: "large maps, [v] and v", a: large(slice("x", str("a"))), b: large(func(m pcommon.Map) { m.PutStr("x", "a") }), wantDims: true},
		{name: "[NaN] and missing", a: mk(slice("x", dbl(math.NaN()))), b: none},
		{name: "[[a]] and [a]", a: mk(slice("x", func(v pcommon.Value) { v.SetEmptySlice().AppendEmpty().SetStr("a") })), b: mk(slice("x", str("a")))},
		{name: "[a, b] and a", a: mk(slice("x", str("a"), str("b"))), b: mk(func(m pcommon.Map) { m.PutStr("x", "a") })},
		{name: "1 and \"1\"", a: mk(func(m pcommon.Map) { m.PutInt("x", 1) }), b: mk(func(m pcommon.Map) { m.PutStr("x", "1") })},
		{name: "true and \"true\"", a: mk(func(m pcommon.Map) { m.PutBool("x", true) }), b: mk(func(m pcommon.Map) { m.PutStr("x", "true") })},
		{name: "1 and 1.0", a: mk(func(m pcommon.Map) { m.PutInt("x", 1) }), b: mk(func(m pcommon.Map) { m.PutDouble("x", 1) })},
		{name: "NaN and 1", a: mk(func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }), b: mk(func(m pcommon.Map) { m.PutDouble("x", 1) })},
		{name: "valid strings", a: mk(func(m pcommon.Map) { m.PutStr("x", "a") }), b: mk(func(m pcommon.Map) { m.PutStr("x", "b") })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAttrsEqual(t, tt.a, tt.b, false, tt.want)
			checkAttrsEqual(t, tt.a, tt.b, true, tt.wantDims)
		})
	}
}
