// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// dateVerb is one step of a parsed date format: a verb byte such as 'Y', or 0 for literal text.
type dateVerb struct {
	verb    byte
	literal string
}

// supportedVerbs lists the strftime verbs appendDate implements, for error messages.
const supportedVerbs = "%Y %y %m %d %H %M %S %j %b %B %a %A %%"

// parseDateFormat splits a strftime pattern into literal text and verbs. It rejects verbs that
// appendDate does not implement and literal text that cannot be in an index name.
func parseDateFormat(format string) ([]dateVerb, error) {
	var verbs []dateVerb
	var literal strings.Builder
	flush := func() error {
		if literal.Len() == 0 {
			return nil
		}
		text := literal.String()
		literal.Reset()
		if err := checkLiteral(text); err != nil {
			return fmt.Errorf("invalid logstash_format date_format %q: literal text %q: %w", format, text, err)
		}
		verbs = append(verbs, dateVerb{literal: text})
		return nil
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			literal.WriteByte(format[i])
			continue
		}
		if i+1 == len(format) {
			return nil, fmt.Errorf("invalid logstash_format date_format %q: it ends with a lone %%", format)
		}
		i++
		switch v := format[i]; v {
		case '%':
			literal.WriteByte('%')
		case 'Y', 'y', 'm', 'd', 'H', 'M', 'S', 'j', 'b', 'B', 'a', 'A':
			if err := flush(); err != nil {
				return nil, err
			}
			verbs = append(verbs, dateVerb{verb: v})
		default:
			// Name the whole character, which may be more than one byte.
			_, size := utf8.DecodeRuneInString(format[i:])
			verb := format[i-1 : i+size]
			return nil, fmt.Errorf("invalid logstash_format date_format %q: unsupported verb %q (supported: %s)",
				format, verb, supportedVerbs)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return verbs, nil
}

// Month and weekday names, in lower case because index names must be.
var (
	monthNames = [...]string{
		"january", "february", "march", "april", "may", "june",
		"july", "august", "september", "october", "november", "december",
	}
	weekdayNames = [...]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
)

// appendDate appends t formatted by verbs. It does not allocate.
func appendDate(dst []byte, verbs []dateVerb, t time.Time) []byte {
	year, month, day := t.Date()
	hour, minute, second := t.Clock()
	for _, v := range verbs {
		switch v.verb {
		case 0:
			dst = append(dst, v.literal...)
		case 'Y':
			dst = appendPadded(dst, year, 4)
		case 'y':
			dst = appendPadded(dst, year%100, 2)
		case 'm':
			dst = appendPadded(dst, int(month), 2)
		case 'd':
			dst = appendPadded(dst, day, 2)
		case 'H':
			dst = appendPadded(dst, hour, 2)
		case 'M':
			dst = appendPadded(dst, minute, 2)
		case 'S':
			dst = appendPadded(dst, second, 2)
		case 'j':
			dst = appendPadded(dst, t.YearDay(), 3)
		case 'b':
			dst = append(dst, monthNames[month-1][:3]...)
		case 'B':
			dst = append(dst, monthNames[month-1]...)
		case 'a':
			dst = append(dst, weekdayNames[t.Weekday()][:3]...)
		case 'A':
			dst = append(dst, weekdayNames[t.Weekday()]...)
		}
	}
	return dst
}

// appendPadded appends the non-negative n in decimal, zero-padded to width digits.
func appendPadded(dst []byte, n, width int) []byte {
	var digits [20]byte
	i := len(digits)
	for n >= 10 || len(digits)-i < width-1 {
		i--
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	digits[i] = byte('0' + n)
	return append(dst, digits[i:]...)
}
