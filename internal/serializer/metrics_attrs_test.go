// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
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
		t.Run(tt.name, func(t *testing.T) {
			if got := equalAttrs(tt.a, tt.b); got != tt.want {
				t.Errorf("equalAttrs = %v, want %v", got, tt.want)
			}
			if got := equalAttrs(tt.b, tt.a); got != tt.want {
				t.Errorf("equalAttrs (swapped) = %v, want %v", got, tt.want)
			}
			_, sa := hashAttrs(tt.a)
			_, sb := hashAttrs(tt.b)
			if got := equalPointAttrs(tt.a, tt.b, sa, sb); got != tt.want {
				t.Errorf("equalPointAttrs = %v, want %v", got, tt.want)
			}
			if got := equalPointAttrs(tt.b, tt.a, sb, sa); got != tt.want {
				t.Errorf("equalPointAttrs (swapped) = %v, want %v", got, tt.want)
			}
			if tt.want && hashMap(tt.a) != hashMap(tt.b) {
				t.Errorf("equal maps hash apart: %x, %x", hashMap(tt.a), hashMap(tt.b))
			}
			if !tt.want && hashMap(tt.a) == hashMap(tt.b) {
				t.Errorf("different maps hash alike: %x", hashMap(tt.a))
			}
		})
	}
}
