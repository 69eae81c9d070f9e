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

// supportedVerbs lists the strftime verbs appendDate implements, for error messages: those of
// contrib's formatter (lestrrat-go/strftime v1.1.0) whose output can be part of an index name.
const supportedVerbs = "%A %a %B %b %C %d %F %H %h %I %j %M %m %p %S %U %u %V %W %w %Y %y %Z %z %%"

// unusableVerbs says, for each verb of contrib's formatter whose output cannot be part of an
// index name, why. Contrib accepts them, and then Elasticsearch rejects every document.
var unusableVerbs = map[byte]string{
	'c': `writes the date and time as "Mon Jan  2 15:04:05 2006", and an index name cannot contain spaces or ":"`,
	'D': `writes the date as 01/02/06, and an index name cannot contain "/"; use %m.%d.%y`,
	'x': `writes the date as 01/02/06, and an index name cannot contain "/"; use %m.%d.%y`,
	'e': `pads the day with a space (" 2"), and an index name cannot contain spaces; use %d`,
	'k': `pads the hour with a space (" 7"), and an index name cannot contain spaces; use %H`,
	'l': `pads the 12-hour hour with a space (" 7"), and an index name cannot contain spaces; use %I`,
	'v': `writes the date as " 2-Jan-2006", the day padded with a space, and an index name cannot contain spaces; use %d-%b-%Y`,
	'R': `writes the time as 15:04, and an index name cannot contain ":"; use %H.%M`,
	'T': `writes the time as 15:04:05, and an index name cannot contain ":"; use %H.%M.%S`,
	'X': `writes the time as 15:04:05, and an index name cannot contain ":"; use %H.%M.%S`,
	'r': `writes the time as 03:04:05 PM, and an index name cannot contain ":" or spaces; use %I.%M.%S%p`,
	'n': `writes a newline, which an index name cannot contain`,
	't': `writes a tab, which an index name cannot contain`,
}

// parseDateFormat splits a strftime pattern into literal text and verbs. It rejects the verbs
// whose output cannot be in an index name, verbs that contrib's formatter does not know, and
// literal text that cannot be in an index name.
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
		case 'A', 'a', 'B', 'b', 'C', 'd', 'F', 'H', 'h', 'I', 'j', 'M', 'm', 'p', 'S',
			'U', 'u', 'V', 'W', 'w', 'Y', 'y', 'Z', 'z':
			if err := flush(); err != nil {
				return nil, err
			}
			verbs = append(verbs, dateVerb{verb: v})
		default:
			if why, ok := unusableVerbs[v]; ok {
				return nil, fmt.Errorf("invalid logstash_format date_format %q: %%%c %s", format, v, why)
			}
			// Name the whole character, which may be more than one byte.
			_, size := utf8.DecodeRuneInString(format[i:])
			verb := format[i-1 : i+size]
			return nil, fmt.Errorf("invalid logstash_format date_format %q: unsupported verb %q, which contrib's strftime (lestrrat-go/strftime v1.1.0) does not know either (supported: %s)",
				format, verb, supportedVerbs)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return verbs, nil
}

// CheckDateFormat reports why format cannot be the logstash_format date format, or nil. The
// configuration calls it so that a bad format is refused when the configuration is loaded.
func CheckDateFormat(format string) error {
	_, err := parseDateFormat(format)
	return err
}

// Month and weekday names, in lower case because index names must be.
var (
	monthNames = [...]string{
		"january", "february", "march", "april", "may", "june",
		"july", "august", "september", "october", "november", "december",
	}
	weekdayNames = [...]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
)

// appendDate appends t formatted by verbs, as contrib's formatter writes it, lower-cased. It
// does not allocate.
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
		case 'C':
			dst = appendPadded(dst, year/100, 2)
		case 'm':
			dst = appendPadded(dst, int(month), 2)
		case 'd':
			dst = appendPadded(dst, day, 2)
		case 'F':
			dst = appendPadded(dst, year, 4)
			dst = append(dst, '-')
			dst = appendPadded(dst, int(month), 2)
			dst = append(dst, '-')
			dst = appendPadded(dst, day, 2)
		case 'H':
			dst = appendPadded(dst, hour, 2)
		case 'I':
			dst = appendPadded(dst, hour12(hour), 2)
		case 'p':
			if hour < 12 {
				dst = append(dst, "am"...)
			} else {
				dst = append(dst, "pm"...)
			}
		case 'M':
			dst = appendPadded(dst, minute, 2)
		case 'S':
			dst = appendPadded(dst, second, 2)
		case 'j':
			dst = appendPadded(dst, t.YearDay(), 3)
		case 'b', 'h':
			dst = append(dst, monthNames[month-1][:3]...)
		case 'B':
			dst = append(dst, monthNames[month-1]...)
		case 'a':
			dst = append(dst, weekdayNames[t.Weekday()][:3]...)
		case 'A':
			dst = append(dst, weekdayNames[t.Weekday()]...)
		case 'u':
			// ISO weekday: Monday is 1, Sunday 7.
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			dst = appendPadded(dst, wd, 1)
		case 'w':
			dst = appendPadded(dst, int(t.Weekday()), 1)
		case 'U':
			dst = appendPadded(dst, weekOfYear(t, time.Sunday), 2)
		case 'W':
			dst = appendPadded(dst, weekOfYear(t, time.Monday), 2)
		case 'V':
			_, week := t.ISOWeek()
			dst = appendPadded(dst, week, 2)
		case 'Z':
			name, _ := t.Zone()
			for i := range len(name) {
				c := name[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				dst = append(dst, c)
			}
		case 'z':
			_, offset := t.Zone()
			sign := byte('+')
			if offset < 0 {
				sign, offset = '-', -offset
			}
			dst = append(dst, sign)
			dst = appendPadded(dst, offset/3600, 2)
			dst = appendPadded(dst, offset%3600/60, 2)
		}
	}
	return dst
}

// hour12 returns the hour of the 12-hour clock, 1 to 12, of hour (0 to 23).
func hour12(hour int) int {
	if hour %= 12; hour == 0 {
		return 12
	}
	return hour
}

// weekOfYear returns the week of the year of t, 00 to 53, for weeks that start on first
// (Sunday for %U, Monday for %W): the days before the first such day of the year are in week 0.
func weekOfYear(t time.Time, first time.Weekday) int {
	// Days since the start of t's week.
	since := (int(t.Weekday()) - int(first) + 7) % 7
	// t.YearDay()-1-since is the day of the year (from 0) of the week's first day; the week
	// is the number of week starts up to that day, which is 0 when it falls in the year before.
	return (t.YearDay() - 1 - since + 7) / 7
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
