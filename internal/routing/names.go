// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"errors"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
)

// ErrorTypeInvalidIndexName is the error.type of records that cannot be routed for any reason
// but the confinement rules' (ErrorTypeTargetNotAllowed): an InvalidIndexNameError above all.
const ErrorTypeInvalidIndexName = "invalid_index_name"

// InvalidIndexNameError reports a name that Elasticsearch would refuse as an index name. The
// documents routed to it must be rejected (and counted) instead of sent.
type InvalidIndexNameError struct {
	// Name is the offending name, verbatim.
	Name string
	// Source says where the name came from, e.g. "attribute elasticsearch.index".
	Source string
	// Reason says which rule the name breaks.
	Reason string
}

func (e *InvalidIndexNameError) Error() string {
	return "invalid index name " + strconv.Quote(e.Name) + " from " + e.Source + ": " + e.Reason
}

// Reasons an index name is refused, after Elasticsearch's own validation of index names.
const (
	reasonEmpty       = "must not be empty"
	reasonTooLong     = "must not be longer than 255 bytes"
	reasonDots        = `must not be "." or ".."`
	reasonStart       = `must not start with "-", "_" or "+"`
	reasonUpper       = "must be lower case"
	reasonInvalidUTF8 = "must be valid UTF-8"
)

// invalidIndexChars are the ASCII characters Elasticsearch refuses anywhere in an index name.
const invalidIndexChars = `\/*?"<>|,#: `

// indexNameProblem returns why Elasticsearch would refuse name as an index name, or "".
func indexNameProblem(name string) string {
	return indexNameProblemBytes([]byte(name))
}

// indexNameProblemBytes is indexNameProblem for a name being built; it does not allocate unless
// the name is refused.
func indexNameProblemBytes(name []byte) string {
	switch {
	case len(name) == 0:
		return reasonEmpty
	case len(name) > maxIndexBytes:
		return reasonTooLong
	case string(name) == "." || string(name) == "..":
		return reasonDots
	case name[0] == '-' || name[0] == '_' || name[0] == '+':
		return reasonStart
	}
	return charsProblem(name)
}

// charsProblem returns why one of the characters of s cannot be in an index name, or "".
func charsProblem(s []byte) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case isInvalidIndexChar(c):
				return "must not contain " + strconv.QuoteRune(rune(c))
			case 'A' <= c && c <= 'Z':
				return reasonUpper
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return reasonInvalidUTF8
		case unicode.ToLower(r) != r:
			return reasonUpper
		}
		i += size
	}
	return ""
}

func isInvalidIndexChar(c byte) bool {
	return c < utf8.RuneSelf && invalidIndexChar[c]
}

// invalidIndexChar[c] tells whether the ASCII byte c is in invalidIndexChars.
var invalidIndexChar = func() (t [utf8.RuneSelf]bool) {
	for i := range len(invalidIndexChars) {
		t[invalidIndexChars[i]] = true
	}
	return t
}()

// checkLiteral rejects text that is appended to index names as it is (the logstash_format
// prefix separator and the literal parts of its date format) when it cannot be in an index name.
func checkLiteral(s string) error {
	if reason := charsProblem([]byte(s)); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// sanitizedASCII[0][c] is what the ASCII byte c becomes in a namespace, sanitizedASCII[1][c] in
// a dataset: upper case is lowered, characters Elasticsearch refuses become '_', and so does '-'
// in a dataset.
var sanitizedASCII = func() (t [2][utf8.RuneSelf]byte) {
	for c := range byte(utf8.RuneSelf) {
		out := c
		switch {
		case 'A' <= c && c <= 'Z':
			out = c + ('a' - 'A')
		case invalidIndexChar[c]:
			out = '_'
		}
		t[0][c] = out
		t[1][c] = out
	}
	t[1]['-'] = '_'
	return t
}()

// sanitizeASCII maps the ASCII byte c of a dataset (replaceDash) or namespace to what
// Elasticsearch accepts.
func sanitizeASCII(c byte, replaceDash bool) byte {
	if replaceDash {
		return sanitizedASCII[1][c&(utf8.RuneSelf-1)]
	}
	return sanitizedASCII[0][c&(utf8.RuneSelf-1)]
}

// appendName appends s sanitized for a dataset (replaceDash) or a namespace: lower-cased with
// unicode.ToLower, each reserved character and each byte of invalid UTF-8 replaced with '_', and
// cut to at most limit bytes at a character boundary.
func appendName(dst []byte, s string, replaceDash bool, limit int) []byte {
	end := len(dst) + limit
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if len(dst) == end {
				break
			}
			dst = append(dst, sanitizeASCII(c, replaceDash))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			r = '_'
		} else {
			r = unicode.ToLower(r)
		}
		if len(dst)+utf8.RuneLen(r) > end {
			break
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// appendSanitizedValue appends v, converted as by pvalue.AsString, sanitized by appendName.
func appendSanitizedValue(dst []byte, v pcommon.Value, replaceDash bool, limit int) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return appendName(dst, v.Str(), replaceDash, limit)
	case pcommon.ValueTypeEmpty:
		return dst
	case pcommon.ValueTypeInt, pcommon.ValueTypeBool, pcommon.ValueTypeDouble:
		// These convert to ASCII, which is sanitized in place, byte for byte.
		start := len(dst)
		dst = appendAsString(dst, v)
		for i := start; i < len(dst); i++ {
			dst[i] = sanitizeASCII(dst[i], replaceDash)
		}
		return dst[:min(len(dst), start+limit)]
	default:
		return appendName(dst, pvalue.AsString(v), replaceDash, limit)
	}
}

// appendAsString appends v as pvalue.AsString returns it (pdata's Value.AsString, but for
// values nested too deep), without allocating for strings, integers, booleans and doubles.
func appendAsString(dst []byte, v pcommon.Value) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return append(dst, v.Str()...)
	case pcommon.ValueTypeInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case pcommon.ValueTypeBool:
		return strconv.AppendBool(dst, v.Bool())
	case pcommon.ValueTypeDouble:
		return appendDouble(dst, v.Double())
	case pcommon.ValueTypeEmpty:
		return dst
	default:
		return append(dst, pvalue.AsString(v)...)
	}
}

// appendDouble appends f in the form Value.AsString gives a double: the ES6 number-to-string
// rule (shortest round-trip digits, exponent form only outside [1e-6, 1e21), a one-digit
// negative exponent not zero-padded), and NaN, Infinity or -Infinity.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst
}
