// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package serializer writes pdata logs, spans, span events, metrics and profiles as
// Elasticsearch documents in every mapping mode that has documents for them (metrics and
// profiles only in otel and ecs).
//
// The JSON is written by hand, straight from pdata into a caller-owned []byte: no intermediate
// document model, no maps, no reflection. The writer departs from encoding/json on purpose:
//
//   - Strings are written by internal/jsonstr, the exporter's one string escaper, whose package
//     comment says how: HTML characters are not escaped, and each byte of invalid UTF-8
//     becomes U+FFFD and is counted.
//   - Floats follow the ES6 number-to-string rule (shortest round-trip digits, exponent form only
//     outside [1e-6, 1e21)) and integral values get a forced ".0", so that Elasticsearch's
//     dynamic mapping picks a floating-point type. NaN and ±Inf are written as null.
//
// Content is repaired rather than refused, and each repair is reported (Repair): invalid UTF-8
// replaced, a negative span duration clamped, a map or slice nested too deep written as a JSON
// string. NaN and infinite metric values are skipped and counted (MetricsDocument.NonFinite);
// records and data points with a _noindex hint are left out before they get here.
// What no document of the mode can hold is rejected alone: it writes nothing, and the caller is
// told why:
//
//   - logs, spans and span events (Encoder.Rejection): in bodymap mode a log record whose body
//     is not a map (RejectBodyNotAMap); in bodymap mode a span or span event, and in none and
//     raw mode a span event as a document of its own, since those modes write events inside
//     the span (RejectUnsupported);
//   - metrics (AddMetric for the data points of a metric, MetricsDocument.Rejected for each
//     data point of a document): a metric type that is not known, a metric name that
//     Elasticsearch refuses as a field name where the mode writes it, a number without a value, histogram buckets that do not
//     match the bounds or bounds that do not increase, an exponential histogram scale out of
//     range, and in ecs mode a metric name that is a field the document already holds (Reject*);
//   - profiles (Encoder.Rejection, the whole profile): a reference out of its dictionary table,
//     no samples or a sample without a stack, sample values or line numbers out of range
//     (ValidateProfile); in ecs mode a profile that is not of on-CPU samples
//     (RejectUnsupported) or whose samples add up to more than maxECSEvents event documents
//     (RejectProfileTooLarge); a mode other than otel and ecs (RejectUnsupported).
package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// appendFloat appends f as a JSON number by the ES6 rule with a forced ".0" on integral
// values, or null when f is NaN or infinite.
func appendFloat(dst []byte, f float64) []byte {
	if out, ok := appendShortFloat(dst, f); ok {
		return out
	}
	return appendFloatStrconv(dst, f)
}

// appendFloatStrconv is appendFloat through strconv's shortest formatting, for any f.
func appendFloatStrconv(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as ES6 does.
		if n := len(dst); n-start >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
		return dst
	}
	if slices.Contains(dst[start:], '.') {
		return dst
	}
	return append(dst, '.', '0')
}

// exactPow10 holds the powers of ten that a float64 holds exactly, up to what appendShortFloat
// can use.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
}

// shortFloatMax bounds the scaled values appendShortFloat works with. Below it, the interval
// of decimals that read back as |f|, scaled by 10^k, is at most 10^k·ulp(|f|) < 2^49·2^-52 =
// 1/8 wide, so at most one integer c lies in it (reads back: c / 10^k == |f|).
const shortFloatMax = 1 << 49

// appendShortFloat appends f as appendFloat does when f is zero, or its shortest decimal form
// has at most 16 digits after the point, fits below shortFloatMax as an integer, and needs no
// exponent; otherwise it reports false. That form is the decimal c·10^-k with the least k that
// reads back as f: with fewer digits after the point none reads back, and at k only c does, so
// it is strconv's shortest form too. A decimal reads back when dividing c by 10^k gives |f|,
// since both are exact float64 values and the division rounds as parsing does.
func appendShortFloat(dst []byte, f float64) ([]byte, bool) {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...), true
		}
		return append(dst, "0.0"...), true
	}
	abs := math.Abs(f)
	if !(abs >= 1e-6 && abs < shortFloatMax) { // NaN too
		return dst, false
	}
	for k, pow := range &exactPow10 {
		scaled := abs * pow
		if scaled >= shortFloatMax {
			break
		}
		// scaled is within 2^-5 of |f|·10^k, which is within 1/16 of a c that reads back, so
		// rounding scaled (exactly: adding 1/2 to it does not round) finds c if there is one,
		// and the division is only worth it when c is that close.
		c := math.Floor(scaled + 0.5)
		if d := scaled - c; d > 0.125 || d < -0.125 || c/pow != abs {
			continue
		}
		return appendScaled(dst, uint64(c), k, f < 0), true
	}
	return dst, false
}

// appendScaled appends c·10^-k with k digits after the point, or c with ".0" when k is 0,
// with a minus sign when neg. c is below shortFloatMax and k at most len(exactPow10)-1.
func appendScaled(dst []byte, c uint64, k int, neg bool) []byte {
	var b [40]byte // sign, 16 digits of integer part, point, 16 of fraction
	i := len(b)
	if k == 0 {
		i -= 2
		b[i], b[i+1] = '.', '0'
	} else {
		for ; k > 0; k-- {
			i--
			b[i] = byte('0' + c%10)
			c /= 10
		}
		i--
		b[i] = '.'
	}
	for {
		i--
		b[i] = byte('0' + c%10)
		c /= 10
		if c == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return append(dst, b[i:]...)
}

// appendHex appends b as a quoted lower-case hex string.
func appendHex(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = hex.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendDateNanos appends a nanosecond Unix timestamp as the quoted string
// "<epoch ms>.<ns within the ms, six digits>", or "<epoch ms>.0" when the
// nanoseconds within the millisecond are zero. Elasticsearch's date_nanos type
// parses this form without loss.
func appendDateNanos(dst []byte, ts uint64) []byte {
	dst = append(dst, '"')
	dst = strconv.AppendUint(dst, ts/1e6, 10)
	rem := ts % 1e6
	if rem == 0 {
		return append(dst, '.', '0', '"')
	}
	a, b, c := rem/10000, rem/100%100, rem%100
	return append(dst, '.', digitPairs[2*a], digitPairs[2*a+1], digitPairs[2*b], digitPairs[2*b+1],
		digitPairs[2*c], digitPairs[2*c+1], '"')
}

// digitPairs holds "00" to "99", for writing two digits at a time.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// writer appends JSON to buf and counts the repairs it made. Keys are written by the
// callers as constant literals that carry their own comma, so the writer keeps no
// comma state.
type writer struct {
	buf []byte
	// invalidUTF8 counts the bytes of invalid UTF-8 replaced since the last reset.
	invalidUTF8 int
	// deepValues counts the maps and slices nested beyond maxDepth written as JSON strings since
	// the last reset.
	deepValues int
}

// set makes b, which the caller appended to w.buf, the buffer. When the append did not move
// the buffer, only its length is written: storing the whole slice would write its pointer,
// and while the garbage collector marks, every pointer written into the heap (a writer lives
// in an Encoder, which lives in a push state) goes through a write barrier. That is some thirty
// barriers per document, which cost about a tenth of the push path's CPU in a collector whose
// receivers keep the collector marking a good part of the time. The compiler writes only the
// length of a slice resliced into itself from 0.
//
// b is in w.buf's array exactly when its capacity is w.buf's: append reuses the array while
// the result fits, and a new array is always larger. Its length alone would not tell: a helper
// may shorten what it appended (appendFloat cleans up an exponent) after the array moved.
func (w *writer) set(b []byte) {
	if cap(b) == cap(w.buf) {
		w.buf = w.buf[:len(b)]
	} else {
		w.buf = b
	}
}

func (w *writer) raw(s string) { w.set(append(w.buf, s...)) }

func (w *writer) byte(c byte) { w.set(append(w.buf, c)) }

func (w *writer) bytes(b []byte) { w.set(append(w.buf, b...)) }

func (w *writer) str(s string) {
	b, invalid := jsonstr.Append(w.buf, s)
	w.set(b)
	w.invalidUTF8 += invalid
}

func (w *writer) int(i int64) { w.set(strconv.AppendInt(w.buf, i, 10)) }

func (w *writer) uint(u uint64) { w.set(strconv.AppendUint(w.buf, u, 10)) }

func (w *writer) float(f float64) { w.set(appendFloat(w.buf, f)) }

func (w *writer) bool(b bool) { w.set(strconv.AppendBool(w.buf, b)) }

func (w *writer) hex(b []byte) { w.set(appendHex(w.buf, b)) }

func (w *writer) dateNanos(ts uint64) { w.set(appendDateNanos(w.buf, ts)) }

// appendRFC3339Nano appends a Unix timestamp in nanoseconds as the quoted UTC string
// "2006-01-02T15:04:05.000000000Z", always with nine fractional digits, as the ecs, none and
// raw mapping modes write @timestamp. ns is signed, as pcommon.Timestamp.AsTime reads it, so
// the years run from 1677 to 2262 and always take four digits.
func appendRFC3339Nano(dst []byte, ns int64) []byte {
	secs, frac := ns/1e9, ns%1e9
	if frac < 0 {
		secs, frac = secs-1, frac+1e9
	}
	days, sod := secs/86400, secs%86400
	if sod < 0 {
		days, sod = days-1, sod+86400
	}
	y, m, d := civilDate(days)
	hh, mm, ss := sod/3600, sod/60%60, sod%60
	dst = append(dst, '"',
		digitPairs[2*(y/100)], digitPairs[2*(y/100)+1], digitPairs[2*(y%100)], digitPairs[2*(y%100)+1], '-',
		digitPairs[2*m], digitPairs[2*m+1], '-', digitPairs[2*d], digitPairs[2*d+1], 'T',
		digitPairs[2*hh], digitPairs[2*hh+1], ':', digitPairs[2*mm], digitPairs[2*mm+1], ':',
		digitPairs[2*ss], digitPairs[2*ss+1], '.')
	f := frac / 10 // eight digits as pairs, then the ninth
	dst = append(dst,
		digitPairs[2*(f/1e6)], digitPairs[2*(f/1e6)+1], digitPairs[2*(f/1e4%100)], digitPairs[2*(f/1e4%100)+1],
		digitPairs[2*(f/100%100)], digitPairs[2*(f/100%100)+1], digitPairs[2*(f%100)], digitPairs[2*(f%100)+1],
		byte('0'+frac%10), 'Z', '"')
	return dst
}

// civilDate returns the proleptic Gregorian year, month and day of a count of days since
// 1970-01-01. The count is shifted to start on 0000-03-01, so that the leap day ends a year,
// and split into 400-year eras of 146097 days.
func civilDate(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // day of the era, [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era, [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the year from March 1st, [0, 365]
	mp := (5*doy + 2) / 153                                // month from March, [0, 11]
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// rfc3339Nano writes a nanosecond timestamp as appendRFC3339Nano does.
func (w *writer) rfc3339Nano(ns int64) { w.set(appendRFC3339Nano(w.buf, ns)) }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// repairUTF8 returns s with each byte of invalid UTF-8 replaced by U+FFFD, as the writer
// writes it. It allocates, but only for strings that are not valid UTF-8.
func repairUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\ufffd")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
