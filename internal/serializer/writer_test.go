// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, tt := range stringTests {
		t.Run(tt.name, func(t *testing.T) {
			got, invalid := appendString(nil, tt.in)
			if string(got) != tt.want {
				t.Errorf("appendString(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if invalid != tt.wantInvalid {
				t.Errorf("appendString(%q) invalid = %d, want %d", tt.in, invalid, tt.wantInvalid)
			}
			if !json.Valid(got) {
				t.Errorf("appendString(%q) = %s, not valid JSON", tt.in, got)
			}
			if want := decodeJSONString(t, mustMarshal(t, tt.in)); decodeJSONString(t, got) != want {
				t.Errorf("appendString(%q) decodes to %q, encoding/json's output decodes to %q", tt.in, decodeJSONString(t, got), want)
			}
		})
	}
}

func TestAppendStringAppendsToDst(t *testing.T) {
	dst := []byte(`{"k":`)
	got, _ := appendString(dst, "v\n")
	if want := `{"k":"v\n"`; string(got) != want {
		t.Errorf("appendString(%q, %q) = %s, want %s", dst, "v\n", got, want)
	}
}

func TestAppendEscaped(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		want        string
		wantInvalid int
	}{
		{name: "empty", in: "", want: ""},
		{name: "plain", in: "abc", want: "abc"},
		{name: "no quotes added", in: `"`, want: `\"`},
		{name: "control", in: "\x02", want: `\u0002`},
		{name: "invalid", in: "\x80\x80", want: "\ufffd\ufffd", wantInvalid: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, invalid := appendEscaped([]byte("prefix:"), tt.in)
			if string(got) != "prefix:"+tt.want || invalid != tt.wantInvalid {
				t.Errorf("appendEscaped(%q) = %q, %d, want %q, %d", tt.in, got, invalid, "prefix:"+tt.want, tt.wantInvalid)
			}
		})
	}
}

// TestAppendStringEveryASCIIByte checks each single ASCII byte against encoding/json, apart
// from the characters encoding/json escapes for HTML.
func TestAppendStringEveryASCIIByte(t *testing.T) {
	for c := range 0x80 {
		in := string(rune(c))
		got, invalid := appendString(nil, in)
		if invalid != 0 || !json.Valid(got) {
			t.Errorf("appendString(%q) = %s, %d, want valid JSON and 0", in, got, invalid)
			continue
		}
		if decodeJSONString(t, got) != in {
			t.Errorf("appendString(%q) = %s, does not decode to its input", in, got)
		}
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			if got[1] != '\\' {
				t.Errorf("appendString(%q) = %s, want an escape", in, got)
			}
		default:
			if want := `"` + in + `"`; string(got) != want {
				t.Errorf("appendString(%q) = %s, want %s", in, got, want)
			}
		}
	}
}

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
	long := strings.Repeat("log line with \"quotes\", a tab\t, é, 😀 and \xff; ", 20)
	id := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	buf := make([]byte, 0, 64<<10)
	tests := []struct {
		name string
		fn   func()
	}{
		{name: "appendString", fn: func() { buf, _ = appendString(buf[:0], long) }},
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

func mustMarshal(t testing.TB, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", s, err)
	}
	return b
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

// checkEscaped compares appendEscaped with escapeReference on s.
func checkEscaped(t *testing.T, s string) {
	t.Helper()
	got, gotInvalid := appendEscaped([]byte("x"), s)
	want, wantInvalid := escapeReference([]byte("x"), s)
	if !bytes.Equal(got, want) || gotInvalid != wantInvalid {
		t.Fatalf("appendEscaped(%q) = %q, %d, want %q, %d", s, got[1:], gotInvalid, want[1:], wantInvalid)
	}
}

// TestAppendEscapedMatchesReference checks appendEscaped byte for byte against
// escapeReference on every string of up to two pieces, each behind every offset from 0 to 8 so
// that it falls on each place of a word and in the tail, and on random strings of many pieces
// of up to a few hundred bytes.
func TestAppendEscapedMatchesReference(t *testing.T) {
	pad := strings.Repeat("p", 8)
	for _, a := range escapePieces {
		for _, b := range escapePieces {
			for off := range 9 {
				checkEscaped(t, pad[:off]+a+b)
				checkEscaped(t, pad[:off]+a+pad+b+pad[:off])
			}
		}
	}
	rnd := rand.New(rand.NewPCG(36, 3))
	var sb strings.Builder
	for range 20000 {
		sb.Reset()
		for range rnd.IntN(60) {
			if rnd.IntN(3) == 0 {
				sb.WriteString(pad[:rnd.IntN(9)])
			}
			sb.WriteString(escapePieces[rnd.IntN(len(escapePieces))])
		}
		checkEscaped(t, sb.String())
	}
}

// TestUTF8Len checks utf8Len against utf8.DecodeRuneInString on every pair of first two
// bytes, followed by third and fourth bytes at the edges of the continuation range, and on
// every cut short form of them.
func TestUTF8Len(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf0, 0xff}
	buf := make([]byte, 4)
	for b0 := 0x80; b0 <= 0xff; b0++ {
		for b1 := range 0x100 {
			for _, b2 := range edges {
				for _, b3 := range edges {
					buf[0], buf[1], buf[2], buf[3] = byte(b0), byte(b1), b2, b3
					for n := 1; n <= 4; n++ {
						s := string(buf[:n])
						want := 0
						if r, size := utf8.DecodeRuneInString(s); r != utf8.RuneError || size > 1 {
							want = size
						}
						if got := utf8Len(s, 0); got != want {
							t.Fatalf("utf8Len(%q, 0) = %d, want %d", s, got, want)
						}
					}
				}
			}
		}
	}
}

// TestWorkMask checks that workMask flags each byte that needs work, and that its lowest
// flagged byte is the first that does, for a word of plain bytes with one or two bytes of
// every value put in.
func TestWorkMask(t *testing.T) {
	needs := func(c byte) bool { return c >= utf8.RuneSelf || escapeASCII[c] != 0 }
	for c := range 0x100 {
		for d := range 0x100 {
			for i := range 8 {
				var w [8]byte
				copy(w[:], "plainabc")
				w[i] = byte(c)
				w[(i+3)%8] = byte(d)
				m := workMask(binary.LittleEndian.Uint64(w[:]))
				first := -1
				for j, b := range w {
					if needs(b) {
						if m>>(8*j+7)&1 == 0 {
							t.Fatalf("workMask(%q) = %#x, misses byte %d", w, m, j)
						}
						if first < 0 {
							first = j
						}
					}
				}
				if first < 0 && m != 0 || first >= 0 && bits.TrailingZeros64(m)>>3 != first {
					t.Fatalf("workMask(%q) = %#x, want the lowest flagged byte at %d", w, m, first)
				}
			}
		}
	}
}

// TestPlainKey checks plainKey against its definition, printable ASCII without a quote or a
// backslash, on every piece of escapePieces put at each place of keys of 1 to 24 bytes.
func TestPlainKey(t *testing.T) {
	plain := func(k string) bool {
		for _, c := range []byte(k) {
			if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	base := strings.Repeat("service.name", 2)
	for n := range 25 {
		if got := plainKey(base[:n]); !got {
			t.Fatalf("plainKey(%q) = false, want true", base[:n])
		}
		for _, p := range escapePieces {
			for at := range n + 1 {
				k := base[:at] + p + base[at:n]
				if got, want := plainKey(k), plain(k); got != want {
					t.Fatalf("plainKey(%q) = %v, want %v", k, got, want)
				}
			}
		}
	}
}
