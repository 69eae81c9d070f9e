// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wait before each retry doubles from initial_interval up to max_interval; unset
// intervals mean 100ms and 1m.
func TestBackoffSchedule(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name             string
		initial, maximum time.Duration
		want             []time.Duration // the waits before retries 1, 2, ...
	}{
		{
			name: "defaults", want: []time.Duration{
				100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms,
				25600 * ms, 51200 * ms, time.Minute, time.Minute, time.Minute,
			},
		},
		{name: "capped", initial: 10 * ms, maximum: 50 * ms, want: []time.Duration{10 * ms, 20 * ms, 40 * ms, 50 * ms, 50 * ms}},
		{name: "cap reached exactly", initial: 25 * ms, maximum: 100 * ms, want: []time.Duration{25 * ms, 50 * ms, 100 * ms, 100 * ms}},
		{name: "initial equals max", initial: time.Second, maximum: time.Second, want: []time.Duration{time.Second, time.Second}},
		{name: "max only", maximum: 300 * ms, want: []time.Duration{100 * ms, 200 * ms, 300 * ms, 300 * ms}},
		{name: "initial only", initial: 20 * time.Second, want: []time.Duration{20 * time.Second, 40 * time.Second, time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RetryConfig{InitialInterval: tt.initial, MaxInterval: tt.maximum}
			for attempt, want := range tt.want {
				assert.Equal(t, want, r.interval(attempt), "wait before retry %d", attempt+1)
			}
			assert.Equal(t, tt.want[len(tt.want)-1], r.interval(1000), "a long outage stays at the cap")
		})
	}
}

// The jitter spreads each wait over the upper half of its interval, both ends included.
func TestBackoffJitter(t *testing.T) {
	ix, err := New(Config{Client: okClient(`{}`), Retry: RetryConfig{InitialInterval: 8 * time.Nanosecond, MaxInterval: 64 * time.Nanosecond}})
	require.NoError(t, err)
	for attempt, interval := range []time.Duration{8, 16, 32, 64, 64} {
		seen := map[time.Duration]bool{}
		for range 2000 {
			d := ix.backoff(attempt)
			require.GreaterOrEqual(t, d, interval/2, "attempt %d", attempt)
			require.LessOrEqual(t, d, interval, "attempt %d", attempt)
			seen[d] = true
		}
		assert.Len(t, seen, int(interval/2)+1, "attempt %d: every wait between %s and %s", attempt, interval/2, interval)
	}
	assert.Equal(t, time.Duration(0), jitter(0))
	assert.Equal(t, time.Duration(0), jitter(1), "half of 1ns is 0")
}

// Retries stop once a push has made max_retries of them (-1: never), at once when disabled, and
// after Stop.
func TestCanRetry(t *testing.T) {
	tests := []struct {
		name      string
		retry     RetryConfig
		stopped   bool
		retries   int // the retries of a push after which canRetry no longer holds
		unlimited bool
	}{
		{name: "disabled", retry: RetryConfig{Enabled: false, MaxRetries: 5}},
		{name: "max_retries 0", retry: RetryConfig{Enabled: true, MaxRetries: 0}},
		{name: "max_retries 1", retry: RetryConfig{Enabled: true, MaxRetries: 1}, retries: 1},
		{name: "max_retries 3", retry: RetryConfig{Enabled: true, MaxRetries: 3}, retries: 3},
		{name: "max_retries -1", retry: RetryConfig{Enabled: true, MaxRetries: -1}, unlimited: true},
		{name: "stopped", retry: RetryConfig{Enabled: true, MaxRetries: -1}, stopped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := New(Config{Client: okClient(`{}`), Retry: tt.retry})
			require.NoError(t, err)
			if tt.stopped {
				ix.Stop()
			}
			for retries := range 10 {
				want := tt.unlimited || retries < tt.retries
				assert.Equal(t, want, ix.canRetry(retries), "after %d retries", retries)
			}
			if tt.unlimited {
				assert.True(t, ix.canRetry(1<<30))
			}
		})
	}
}

// Which whole requests are retried: the statuses of retry_on_status, network failures and
// timeouts, and 401/403 while the grace period lasts; not an unverifiable certificate nor the
// push's own cancellation.
func TestRetryableRequest(t *testing.T) {
	certErr := fmt.Errorf("flush: %w", &tls.CertificateVerificationError{Err: errors.New("unknown authority")})
	tests := []struct {
		name   string
		status int
		err    error
		grace  time.Duration
		listed []int // added to retry_on_status
		want   bool
	}{
		{name: "429", status: http.StatusTooManyRequests, want: true},
		{name: "502", status: http.StatusBadGateway, want: true},
		{name: "503", status: http.StatusServiceUnavailable, want: true},
		{name: "504", status: http.StatusGatewayTimeout, want: true},
		{name: "500 not listed", status: http.StatusInternalServerError},
		{name: "400", status: http.StatusBadRequest},
		{name: "302", status: http.StatusFound},
		{name: "413 (split, not retried)", status: http.StatusRequestEntityTooLarge},
		{name: "401 without grace", status: http.StatusUnauthorized},
		{name: "403 without grace", status: http.StatusForbidden},
		{name: "401 within grace", status: http.StatusUnauthorized, grace: time.Minute, want: true},
		{name: "403 within grace", status: http.StatusForbidden, grace: time.Minute, want: true},
		{name: "401 listed, without grace", status: http.StatusUnauthorized, listed: []int{401}, want: true},
		{name: "403 listed, without grace", status: http.StatusForbidden, listed: []int{403}, want: true},
		{name: "403 with 401 listed, without grace", status: http.StatusForbidden, listed: []int{401}},
		{name: "network error", err: errors.New("connection refused"), want: true},
		{name: "request timeout", err: fmt.Errorf("flush: %w", context.DeadlineExceeded), want: true},
		{name: "canceled", err: fmt.Errorf("flush: %w", context.Canceled)},
		{name: "certificate", err: certErr},
		{name: "TLS client certificate required", err: fmt.Errorf("flush: %w", tls.AlertError(116))},
		{name: "TLS plain HTTP port", err: fmt.Errorf("flush: %w", tls.RecordHeaderError{Msg: "tls: first record does not look like a TLS handshake"})},
		{name: "TLS internal error alert", err: fmt.Errorf("flush: %w", tls.AlertError(80)), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := New(Config{Client: okClient(`{}`), Retry: RetryConfig{
				Enabled: true, RetryOnStatus: append([]int{429, 502, 503, 504}, tt.listed...), AuthGracePeriod: tt.grace,
			}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, ix.retryableRequest(tt.status, tt.err))
		})
	}
}

// Which single documents are retried: with retry_on_document_status unset, those of
// retry_on_status and any 5xx; with it set, only its statuses. 401 and 403 are final unless
// listed.
func TestRetryableDocument(t *testing.T) {
	requestStatuses := []int{429, 502, 503, 504}
	tests := []struct {
		name     string
		document []int
		request  []int // added to retry_on_status
		status   int
		want     bool
	}{
		{name: "unset: 429 from retry_on_status", status: 429, want: true},
		{name: "unset: 503 from retry_on_status", status: 503, want: true},
		{name: "unset: 500, any 5xx", status: 500, want: true},
		{name: "unset: 507, any 5xx", status: 507, want: true},
		{name: "unset: 400", status: 400},
		{name: "unset: 401", status: 401},
		{name: "unset: 403", status: 403},
		{name: "unset: 404", status: 404},
		{name: "unset: 409", status: 409},
		{name: "unset: 401 listed in retry_on_status", request: []int{401}, status: 401, want: true},
		{name: "set: 403 listed", document: []int{403}, status: 403, want: true},
		{name: "set: listed", document: []int{503}, status: 503, want: true},
		{name: "set: 429 of retry_on_status no longer", document: []int{503}, status: 429},
		{name: "set: other 5xx no longer", document: []int{503}, status: 500},
		{name: "set: a 4xx", document: []int{404}, status: 404, want: true},
		{name: "set empty: nothing", document: []int{}, status: 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := New(Config{Client: okClient(`{}`), Retry: RetryConfig{
				Enabled: true, RetryOnStatus: append(slices.Clone(requestStatuses), tt.request...), RetryOnDocumentStatus: tt.document,
			}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, ix.retryableDocument(tt.status))
		})
	}
}

// The grace period for 401 and 403 starts at the first such answer after a success, ends
// after auth_grace_period, and starts again after the next success.
func TestAuthGracePeriod(t *testing.T) {
	grace := time.Minute
	ix, err := New(Config{Client: okClient(`{}`), Retry: RetryConfig{Enabled: true, AuthGracePeriod: grace}})
	require.NoError(t, err)

	assert.True(t, ix.retryableRequest(http.StatusUnauthorized, nil), "the first 401 starts the period")
	first := ix.authFailingSince.Load()
	require.NotZero(t, first)
	assert.True(t, ix.retryableRequest(http.StatusForbidden, nil), "within the period")
	assert.Equal(t, first, ix.authFailingSince.Load(), "a later failure does not move the start")

	ix.authFailingSince.Store(time.Now().Add(-grace - time.Second).UnixNano())
	assert.False(t, ix.retryableRequest(http.StatusUnauthorized, nil), "the period is over")
	assert.False(t, ix.retryableRequest(http.StatusForbidden, nil), "the period is over")

	ix.noteSuccess()
	assert.Zero(t, ix.authFailingSince.Load())
	assert.True(t, ix.retryableRequest(http.StatusUnauthorized, nil), "a success starts a new period")
}

// Each retry setting out of range is reported, every one at once, quoting its key.
func TestRetryConfigCheck(t *testing.T) {
	valid := RetryConfig{
		Enabled: true, MaxRetries: 30, InitialInterval: 100 * time.Millisecond, MaxInterval: time.Minute,
		RetryOnStatus: []int{429, 503}, AuthGracePeriod: time.Minute,
	}
	require.NoError(t, valid.Check())
	for _, ok := range []RetryConfig{{MaxRetries: -1}, {}, {RetryOnDocumentStatus: []int{100, 599}}} {
		require.NoError(t, ok.Check())
	}

	tests := []struct {
		name  string
		edit  func(*RetryConfig)
		wants []string
	}{
		{name: "max_retries", edit: func(r *RetryConfig) { r.MaxRetries = -2 }, wants: []string{
			"`retry::max_retries` must be 0 or more, or -1 for no limit, got -2",
		}},
		{name: "auth_grace_period", edit: func(r *RetryConfig) { r.AuthGracePeriod = -time.Second }, wants: []string{
			"`retry::auth_grace_period` must be 0 or more, got -1s",
		}},
		{name: "initial_interval", edit: func(r *RetryConfig) { r.InitialInterval = -time.Second }, wants: []string{
			"`retry::initial_interval` must be 0 or more, got -1s",
		}},
		{name: "max_interval", edit: func(r *RetryConfig) { r.MaxInterval = -time.Second }, wants: []string{
			"`retry::max_interval` must be 0 or more, got -1s",
		}},
		{name: "initial above max", edit: func(r *RetryConfig) { r.InitialInterval = 2 * time.Minute }, wants: []string{
			"`retry::initial_interval` (2m0s) must not exceed `retry::max_interval` (1m0s)",
		}},
		{name: "statuses", edit: func(r *RetryConfig) { r.RetryOnStatus = []int{99, 429, 600} }, wants: []string{
			"`retry::retry_on_status` entry 99 is not an HTTP status; use codes between 100 and 599",
			"`retry::retry_on_status` entry 600 is not an HTTP status; use codes between 100 and 599",
		}},
		{name: "document statuses", edit: func(r *RetryConfig) { r.RetryOnDocumentStatus = []int{0} }, wants: []string{
			"`retry::retry_on_document_status` entry 0 is not an HTTP status; use codes between 100 and 599",
		}},
		{name: "all at once", edit: func(r *RetryConfig) {
			r.MaxRetries, r.AuthGracePeriod, r.InitialInterval, r.MaxInterval = -5, -1, -1, -2
		}, wants: []string{
			"`retry::max_retries` must be 0 or more, or -1 for no limit, got -5",
			"`retry::auth_grace_period` must be 0 or more, got -1ns",
			"`retry::initial_interval` must be 0 or more, got -1ns",
			"`retry::max_interval` must be 0 or more, got -2ns",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid
			tt.edit(&r)
			err := r.Check()
			require.Error(t, err)
			var joined interface{ Unwrap() []error }
			require.ErrorAs(t, err, &joined)
			var got []string
			for _, e := range joined.Unwrap() {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.wants, got)
		})
	}
}

// A retry waits for the longer of the backoff and the server's Retry-After.
func TestRetryWaitsForRetryAfter(t *testing.T) {
	requests := 0
	client := clientFunc(func(req *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, req.Body)
		requests++
		if requests == 1 {
			resp, err := answerStatus(http.StatusTooManyRequests)
			resp.Header.Set("Retry-After", "1")
			return resp, err
		}
		return answerItems(itemCreated)
	})
	ix, err := New(Config{
		Client: client, MaxBulkBytes: 1 << 20,
		Retry: RetryConfig{Enabled: true, MaxRetries: 1, InitialInterval: time.Millisecond, RetryOnStatus: []int{429}},
	})
	require.NoError(t, err)
	start := time.Now()
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1}, res)
	assert.Equal(t, 2, requests)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "the retry waited for Retry-After, not the 1ms backoff")
}

// The retry budget is the push's: its requests and its dead letters make
// at most max_retries retries together. A dead letter that fails for the same outage as its
// document gets no second schedule (it was a second full one: about 16 more minutes with the
// defaults), and a push whose requests each recover just before their retries run out cannot
// hold its consumer for a schedule per request.
func TestRetryBudgetIsThePush(t *testing.T) {
	const maxRetries = 4
	const interval = 5 * time.Millisecond
	for _, tc := range []struct {
		name    string
		docs    int
		maxBulk int
		fail    func(body string, n int) int
		// wantRetries: all of them, the budget; wantRequests: including first attempts.
		wantRetries, wantRequests int
		wantErr                   bool
	}{
		{
			// The push's request: 1 + 4 retries, given up; its dead letter: one attempt.
			name: "outage: the dead letter gets what is left, nothing", docs: 1,
			fail:        func(string, int) int { return http.StatusServiceUnavailable },
			wantRetries: maxRetries, wantRequests: maxRetries + 2, wantErr: true,
		},
		{
			// Each request recovers at its 4th sending: the first uses 3 retries, the second
			// 1 more and is given up; the third is not attempted; two dead-letter requests
			// (one document each).
			name: "flapping: the requests share the budget", docs: 3, maxBulk: 1,
			fail: func(body string, n int) int {
				if strings.Contains(body, `"_index":"d"`) || n > 3 {
					return 0
				}
				return http.StatusServiceUnavailable
			},
			wantRetries: maxRetries, wantRequests: 4 + 2 + 2,
		},
		{
			name: "a dead letter of a rejected document may retry", docs: 1,
			fail: func(body string, n int) int {
				if !strings.Contains(body, `"_index":"d"`) {
					return http.StatusBadRequest
				}
				if n <= 2 {
					return http.StatusServiceUnavailable
				}
				return 0
			},
			wantRetries: 2, wantRequests: 1 + 3,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &bodyCountingClient{fail: tc.fail}
			maxBulk := tc.maxBulk
			if maxBulk == 0 {
				maxBulk = 1 << 20
			}
			ix, err := New(Config{
				Client: c, MaxBulkBytes: maxBulk, DeadLetterIndex: "d",
				Retry: RetryConfig{
					Enabled: true, MaxRetries: maxRetries, InitialInterval: interval, MaxInterval: interval,
					RetryOnStatus: []int{503},
				},
			})
			require.NoError(t, err)
			var docs []string
			for i := range tc.docs {
				docs = append(docs, `{"n":`+strconv.Itoa(i)+`}`)
			}
			start := time.Now()
			_, err = ix.Send(context.Background(), batchOf(docs...))
			elapsed := time.Since(start)
			t.Logf("%d requests, %d retries, %s", c.total, c.retries(), elapsed.Round(time.Millisecond))
			assert.Equal(t, tc.wantRetries, c.retries())
			assert.Equal(t, tc.wantRequests, c.total)
			assert.Equal(t, tc.wantErr, err != nil, "%v", err)
			// The waits: one per retry, each at most the interval.
			assert.Less(t, elapsed, time.Duration(maxRetries+1)*interval+time.Second)
		})
	}
}
