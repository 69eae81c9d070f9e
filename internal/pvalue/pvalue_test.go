// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pvalue

import (
	"runtime/debug"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// nest returns a value nesting n maps and slices by turns, the innermost holding a string.
func nest(n int) pcommon.Value {
	root := pcommon.NewValueEmpty()
	v := root
	for i := range n {
		if i%2 == 0 {
			v = v.SetEmptyMap().PutEmpty("k")
		} else {
			v = v.SetEmptySlice().AppendEmpty()
		}
	}
	v.SetStr("leaf")
	return root
}

func TestDeeper(t *testing.T) {
	wide := pcommon.NewValueMap()
	wide.Map().PutStr("a", "b")
	wide.Map().PutEmptySlice("s").AppendEmpty().SetEmptyMap() // 3 deep, after a scalar
	for _, c := range []struct {
		v     pcommon.Value
		depth int
	}{
		{pcommon.NewValueStr("x"), 0},
		{pcommon.NewValueEmpty(), 0},
		{pcommon.NewValueMap(), 1},
		{pcommon.NewValueSlice(), 1},
		{nest(1), 1},
		{nest(7), 7},
		{wide, 3},
	} {
		for n := range c.depth + 2 {
			if got, want := Deeper(c.v, n), c.depth > n; got != want {
				t.Errorf("Deeper(%s, %d) = %v, want %v", c.v.AsString(), n, got, want)
			}
		}
	}
}

// TestAsString: a value within MaxNesting converts as pdata converts it; one deeper converts to
// its type name, on a goroutine whose stack may not grow past 8 MB (pdata's AsString of a
// million levels would need hundreds of megabytes).
func TestAsString(t *testing.T) {
	for _, n := range []int{0, 1, 2, MaxNesting} {
		if v := nest(n); AsString(v) != v.AsString() {
			t.Errorf("nested %d deep: AsString = %q, want %q", n, AsString(v), v.AsString())
		}
	}
	old := debug.SetMaxStack(8 << 20)
	defer debug.SetMaxStack(old)
	for n, want := range map[int]string{MaxNesting + 1: "Map", 1_000_000: "Map", 1_000_001: "Map"} {
		v := nest(n)
		got := make(chan string)
		go func() { got <- AsString(v) }()
		if s := <-got; s != want {
			t.Errorf("nested %d deep: AsString = %q, want %q", n, s, want)
		}
	}
	s := pcommon.NewValueSlice()
	nest(MaxNesting).CopyTo(s.Slice().AppendEmpty())
	if got := AsString(s); got != "Slice" {
		t.Errorf("a slice holding a value %d deep: AsString = %q, want %q", MaxNesting, got, "Slice")
	}
}
