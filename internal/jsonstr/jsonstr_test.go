// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package jsonstr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, tt := range stringTests {
		t.Run(tt.name, func(t *testing.T) {
			got, invalid := Append(nil, tt.in)
			if string(got) != tt.want {
				t.Errorf("Append(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if invalid != tt.wantInvalid {
				t.Errorf("Append(%q) invalid = %d, want %d", tt.in, invalid, tt.wantInvalid)
			}
			if !json.Valid(got) {
				t.Errorf("Append(%q) = %s, not valid JSON", tt.in, got)
			}
			if want := decodeJSONString(t, mustMarshal(t, tt.in)); decodeJSONString(t, got) != want {
				t.Errorf("Append(%q) decodes to %q, encoding/json's output decodes to %q", tt.in, decodeJSONString(t, got), want)
			}
		})
	}
}

func TestAppendStringAppendsToDst(t *testing.T) {
	dst := []byte(`{"k":`)
	got, _ := Append(dst, "v\n")
	if want := `{"k":"v\n"`; string(got) != want {
		t.Errorf("Append(%q, %q) = %s, want %s", dst, "v\n", got, want)
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
			got, invalid := AppendEscaped([]byte("prefix:"), tt.in)
			if string(got) != "prefix:"+tt.want || invalid != tt.wantInvalid {
				t.Errorf("AppendEscaped(%q) = %q, %d, want %q, %d", tt.in, got, invalid, "prefix:"+tt.want, tt.wantInvalid)
			}
		})
	}
}

// TestAppendStringEveryASCIIByte checks each single ASCII byte against encoding/json, apart
// from the characters encoding/json escapes for HTML.
func TestAppendStringEveryASCIIByte(t *testing.T) {
	for c := range 0x80 {
		in := string(rune(c))
		got, invalid := Append(nil, in)
		if invalid != 0 || !json.Valid(got) {
			t.Errorf("Append(%q) = %s, %d, want valid JSON and 0", in, got, invalid)
			continue
		}
		if decodeJSONString(t, got) != in {
			t.Errorf("Append(%q) = %s, does not decode to its input", in, got)
		}
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			if got[1] != '\\' {
				t.Errorf("Append(%q) = %s, want an escape", in, got)
			}
		default:
			if want := `"` + in + `"`; string(got) != want {
				t.Errorf("Append(%q) = %s, want %s", in, got, want)
			}
		}
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	long := strings.Repeat("log line with \"quotes\", a tab\t, é, 😀 and \xff; ", 20)
	buf := make([]byte, 0, 64<<10)
	if allocs := testing.AllocsPerRun(100, func() { buf, _ = Append(buf[:0], long) }); allocs != 0 {
		t.Errorf("Append allocates %v times per run into a pre-grown buffer, want 0", allocs)
	}
}

// checkEscaped compares AppendEscaped with escapeReference on s.
func checkEscaped(t *testing.T, s string) {
	t.Helper()
	got, gotInvalid := AppendEscaped([]byte("x"), s)
	want, wantInvalid := escapeReference([]byte("x"), s)
	if !bytes.Equal(got, want) || gotInvalid != wantInvalid {
		t.Fatalf("AppendEscaped(%q) = %q, %d, want %q, %d", s, got[1:], gotInvalid, want[1:], wantInvalid)
	}
}

// TestAppendEscapedMatchesReference checks AppendEscaped byte for byte against
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

// TestPlain checks Plain against its definition, printable ASCII without a quote or a
// backslash, on every piece of escapePieces put at each place of keys of 1 to 24 bytes.
func TestPlain(t *testing.T) {
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
		if got := Plain(base[:n]); !got {
			t.Fatalf("Plain(%q) = false, want true", base[:n])
		}
		for _, p := range escapePieces {
			for at := range n + 1 {
				k := base[:at] + p + base[at:n]
				if got, want := Plain(k), plain(k); got != want {
					t.Fatalf("Plain(%q) = %v, want %v", k, got, want)
				}
			}
		}
	}
}
