// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

func TestAppendFloat(t *testing.T) {
	for _, tt := range floatTests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendFloat(nil, tt.in)
			if string(got) != tt.want {
				t.Errorf("appendFloat(%v) = %s, want %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("appendFloat(%v) = %s, not valid JSON", tt.in, got)
			}
			if math.IsNaN(tt.in) || math.IsInf(tt.in, 0) {
				return
			}
			back, err := strconv.ParseFloat(string(got), 64)
			if err != nil || math.Float64bits(back) != math.Float64bits(tt.in) {
				t.Errorf("appendFloat(%v) = %s, parses back to %v (%v), want the same bits", tt.in, got, back, err)
			}
		})
	}
}

func TestAppendFloatAppendsToDst(t *testing.T) {
	got := appendFloat([]byte("[1.5,"), 2)
	if want := "[1.5,2.0"; string(got) != want {
		t.Errorf("appendFloat(%q, 2) = %s, want %s", "[1.5,", got, want)
	}
	// The exponent clean-up must look only at what this call wrote.
	got = appendFloat([]byte("e-0"), 1e-8)
	if want := "e-01e-8"; string(got) != want {
		t.Errorf("appendFloat(%q, 1e-8) = %s, want %s", "e-0", got, want)
	}
}

func TestAppendHex(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "nil", in: nil, want: `""`},
		{name: "empty", in: []byte{}, want: `""`},
		{name: "one byte", in: []byte{0x0a}, want: `"0a"`},
		{name: "lower case", in: []byte{0x00, 0xab, 0xff}, want: `"00abff"`},
		{
			name: "trace id",
			in:   []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10},
			want: `"0123456789abcdeffedcba9876543210"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appendHex(nil, tt.in); string(got) != tt.want {
				t.Errorf("appendHex(%x) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestAppendDateNanos(t *testing.T) {
	tests := []struct {
		name string
		in   uint64
		want string
	}{
		{name: "zero", in: 0, want: `"0.0"`},
		{name: "one nanosecond", in: 1, want: `"0.000001"`},
		{name: "one microsecond", in: 1000, want: `"0.001000"`},
		{name: "just under a millisecond", in: 999_999, want: `"0.999999"`},
		{name: "one millisecond", in: 1_000_000, want: `"1.0"`},
		{name: "exact millisecond", in: 1_700_000_000_123_000_000, want: `"1700000000123.0"`},
		{name: "nanoseconds", in: 1_700_000_000_123_000_456, want: `"1700000000123.000456"`},
		{name: "microseconds", in: 1_700_000_000_123_456_000, want: `"1700000000123.456000"`},
		{name: "max uint64", in: math.MaxUint64, want: `"18446744073709.551615"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appendDateNanos(nil, tt.in); string(got) != tt.want {
				t.Errorf("appendDateNanos(%d) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestWriterCountsInvalidUTF8(t *testing.T) {
	var w writer
	w.str("ok")
	w.str("\xff\xfe")
	w.str("\x80")
	if w.invalidUTF8 != 3 {
		t.Errorf("writer.invalidUTF8 = %d, want 3", w.invalidUTF8)
	}
	if want := "\"ok\"\"\ufffd\ufffd\"\"\ufffd\""; string(w.buf) != want {
		t.Errorf("writer.buf = %q, want %q", w.buf, want)
	}
}

func TestWriterScalars(t *testing.T) {
	var w writer
	w.byte('[')
	w.int(math.MinInt64)
	w.byte(',')
	w.uint(math.MaxUint64)
	w.byte(',')
	w.float(2)
	w.byte(',')
	w.bool(true)
	w.byte(',')
	w.bool(false)
	w.byte(',')
	w.hex([]byte{0xbe, 0xef})
	w.byte(',')
	w.dateNanos(1_000_001)
	w.raw(`,null`)
	w.bytes([]byte("]"))
	want := `[-9223372036854775808,18446744073709551615,2.0,true,false,"beef","1.000001",null]`
	if string(w.buf) != want {
		t.Errorf("writer.buf = %s, want %s", w.buf, want)
	}
	if !json.Valid(w.buf) {
		t.Errorf("writer.buf = %s, not valid JSON", w.buf)
	}
}

func TestLeafFunctionsDoNotAllocate(t *testing.T) {
	id := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	buf := make([]byte, 0, 64<<10)
	tests := []struct {
		name string
		fn   func()
	}{
		{name: "appendFloat", fn: func() {
			buf = appendFloat(buf[:0], 1.5)
			buf = appendFloat(buf, 1e-7)
			buf = appendFloat(buf, 3)
			buf = appendFloat(buf, math.NaN())
		}},
		{name: "appendDateNanos", fn: func() { buf = appendDateNanos(buf[:0], 1_700_000_000_123_000_456) }},
		{name: "appendHex", fn: func() { buf = appendHex(buf[:0], id) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(100, tt.fn); allocs != 0 {
				t.Errorf("%s allocates %v times per run into a pre-grown buffer, want 0", tt.name, allocs)
			}
		})
	}
}

// TestAppendFloatShortDecimals checks the fast path against strconv's formatting on the
// decimals it serves and their neighbors: every value c·10^-k for c up to 2000, near powers
// of two and ten, and the float64 next to each.
func TestAppendFloatShortDecimals(t *testing.T) {
	check := func(x float64) {
		for _, v := range []float64{x, -x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1))} {
			if got, want := appendFloat(nil, v), appendFloatStrconv(nil, v); !bytes.Equal(got, want) {
				t.Fatalf("appendFloat(%v) = %s, strconv's form is %s", v, got, want)
			}
		}
	}
	for k, pow := range exactPow10 {
		for c := range 2000 {
			check(float64(c) / pow)
		}
		for e := range 53 {
			check(math.Ldexp(1, e) / pow)
		}
		check(shortFloatMax / pow)
		check((shortFloatMax - 1) / pow)
		check(math.Pow10(k))
		check(math.Pow10(-k))
	}
}

func TestAppendRFC3339Nano(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{ns: 0, want: epochZero},
		{ns: 1, want: `"1970-01-01T00:00:00.000000001Z"`},
		{ns: 1_700_000_000_123_456_789, want: `"2023-11-14T22:13:20.123456789Z"`},
		{ns: 951_782_400_000_000_000, want: `"2000-02-29T00:00:00.000000000Z"`},
		{ns: -1, want: `"1969-12-31T23:59:59.999999999Z"`},
		{ns: math.MaxInt64, want: `"2262-04-11T23:47:16.854775807Z"`},
		{ns: math.MinInt64, want: `"1677-09-21T00:12:43.145224192Z"`},
	}
	for _, tt := range tests {
		if got := string(appendRFC3339Nano(nil, tt.ns)); got != tt.want {
			t.Errorf("appendRFC3339Nano(nil, %d) = %s, want %s", tt.ns, got, tt.want)
		}
	}
	// Against the time package, over the whole range.
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		ns := int64(r.Uint64())
		want := `"` + time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000Z") + `"`
		if got := string(appendRFC3339Nano(nil, ns)); got != want {
			t.Fatalf("appendRFC3339Nano(nil, %d) = %s, want %s", ns, got, want)
		}
	}
}

// The writer keeps what an append wrote whether or not it moved the buffer, also when the
// helper shortened its result after growing it: 1e-07 is written, then cleaned up to 1e-7,
// which fits the old buffer's capacity although it lives in the new one.
func TestWriterKeepsGrownThenShortenedAppend(t *testing.T) {
	for _, c := range []int{0, 1, 4, 5, 16} {
		w := writer{buf: make([]byte, 0, c)}
		w.float(1e-7)
		if got := string(w.buf); got != "1e-7" {
			t.Errorf("capacity %d: %q, want 1e-7", c, got)
		}
		w.raw("x")
		if got := string(w.buf); got != "1e-7x" {
			t.Errorf("capacity %d: %q, want 1e-7x", c, got)
		}
	}
	w := writer{buf: append(make([]byte, 0, 8), "ab"...)}
	w.str("cdefghij") // grows
	w.int(42)
	if got := string(w.buf); got != `ab"cdefghij"42` {
		t.Errorf("%q", got)
	}
}
