// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendDateMatchesTimeFormat compares every verb with the standard library's formatting
// over several years of times, leap days included: the verbs that contrib's formatter
// (lestrrat-go/strftime v1.1.0) implements with a time.Format layout are compared with that
// layout, lower-cased.
func TestAppendDateMatchesTimeFormat(t *testing.T) {
	verbs, err := parseDateFormat("%Y.%y.%m.%d.%H.%M.%S.%j.%b.%B.%a.%A.%F.%I.%p.%h.%V.%Z.%z.%C")
	require.NoError(t, err)
	start := time.Date(1999, 12, 25, 0, 0, 0, 0, time.UTC)
	end := time.Date(2005, 3, 1, 0, 0, 0, 0, time.UTC)
	for tm := start; tm.Before(end); tm = tm.Add(37*time.Hour + 13*time.Minute + 7*time.Second) {
		_, week := tm.ISOWeek()
		want := strings.ToLower(tm.Format("2006.06.01.02.15.04.05.")) +
			fmt.Sprintf("%03d.", tm.YearDay()) +
			strings.ToLower(tm.Format("Jan.January.Mon.Monday.2006-01-02.03.PM.Jan.")) +
			fmt.Sprintf("%02d.utc.+0000.%02d", week, tm.Year()/100)
		got := string(appendDate(nil, verbs, tm))
		if !assert.Equal(t, want, got, "appendDate(%s)", tm) {
			return
		}
	}
}

// TestAppendDateWeekVerbs checks the week and weekday verbs against their C definitions,
// counted day by day from the start of each year: %U and %W count the Sundays and the Mondays
// seen so far (the days before the first one are in week 00), %u is 1 (Monday) to 7 (Sunday)
// and %w 0 (Sunday) to 6.
func TestAppendDateWeekVerbs(t *testing.T) {
	verbs, err := parseDateFormat("%U.%W.%u.%w")
	require.NoError(t, err)
	for year := 2019; year <= 2029; year++ {
		sundays, mondays := 0, 0
		for tm := time.Date(year, 1, 1, 23, 0, 0, 0, time.UTC); tm.Year() == year; tm = tm.AddDate(0, 0, 1) {
			switch tm.Weekday() {
			case time.Sunday:
				sundays++
			case time.Monday:
				mondays++
			}
			u := int(tm.Weekday())
			if u == 0 {
				u = 7
			}
			want := fmt.Sprintf("%02d.%02d.%d.%d", sundays, mondays, u, tm.Weekday())
			if got := string(appendDate(nil, verbs, tm)); !assert.Equal(t, want, got, "appendDate(%s)", tm) {
				return
			}
		}
	}
}

// TestAppendDateContribValues pins outputs of contrib's formatter for a few dates, upper case
// lowered: the same date format puts documents into the same index as contrib.
func TestAppendDateContribValues(t *testing.T) {
	tests := []struct {
		format string
		tm     time.Time
		want   string
	}{
		// 2023-01-01 is a Sunday: week 01 counted from Sundays, 00 from Mondays, ISO week 52.
		{"%Y.%U.%W.%V", time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), "2023.01.00.52"},
		// 2024-01-01 is a Monday.
		{"%Y.%U.%W.%V.%u.%w", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "2024.00.01.01.1.1"},
		{"%Y.%U.%W.%V.%u.%w", time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), "2024.52.53.01.2.2"},
		{"%I%p", time.Date(2024, 5, 6, 0, 30, 0, 0, time.UTC), "12am"},
		{"%I%p", time.Date(2024, 5, 6, 12, 30, 0, 0, time.UTC), "12pm"},
		{"%I%p", time.Date(2024, 5, 6, 13, 30, 0, 0, time.UTC), "01pm"},
		{"%C.%y", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), "20.24"},
		{"%F", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), "2024-05-06"},
		{"%Z%z", time.Date(2024, 5, 6, 0, 0, 0, 0, time.FixedZone("CEST", 2*3600+30*60)), "cest+0230"},
		{"%z", time.Date(2024, 5, 6, 0, 0, 0, 0, time.FixedZone("", -(3*3600+15*60))), "-0315"},
	}
	for _, tt := range tests {
		t.Run(tt.format+" "+tt.tm.String(), func(t *testing.T) {
			verbs, err := parseDateFormat(tt.format)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(appendDate(nil, verbs, tt.tm)))
		})
	}
}

// TestParseDateFormatRefusesUnusableVerbs checks that every verb of contrib's formatter whose
// output cannot be part of an index name is refused, with the reason, and so is a verb that
// contrib's formatter does not know.
func TestParseDateFormatRefusesUnusableVerbs(t *testing.T) {
	tests := []struct {
		verb string
		want string
	}{
		{"%c", `%c writes the date and time as "Mon Jan  2 15:04:05 2006", and an index name cannot contain spaces or ":"`},
		{"%D", `%D writes the date as 01/02/06, and an index name cannot contain "/"`},
		{"%x", `%x writes the date as 01/02/06, and an index name cannot contain "/"`},
		{"%e", `%e pads the day with a space (" 2"), and an index name cannot contain spaces; use %d`},
		{"%k", `%k pads the hour with a space`},
		{"%l", `%l pads the 12-hour hour with a space`},
		{"%v", `%v writes the date as " 2-Jan-2006"`},
		{"%R", `%R writes the time as 15:04, and an index name cannot contain ":"`},
		{"%T", `%T writes the time as 15:04:05, and an index name cannot contain ":"`},
		{"%X", `%X writes the time as 15:04:05, and an index name cannot contain ":"`},
		{"%r", `%r writes the time as 03:04:05 PM, and an index name cannot contain ":" or spaces`},
		{"%n", `%n writes a newline`},
		{"%t", `%t writes a tab`},
		{"%G", `unsupported verb "%G", which contrib's strftime (lestrrat-go/strftime v1.1.0) does not know either`},
		{"%Q", `unsupported verb "%Q"`},
		{"%ä", `unsupported verb "%ä"`},
	}
	for _, tt := range tests {
		t.Run(tt.verb, func(t *testing.T) {
			format := "%Y.%m." + tt.verb
			_, err := parseDateFormat(format)
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, fmt.Sprintf("invalid logstash_format date_format %q: ", format))
			assert.Equal(t, err, CheckDateFormat(format))
		})
	}
	// Every verb of contrib's formatter is either supported or refused with a reason.
	for _, v := range []byte("AaBbCcDdeFHhIjklMmnpRrSTtUuVvWwXxYyZz%") {
		_, unusable := unusableVerbs[v]
		_, err := parseDateFormat("%" + string(v))
		assert.Equal(t, unusable, err != nil, "%%%c", v)
	}
}

func TestAppendPadded(t *testing.T) {
	tests := []struct {
		n, width int
		want     string
	}{
		{n: 0, width: 2, want: "00"},
		{n: 7, width: 2, want: "07"},
		{n: 12, width: 2, want: "12"},
		{n: 5, width: 3, want: "005"},
		{n: 366, width: 3, want: "366"},
		{n: 99, width: 4, want: "0099"},
		{n: 12345, width: 4, want: "12345"},
		{n: 3, width: 1, want: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, string(appendPadded(nil, tt.n, tt.width)), "appendPadded(%d, %d)", tt.n, tt.width)
		})
	}
}

func TestParseDateFormat(t *testing.T) {
	tests := []struct {
		name   string
		format string
		want   []dateVerb
	}{
		{name: "default", format: DefaultDateFormat, want: []dateVerb{{verb: 'Y'}, {literal: "."}, {verb: 'm'}, {literal: "."}, {verb: 'd'}}},
		{name: "literal only", format: "x", want: []dateVerb{{literal: "x"}}},
		{name: "percent joins the literal", format: "a%%b%Y", want: []dateVerb{{literal: "a%b"}, {verb: 'Y'}}},
		{name: "empty", format: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDateFormat(tt.format)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
