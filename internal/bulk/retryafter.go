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

// retryAfterKey carries a *retryAfter in a bulk request's context, so that RetryAfterTransport
// can hand the Retry-After header back to the flush that sent the request: docappender's flush
// error carries the status and body, not the headers.
type retryAfterKey struct{}

type retryAfter struct{ wait time.Duration }

// RetryAfterTransport wraps a transport and records the Retry-After header of 429 and 503
// responses (in seconds, or an HTTP date) for the Indexer's backoff.
type RetryAfterTransport struct {
	Next http.RoundTripper
}

// RoundTrip sends req with the wrapped transport and records Retry-After.
func (t RetryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.Next.RoundTrip(req)
	if err != nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return resp, err
	}
	if ra, ok := req.Context().Value(retryAfterKey{}).(*retryAfter); ok {
		ra.wait = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, nil
}

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
