// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"net/http"
	"strconv"
	"time"
)

// maxRetryAfter caps the wait a server can ask for.
const maxRetryAfter = 5 * time.Minute

// parseRetryAfter returns the wait a Retry-After header asks for (in seconds, or an HTTP
// date), at most maxRetryAfter; 0 when there is none or it cannot be read.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}
