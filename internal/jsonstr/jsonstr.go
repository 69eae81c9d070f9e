// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package jsonstr writes Go strings as JSON strings: the one string escaper of the exporter,
// under the serializer's documents and the bulk request's action lines and dead-letter
// documents alike. It departs from encoding/json on purpose:
//
//   - HTML characters (<, >, &) and U+2028/U+2029 are not escaped: a bulk body is not HTML and
//     escaping them only makes documents larger.
//   - Each byte of invalid UTF-8 becomes U+FFFD, as encoding/json does, and is counted so that
//     the caller can report the repair; it is never an error.
//
// The scans read eight bytes at a time (Load64). The serializer's key comparisons and hashes
// read words the same way, with Load64, Ones and Highs from here, so that each has one home.
package jsonstr // import "github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"

import (
	"math/bits"
	"unicode/utf8"
)

// escapeASCII tells, for each ASCII byte, how it is written inside a JSON string:
// 0 means as itself; any other value is the character after the backslash of a short
// escape, or 'u' for the \u00XX form.
var escapeASCII = [utf8.RuneSelf]byte{
	'\b': 'b', // backspace
	'\t': 't', // tab
	'\n': 'n', // line feed
	'\f': 'f', // form feed
	'\r': 'r', // carriage return
	'"':  '"', // quotation mark
	'\\': '\\',
	// Other control characters, U+0000 to U+001F, are set in init.
}

func init() {
	for c := range 0x20 {
		if escapeASCII[c] == 0 {
			escapeASCII[c] = 'u'
		}
	}
}

// HexDigits are the lower-case hex digits, as \u00XX escapes and hex-encoded ids and bytes
// are written.
const HexDigits = "0123456789abcdef"

// Append appends s as a quoted JSON string. It returns the number of bytes of invalid UTF-8
// that were replaced by U+FFFD.
func Append(dst []byte, s string) ([]byte, int) {
	dst = append(dst, '"')
	dst, invalid := AppendEscaped(dst, s)
	return append(dst, '"'), invalid
}

// AppendEscaped appends the escaped contents of s without quotes. Runs of bytes that need no
// work are copied in one go. The scan looks at words of eight bytes, up to two a turn (the
// last fewer than eight bytes in the last word of s), and goes straight to the first byte of a
// word that needs work (workMask): an escape, or a run of multi-byte UTF-8 that is checked
// sequence by sequence without leaving the loop. Valid sequences are stepped over and copied
// with the run around them; each byte of an invalid one becomes U+FFFD.
func AppendEscaped(dst []byte, s string) ([]byte, int) {
	invalid := 0
	start := 0
	for i := 0; i < len(s); {
		switch {
		case i+8 <= len(s):
			m := workMask(Load64(s, i))
			if m == 0 {
				i += 8
				if i+8 > len(s) {
					continue
				}
				if m = workMask(Load64(s, i)); m == 0 {
					i += 8
					continue
				}
			}
			i += bits.TrailingZeros64(m) >> 3
		case len(s) >= 8:
			// Fewer than eight bytes are left: the last word of s, without the bytes before i,
			// which were looked at already.
			m := workMask(Load64(s, len(s)-8)) >> (8 * (8 - (len(s) - i)))
			if m == 0 {
				i = len(s)
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			e := escapeASCII[c]
			if e == 0 {
				// A short s, or a byte that workMask flags only through a borrow from a
				// byte before i.
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', HexDigits[c>>4], HexDigits[c&0xf])
			} else {
				dst = append(dst, '\\', e)
			}
			i++
			start = i
			continue
		}
		for i < len(s) && s[i] >= utf8.RuneSelf {
			// Two- and three-byte sequences whose second byte may be any continuation byte
			// (Latin and most other scripts, CJK), checked here; the rest by utf8Len.
			if c := s[i]; c >= 0xc2 && c < 0xe0 {
				if i+1 < len(s) && s[i+1]&0xc0 == 0x80 {
					i += 2
					continue
				}
			} else if c > 0xe0 && c < 0xf0 && c != 0xed {
				if i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
					i += 3
					continue
				}
			}
			if n := utf8Len(s, i); n > 0 {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			invalid++
			i++
			start = i
		}
	}
	return append(dst, s[start:]...), invalid
}

// utf8Len returns the length of the valid UTF-8 sequence of two to four bytes that starts at
// s[i], or 0 when the bytes there are not one: a continuation byte, an overlong form, a
// surrogate, a code point above U+10FFFF, or a sequence cut short. It accepts exactly what
// utf8.DecodeRuneInString decodes to more than one byte.
func utf8Len(s string, i int) int {
	c := s[i]
	switch {
	case c < 0xc2: // continuation bytes, and leads of overlong two-byte forms
		return 0
	case c < 0xe0:
		if i+1 < len(s) && s[i+1]&0xc0 == 0x80 {
			return 2
		}
	case c < 0xf0:
		if i+2 < len(s) {
			lo, hi := byte(0x80), byte(0xbf)
			switch c {
			case 0xe0:
				lo = 0xa0 // overlong below U+0800
			case 0xed:
				hi = 0x9f // surrogates U+D800 to U+DFFF
			}
			if b := s[i+1]; lo <= b && b <= hi && s[i+2]&0xc0 == 0x80 {
				return 3
			}
		}
	case c < 0xf5:
		if i+3 < len(s) {
			lo, hi := byte(0x80), byte(0xbf)
			switch c {
			case 0xf0:
				lo = 0x90 // overlong below U+10000
			case 0xf4:
				hi = 0x8f // above U+10FFFF
			}
			if b := s[i+1]; lo <= b && b <= hi && s[i+2]&0xc0 == 0x80 && s[i+3]&0xc0 == 0x80 {
				return 4
			}
		}
	}
	return 0
}

// Load64 reads the eight bytes of s at i as a little-endian word. The compiler turns the
// shifts into one load.
func Load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Ones and Highs are the words of the bytes 0x01 and 0x80, for testing the bytes of a word
// read with Load64 all at once.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// workMask returns a word with the high bit set in each byte of x that is below 0x20, a quote,
// a backslash, or 0x80 and above, or zero when there is none. For an ASCII byte b, b-0x20 has
// its high bit set when b < 0x20, and (b^'"')-1 when b is a quote; a byte of 0x80 and above
// is flagged by its own high bit. A subtraction borrows into the next byte only from a byte
// that is flagged itself, so the lowest flagged byte is always one that needs work; bytes
// above it may be flagged by a borrow alone.
func workMask(x uint64) uint64 {
	return ((x - Ones*0x20) | ((x ^ Ones*'"') - Ones) | ((x ^ Ones*'\\') - Ones) | x) & Highs
}

// Plain reports whether k can be written between quotes as it is: printable ASCII without
// a quote or a backslash. Such a string is valid UTF-8 too. A word with no byte flagged by
// workMask has no byte that needs work, so a string of eight bytes or more is checked a word
// at a time, its last word overlapping the one before.
func Plain(k string) bool {
	if len(k) < 8 {
		for i := range len(k) {
			if c := k[i]; c >= utf8.RuneSelf || escapeASCII[c] != 0 {
				return false
			}
		}
		return true
	}
	for i := 0; i+8 < len(k); i += 8 {
		if workMask(Load64(k, i)) != 0 {
			return false
		}
	}
	return workMask(Load64(k, len(k)-8)) == 0
}
