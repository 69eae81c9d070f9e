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
// over several years of times, leap days included.
func TestAppendDateMatchesTimeFormat(t *testing.T) {
	verbs, err := parseDateFormat("%Y.%y.%m.%d.%H.%M.%S.%j.%b.%B.%a.%A")
	require.NoError(t, err)
	start := time.Date(1999, 12, 25, 0, 0, 0, 0, time.UTC)
	end := time.Date(2005, 3, 1, 0, 0, 0, 0, time.UTC)
	for tm := start; tm.Before(end); tm = tm.Add(37*time.Hour + 13*time.Minute + 7*time.Second) {
		want := strings.ToLower(tm.Format("2006.06.01.02.15.04.05.")) +
			fmt.Sprintf("%03d.", tm.YearDay()) +
			strings.ToLower(tm.Format("Jan.January.Mon.Monday"))
		got := string(appendDate(nil, verbs, tm))
		if !assert.Equal(t, want, got, "appendDate(%s)", tm) {
			return
		}
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
