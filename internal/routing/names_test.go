// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestAppendAsString checks the conversion against pdata's own Value.AsString.
func TestAppendAsString(t *testing.T) {
	doubles := []float64{
		0, math.Copysign(0, -1), 1, -1, 1.5, 2, 100, 1e6, 123456789, 0.1, 1.0 / 3, 1e-6, 9.99e-7, 1e-7,
		1.5e-10, 1e20, 1e21, 1.5e300, -1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1),
	}
	var values []pcommon.Value
	for _, f := range doubles {
		values = append(values, pcommon.NewValueDouble(f))
	}
	for _, i := range []int64{0, 7, -7, math.MaxInt64, math.MinInt64} {
		values = append(values, pcommon.NewValueInt(i))
	}
	values = append(values,
		pcommon.NewValueBool(true), pcommon.NewValueBool(false),
		pcommon.NewValueStr(""), pcommon.NewValueStr("Ä-b"), pcommon.NewValueEmpty(),
	)
	m := pcommon.NewValueMap()
	m.Map().PutStr("k", "<v>")
	values = append(values, m)
	s := pcommon.NewValueSlice()
	s.Slice().AppendEmpty().SetInt(1)
	values = append(values, s)
	b := pcommon.NewValueBytes()
	b.Bytes().FromRaw([]byte{0xfb, 0xff})
	values = append(values, b)

	for _, v := range values {
		want := v.AsString()
		t.Run(v.Type().String()+" "+want, func(t *testing.T) {
			got := string(appendAsString([]byte("prefix:"), v))
			assert.Equal(t, "prefix:"+want, got, "appendAsString(%s)", want)
		})
	}
}

func TestAppendName(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		replaceDash bool
		limit       int
		want        string
	}{
		{name: "empty", in: "", limit: 10, want: ""},
		{name: "zero limit", in: "abc", limit: 0, want: ""},
		{name: "dash kept for namespace", in: "a-b", limit: 10, want: "a-b"},
		{name: "dash replaced for dataset", in: "a-b", replaceDash: true, limit: 10, want: "a_b"},
		{name: "cut at limit", in: "abcdef", limit: 3, want: "abc"},
		{name: "invalid byte counts one", in: "\xff\xfe", limit: 1, want: "_"},
		{name: "multi-byte does not fit", in: "é", limit: 1, want: ""},
		{name: "nothing after a dropped character", in: "aéb", limit: 2, want: "a"},
		{name: "truncated sequence at the end", in: "a\xe2\x82", limit: 10, want: "a__"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendName([]byte("x"), tt.in, tt.replaceDash, tt.limit))
			assert.Equal(t, "x"+tt.want, got, "appendName(%q, %v, %d)", tt.in, tt.replaceDash, tt.limit)
		})
	}
}

func TestIndexNameProblem(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "valid", in: "logs-generic.otel-default", want: ""},
		{name: "valid unicode", in: "日本語", want: ""},
		{name: "titlecase letter", in: "ǅ", want: reasonUpper},
		{name: "long multi-byte", in: strings.Repeat("é", 128), want: reasonTooLong},
		{name: "longest multi-byte", in: strings.Repeat("é", 127) + "a", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, indexNameProblem(tt.in), "indexNameProblem(%q)", tt.in)
		})
	}
}
