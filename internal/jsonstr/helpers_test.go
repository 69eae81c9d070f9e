// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package jsonstr

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"
)

func mustMarshal(t testing.TB, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", s, err)
	}
	return b
}

func decodeJSONString(t testing.TB, b []byte) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("json.Unmarshal(%q): %v", b, err)
	}
	return s
}

// countInvalidBytes counts the bytes of s that are not part of a valid UTF-8 sequence.
func countInvalidBytes(s []byte) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			n++
		}
		s = s[size:]
	}
	return n
}

// stringTests is shared by TestAppendString and the seeds of FuzzAppendString.
var stringTests = []struct {
	name        string
	in          string
	want        string // the quoted output
	wantInvalid int
}{
	{name: "empty", in: "", want: `""`},
	{name: "ascii", in: "hello world", want: `"hello world"`},
	{name: "quote", in: `say "hi"`, want: `"say \"hi\""`},
	{name: "backslash", in: `C:\path`, want: `"C:\\path"`},
	{name: "slash not escaped", in: "a/b", want: `"a/b"`},
	{name: "backspace", in: "a\bb", want: `"a\bb"`},
	{name: "form feed", in: "a\fb", want: `"a\fb"`},
	{name: "newline", in: "a\nb", want: `"a\nb"`},
	{name: "carriage return", in: "a\rb", want: `"a\rb"`},
	{name: "tab", in: "a\tb", want: `"a\tb"`},
	{name: "NUL", in: "a\x00b", want: `"a\u0000b"`},
	{name: "SOH", in: "\x01", want: `"\u0001"`},
	{name: "vertical tab", in: "\x0b", want: `"\u000b"`},
	{name: "escape char", in: "\x1b[0m", want: `"\u001b[0m"`},
	{name: "unit separator", in: "\x1f", want: `"\u001f"`},
	{name: "space is the first plain byte", in: " ", want: `" "`},
	{name: "DEL unescaped", in: "\x7f", want: "\"\x7f\""},
	{name: "HTML not escaped", in: "<a href=\"x\">&amp;</a>", want: `"<a href=\"x\">&amp;</a>"`},
	{name: "U+2028 and U+2029 not escaped", in: "a\u2028b\u2029c", want: "\"a\u2028b\u2029c\""},
	{name: "two-byte", in: "héllo", want: `"héllo"`},
	{name: "three-byte", in: "日本語", want: `"日本語"`},
	{name: "astral plane", in: "a😀b𝄞", want: `"a😀b𝄞"`},
	{name: "max rune", in: "\U0010ffff", want: "\"\U0010ffff\""},
	{name: "valid U+FFFD is not counted", in: "\ufffd", want: "\"\ufffd\""},
	{name: "all short escapes", in: "\"\\\b\f\n\r\t", want: `"\"\\\b\f\n\r\t"`},
	{name: "escapes at both ends", in: "\nmiddle\n", want: `"\nmiddle\n"`},

	// Invalid UTF-8: one U+FFFD per bad byte, as encoding/json writes.
	{name: "lone continuation byte", in: "a\x80b", want: "\"a\ufffdb\"", wantInvalid: 1},
	{name: "truncated two-byte", in: "a\xc3", want: "\"a\ufffd\"", wantInvalid: 1},
	{name: "truncated three-byte", in: "\xe2\x82x", want: "\"\ufffd\ufffdx\"", wantInvalid: 2},
	{name: "truncated four-byte", in: "\xf0\x9f\x98", want: "\"\ufffd\ufffd\ufffd\"", wantInvalid: 3},
	{name: "overlong slash", in: "\xc0\xaf", want: "\"\ufffd\ufffd\"", wantInvalid: 2},
	{name: "overlong NUL", in: "\xe0\x80\x80", want: "\"\ufffd\ufffd\ufffd\"", wantInvalid: 3},
	{name: "high surrogate in UTF-8", in: "\xed\xa0\x80", want: "\"\ufffd\ufffd\ufffd\"", wantInvalid: 3},
	{name: "low surrogate in UTF-8", in: "\xed\xbf\xbf", want: "\"\ufffd\ufffd\ufffd\"", wantInvalid: 3},
	{name: "above U+10FFFF", in: "\xf4\x90\x80\x80", want: "\"\ufffd\ufffd\ufffd\ufffd\"", wantInvalid: 4},
	{name: "0xff", in: "\xff", want: "\"\ufffd\"", wantInvalid: 1},
	{name: "0xfe 0xff", in: "\xfe\xff", want: "\"\ufffd\ufffd\"", wantInvalid: 2},
	{name: "invalid then escape", in: "\xff\n\"", want: "\"\ufffd\\n\\\"\"", wantInvalid: 1},
	{name: "invalid between valid", in: "é\x80😀", want: "\"é\ufffd😀\"", wantInvalid: 1},
}

// escapeReference is AppendEscaped written plainly, one rune at a time through
// utf8.DecodeRuneInString, with the escapes spelled out: the oracle that AppendEscaped must
// match byte for byte.
func escapeReference(dst []byte, s string) ([]byte, int) {
	invalid := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, "\ufffd"...)
			invalid++
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst, invalid
}

// escapePieces are the pieces that TestAppendEscapedMatchesReference joins into strings: bytes
// that need an escape, the edges of the ranges that workMask and utf8Len tell apart, valid
// sequences of every length, and invalid ones of every kind.
var escapePieces = []string{
	"a", "z", " ", "~", "\x7f", "\x00", "\x1f", "\x20", "\x21", "\"", "#", "\\", "[", "]", "\n", "\t", "\r", "\b", "\f",
	"é", "ß", "ÿ", "\u0080", "\u07ff", "\u0800", "日", "€", "\ud7ff", "\ue000", "\ufffd", "\uffff",
	"😀", "\U00010000", "\U0010ffff",
	"\x80", "\xbf", "\xc0", "\xc1", "\xc2", "\xdf", "\xe0", "\xef", "\xf0", "\xf4", "\xf5", "\xff",
	"\xc0\xaf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
	"\xe2\x82", "\xf0\x9f\x98", "\xf0\x9f", "\xe6\x97\xa5\xe6", "ab\xc3", "\xc3(", "\xe2(\xa1", "\xf0(\x8c\xbc",
}
