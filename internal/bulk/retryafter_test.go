// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Duration
	}{
		{name: "empty", in: "", want: 0},
		{name: "seconds", in: "7", want: 7 * time.Second},
		{name: "negative", in: "-3", want: 0},
		{name: "date", in: now.Add(30 * time.Second).Format(http.TimeFormat), want: 30 * time.Second},
		{name: "date in the past", in: now.Add(-time.Hour).Format(http.TimeFormat), want: 0},
		{name: "capped", in: "86400", want: maxRetryAfter},
		{name: "garbage", in: "soon", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, parseRetryAfter(tt.in, now))
		})
	}
}
