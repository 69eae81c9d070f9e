// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package jsonstr

import (
	"encoding/json"
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
