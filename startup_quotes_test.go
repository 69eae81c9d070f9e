// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// movingDoc is the page whose table quotes every start-up line about a difference from contrib.
const movingDoc = "docs/moving-from-contrib.md"

// quotedLine matches a line quoted in a Markdown table cell: a code span with double
// backticks, which may hold single ones.
var quotedLine = regexp.MustCompile("`` (.+?) ``")

// movingDocQuotes returns the start-up lines that docs/moving-from-contrib.md quotes: the code
// spans of the last cell of each row of a table whose last header starts with "Logged".
func movingDocQuotes(t *testing.T) []string {
	t.Helper()
	var quotes []string
	logged := false // in a table whose last column is the line logged
	forMarkdownLines(t, movingDoc, func(_ int, text string) {
		text = strings.TrimSpace(text)
		if !strings.HasPrefix(text, "|") {
			logged = false
			return
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		last := strings.TrimSpace(cells[len(cells)-1])
		switch {
		case strings.HasPrefix(last, "Logged"):
			logged = true
		case logged:
			for _, m := range quotedLine.FindAllStringSubmatch(text, -1) {
				quotes = append(quotes, m[1])
			}
		}
	})
	require.NotEmpty(t, quotes, "%s quotes no start-up line", movingDoc)
	return quotes
}

// Variable parts of a start-up line: a key or value in backticks (or several joined by "/"),
// and a number, with a unit or not.
var (
	lineKeys    = regexp.MustCompile("`[^`]*`(?:/`[^`]*`)*")
	lineNumbers = regexp.MustCompile(`\d+(?:\.\d+)?(?:ms|s|m|h)?`)
)

// normalizeStartupLine replaces the variable parts of a start-up line with placeholders.
func normalizeStartupLine(s string) string {
	s = strings.ReplaceAll(s, "…", "...")
	s = lineKeys.ReplaceAllString(s, "K")
	return lineNumbers.ReplaceAllString(s, "N")
}

// quotedLineMatches reports whether line is the line that quote shows: the same once keys in
// backticks and numbers are set aside, but for at most two other words (a mode's or an
// extension's name). A quote that starts with "..." is a part of a line, found anywhere in it.
func quotedLineMatches(line, quote string) bool {
	l, q := normalizeStartupLine(line), normalizeStartupLine(quote)
	if fragment, ok := strings.CutPrefix(q, "..."); ok {
		return strings.Contains(l, strings.TrimSuffix(fragment, "..."))
	}
	return tokenDistance(strings.Fields(l), strings.Fields(q)) <= 2
}

// tokenDistance is the Levenshtein distance between two sequences of words.
func tokenDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range a {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range b {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// quotedLineMatches takes a logged line for the quoted one when they differ only in keys in
// backticks, numbers and at most two other words, and finds a quote that starts with "..."
// anywhere in the line.
func TestQuotedLineMatches(t *testing.T) {
	const deprecatedPair = "`num_workers` (4) and its replacement `sending_queue::num_consumers` (8) are both set: `sending_queue::num_consumers` is used and `num_workers` is ignored, as in contrib; remove `num_workers`"
	for _, tt := range []struct {
		line, quote string
		want        bool
	}{
		{"`flush::interval` (5s) and its replacement `sending_queue::batch::flush_timeout` (2s) are both set: `sending_queue::batch::flush_timeout` is used and `flush::interval` is ignored, as in contrib; remove `flush::interval`", deprecatedPair, true},
		{"`mapping::mode` is raw and is ignored, as in contrib since v0.145", "`mapping::mode` is ecs and is ignored, as in contrib since v0.145", true},
		{"`auth::authenticator` (beatsauth/_agent-component/default) and `api_key` are both set", "`auth::authenticator` (bearertokenauth) and `user`/`password` are both set", true},
		{"x has no profile documents: profiles whose scope attribute y", "...has no profile documents: profiles whose scope attribute...", true},
		{
			"`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (mapped to sending_queue::batch::flush_timeout: 10s)",
			"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: `sending_queue::batch::sizer` is items, and `flush::bytes` counts bytes; remove `flush::bytes`)",
			false,
		},
		{"`timeout` is 0: bulk requests have no deadline, as in contrib", "`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`", false},
		{"`mapping::mode` is raw and is not ignored at all, unlike contrib", "`mapping::mode` is ecs and is ignored, as in contrib since v0.145", false},
	} {
		assert.Equal(t, tt.want, quotedLineMatches(tt.line, tt.quote), "%q against %q", tt.line, tt.quote)
	}
}
