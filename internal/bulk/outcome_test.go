// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// An item with two actions counts twice for docappender but once for compactClient: the
// response is taken as not matching the request, and every document still gets an outcome.
func TestResponseItemWithTwoActions(t *testing.T) {
	two := `{"create":{"_index":"i","status":400,"error":{"type":"e"}},"index":{"_index":"i","status":400,"error":{"type":"e"}}}`
	c := &scriptedClient{answer: func(int) (*http.Response, error) { return answerItems(two, itemCreated) }}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`, `{"n":2}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Equal(t, 3, res.Indexed+res.Rejected+res.Dropped+res.Duplicate)
}

// At Stop, a Send with documents not yet written hands its whole batch back with
// HandBackOnStop, whatever part of it was written: the error is retryable
// and wraps ErrHandedBack, no dead letter is written, the requests that remain are not sent,
// and one Warn line says so. The written documents are sent again after the restart: with
// deterministic ids a 409 each. Without HandBackOnStop the documents are dropped, and the log
// line says it is because of the stop.
func TestHandBackOnStop(t *testing.T) {
	for _, tc := range []struct {
		name     string
		docs     int
		maxBulk  int      // 0: one request
		first    []string // the answer to the first request
		noHand   bool     // HandBackOnStop off
		want     Result
		requests int
		wantDocs map[string]int64
		wantLog  string
	}{
		{
			name: "nothing written", docs: 2, first: []string{itemBusy, itemBusy}, want: Result{HandedBack: 2}, requests: 1,
			wantDocs: map[string]int64{"retryable shutdown 503": 2},
			wantLog:  "Handing documents back to the persistent queue",
		},
		{
			name: "one indexed", docs: 2, first: []string{itemCreated, itemBusy}, want: Result{Indexed: 1, HandedBack: 1}, requests: 1,
			wantDocs: map[string]int64{"indexed  201": 1, "retryable shutdown 503": 1},
			wantLog:  "Handing documents back to the persistent queue",
		},
		{
			name: "one rejected: no dead letter now", docs: 2, first: []string{itemRejected, item429},
			want: Result{Rejected: 1, HandedBack: 1}, requests: 1,
			wantDocs: map[string]int64{"rejected mapper_parsing_exception 400": 1, "retryable shutdown 429": 1},
			wantLog:  "Handing documents back to the persistent queue",
		},
		{
			name: "later requests not sent", docs: 3, maxBulk: 1, first: []string{item429},
			want: Result{HandedBack: 3}, requests: 1,
			wantDocs: map[string]int64{"retryable shutdown 429": 1, "retryable shutdown ": 2},
			wantLog:  "Handing documents back to the persistent queue",
		},
		{
			name: "no hand-back: dropped and dead-lettered, because of the stop", docs: 2, noHand: true,
			first: []string{itemCreated, itemBusy}, want: Result{Indexed: 1, Dropped: 1, DeadLettered: 1}, requests: 2,
			// the dropped document's fate is that of its dead letter
			wantDocs: map[string]int64{"indexed  201": 1, "dead_lettered  201": 1},
			wantLog:  "Dropping documents: the exporter is shutting down",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests := make(chan int, 10)
			c := &scriptedClient{answer: func(n int) (*http.Response, error) {
				requests <- n
				if n > 0 {
					return answerItems(itemCreated) // a dead letter
				}
				return answerItems(tc.first...)
			}}
			tb, tel := newTelemetry(t)
			core, logs := observer.New(zapcore.InfoLevel)
			maxBulk := tc.maxBulk
			if maxBulk == 0 {
				maxBulk = 1 << 20
			}
			ix, err := New(Config{
				Client: c, MaxBulkBytes: maxBulk, HandBackOnStop: !tc.noHand, DeadLetterIndex: "d", Telemetry: tb,
				Logger: zap.New(core),
				Retry:  RetryConfig{Enabled: true, MaxRetries: -1, InitialInterval: time.Hour, MaxInterval: time.Hour, RetryOnStatus: []int{429}},
			})
			require.NoError(t, err)
			go func() {
				<-requests
				ix.Stop()
			}()
			var docs []string
			for i := range tc.docs {
				docs = append(docs, `{"n":`+strconv.Itoa(i)+`}`)
			}
			res, err := ix.Send(context.Background(), batchOf(docs...))
			assert.Equal(t, tc.want, res)
			assert.Equal(t, tc.requests, c.n)
			assert.Equal(t, tc.wantDocs, docCounts(t, tel))
			assert.Equal(t, int64(tc.docs), fateSum(t, tel), "each document of the batch has one fate")
			require.Len(t, logs.FilterMessageSnippet(tc.wantLog).All(), 1, "%v", logs.All())
			assert.Empty(t, logs.FilterMessageSnippet("retries exhausted").All())
			if tc.noHand {
				assert.NoError(t, err, "every document is indexed or dead-lettered")
				return
			}
			require.ErrorIs(t, err, ErrHandedBack)
			require.ErrorIs(t, err, errStopped)
			assert.False(t, consumererror.IsPermanent(err), "%v", err)
			line := logs.FilterMessageSnippet(tc.wantLog).All()[0]
			assert.Equal(t, int64(tc.docs), line.ContextMap()["documents"])
			assert.Equal(t, int64(res.HandedBack), line.ContextMap()["not_written"])
		})
	}
}

// Every document of a Send gets one final outcome, counted in the Result and in the documents
// metric, and the error says whether the batch may be sent again whole.
func TestSendOutcomes(t *testing.T) {
	certErr := fmt.Errorf("tls: %w", &tls.CertificateVerificationError{Err: errors.New("unknown authority")})
	type answers = []func() (*http.Response, error)
	tests := []struct {
		name    string
		docs    int
		retry   func(*RetryConfig) // changes to the default policy: 2 retries, no grace
		maxBulk int
		answers answers
		want    Result
		// wantErr is what the error says, "" for none.
		wantErr       string
		wantPermanent bool
		wantDocs      map[string]int64 // documents by "outcome error.type status"
		wantRequests  map[string]int64 // bulk requests by "outcome status"
		wantRetried   int64
	}{
		// Document outcomes.
		{
			name: "indexed", docs: 2, answers: answers{items(itemCreated, itemCreated)},
			want:         Result{Indexed: 2},
			wantDocs:     map[string]int64{"indexed  201": 2},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "duplicate", docs: 2, answers: answers{items(itemCreated, itemConflict)},
			want:         Result{Indexed: 1, Duplicate: 1},
			wantDocs:     map[string]int64{"indexed  201": 1, "duplicate version_conflict_engine_exception 409": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "rejected for good", docs: 2, answers: answers{items(itemRejected, itemCreated)},
			want:         Result{Indexed: 1, Rejected: 1},
			wantDocs:     map[string]int64{"indexed  201": 1, "rejected mapper_parsing_exception 400": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "failure store", docs: 2, answers: answers{items(itemStored, itemCreated)},
			want:         Result{Indexed: 2, FailureStore: 1},
			wantDocs:     map[string]int64{"indexed  201": 1, "failure_store  201": 1}, // the failure store's document counted once, with a fate of its own
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "item 429 retried (retry_on_status)", docs: 2, answers: answers{items(itemCreated, item429), items(itemCreated)},
			want:         Result{Indexed: 2},
			wantDocs:     map[string]int64{"indexed  201": 2},
			wantRequests: map[string]int64{"success 200": 2},
			wantRetried:  1,
		},
		{
			name: "item 500 retried (any 5xx)", docs: 1, answers: answers{items(item500), items(itemCreated)},
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"success 200": 2},
			wantRetried:  1,
		},
		{
			name: "item 401 is final", docs: 1, answers: answers{items(item401)},
			want:         Result{Rejected: 1},
			wantDocs:     map[string]int64{"rejected security_exception 401": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "item 403 is final", docs: 1, answers: answers{items(item403)},
			want:         Result{Rejected: 1},
			wantDocs:     map[string]int64{"rejected security_exception 403": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "retry_on_document_status set: listed status retried", docs: 1,
			retry:        func(r *RetryConfig) { r.RetryOnDocumentStatus = []int{503} },
			answers:      answers{items(itemBusy), items(itemCreated)},
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"success 200": 2},
			wantRetried:  1,
		},
		{
			name: "retry_on_document_status set: 429 of retry_on_status is final", docs: 1,
			retry:        func(r *RetryConfig) { r.RetryOnDocumentStatus = []int{503} },
			answers:      answers{items(item429)},
			want:         Result{Rejected: 1},
			wantDocs:     map[string]int64{"rejected es_rejected_execution_exception 429": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "retry_on_document_status set: other 5xx is final", docs: 1,
			retry:        func(r *RetryConfig) { r.RetryOnDocumentStatus = []int{503} },
			answers:      answers{items(item500)},
			want:         Result{Rejected: 1},
			wantDocs:     map[string]int64{"rejected illegal_state_exception 500": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "item retries exhausted after some were indexed", docs: 2,
			answers: answers{items(itemCreated, itemBusy), items(itemBusy), items(itemBusy)},
			want:    Result{Indexed: 1, Dropped: 1},
			wantErr: "1 documents not sent after 3 attempts: 1 documents failed with a retryable status", wantPermanent: true,
			wantDocs: map[string]int64{
				"indexed  201": 1, "dropped unavailable_shards_exception 503": 1,
			},
			wantRequests: map[string]int64{"success 200": 3},
			wantRetried:  2,
		},
		{
			name: "item retries exhausted, nothing indexed", docs: 1,
			answers:      repeat(3, items(itemBusy)),
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 3 attempts",
			wantDocs:     map[string]int64{"dropped unavailable_shards_exception 503": 1},
			wantRequests: map[string]int64{"success 200": 3},
			wantRetried:  2,
		},

		// Whole requests.
		{
			name: "request 503 retried", docs: 2, answers: answers{status(503), items(itemCreated, itemCreated)},
			want:         Result{Indexed: 2},
			wantDocs:     map[string]int64{"indexed  201": 2},
			wantRequests: map[string]int64{"failed_server 503": 1, "success 200": 1},
			wantRetried:  2,
		},
		{
			name: "request 429 retried", docs: 1, answers: answers{status(429), status(429), items(itemCreated)},
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"too_many 429": 2, "success 200": 1},
			wantRetried:  2,
		},
		{
			name: "request 503 retries exhausted", docs: 1, answers: repeat(3, status(503)),
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 3 attempts: bulk request answered HTTP 503 (1 documents)",
			wantDocs:     map[string]int64{"dropped  503": 1},
			wantRequests: map[string]int64{"failed_server 503": 3},
			wantRetried:  2,
		},
		{
			name: "request 500 not in retry_on_status", docs: 2, answers: answers{status(500)},
			want:    Result{Rejected: 2},
			wantErr: "bulk request answered HTTP 500 (2 documents)", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  500": 2},
			wantRequests: map[string]int64{"failed_server 500": 1},
		},
		{
			name: "request 400", docs: 2, answers: answers{status(400)},
			want:    Result{Rejected: 2},
			wantErr: "bulk request answered HTTP 400 (2 documents)", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  400": 2},
			wantRequests: map[string]int64{"failed_client 400": 1},
		},
		{
			name: "request 302", docs: 1, answers: answers{status(302)},
			want:    Result{Rejected: 1},
			wantErr: "bulk request answered HTTP 302", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  302": 1},
			wantRequests: map[string]int64{"failed_client 302": 1},
		},
		{
			name: "request 401 without grace", docs: 1, answers: answers{status(401)},
			want:    Result{Rejected: 1},
			wantErr: "bulk request answered HTTP 401: check user/password or api_key (1 documents)", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  401": 1},
			wantRequests: map[string]int64{"failed_client 401": 1},
		},
		{
			name: "request 403 without grace", docs: 1, answers: answers{status(403)},
			want:    Result{Rejected: 1},
			wantErr: "bulk request answered HTTP 403: the credentials lack the privilege to write to these indices", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  403": 1},
			wantRequests: map[string]int64{"failed_client 403": 1},
		},
		{
			name: "request 401 and 403 within the grace period", docs: 1,
			retry:        func(r *RetryConfig) { r.AuthGracePeriod = time.Minute },
			answers:      answers{status(401), status(403), items(itemCreated)},
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"failed_client 401": 1, "failed_client 403": 1, "success 200": 1},
			wantRetried:  2,
		},
		{
			name: "request 413 sent again in halves", docs: 3,
			answers:      answers{status(413), items(itemCreated), items(itemCreated, itemCreated)},
			want:         Result{Indexed: 3},
			wantDocs:     map[string]int64{"indexed  201": 3},
			wantRequests: map[string]int64{"failed_client 413": 1, "success 200": 2},
		},
		{
			name: "request 413, and the first half fails", docs: 2,
			answers: answers{status(413), status(400)},
			want:    Result{Rejected: 1, Dropped: 1},
			wantErr: "bulk request answered HTTP 400 (1 documents)", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  400": 1, "dropped not_attempted ": 1},
			wantRequests: map[string]int64{"failed_client 413": 1, "failed_client 400": 1},
		},
		{
			name: "request 413 for a single document", docs: 1, answers: answers{status(413)},
			want:         Result{Rejected: 1},
			wantDocs:     map[string]int64{"rejected request_entity_too_large 413": 1},
			wantRequests: map[string]int64{"failed_client 413": 1},
		},
		{
			name: "network error retried", docs: 1, answers: answers{fail(errConnection), items(itemCreated)},
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"internal_server_error ": 1, "success 200": 1},
			wantRetried:  1,
		},
		{
			name: "network error retries exhausted", docs: 1, answers: repeat(3, fail(errConnection)),
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 3 attempts: failed to execute the request: connection reset by peer",
			wantDocs:     map[string]int64{"dropped  ": 1},
			wantRequests: map[string]int64{"internal_server_error ": 3},
			wantRetried:  2,
		},
		{
			name: "unverifiable certificate", docs: 1, answers: answers{fail(certErr)},
			want:    Result{Rejected: 1},
			wantErr: "bulk request failed (1 documents): the server's TLS certificate cannot be verified; check tls::ca_file", wantPermanent: true,
			wantDocs:     map[string]int64{"rejected  ": 1},
			wantRequests: map[string]int64{"internal_server_error ": 1},
		},
		{
			name: "response not JSON", docs: 1, answers: repeat(3, body("<html>gateway says hello</html>")),
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 3 attempts",
			wantDocs:     map[string]int64{"dropped  ": 1},
			wantRequests: map[string]int64{"internal_server_error ": 3},
			wantRetried:  2,
		},
		{
			name: "response with fewer items than documents", docs: 2, answers: answers{items(itemCreated)},
			want:    Result{Dropped: 2},
			wantErr: "bulk response has 1 items for 2 documents sent; their outcome is unknown", wantPermanent: true,
			wantDocs:     map[string]int64{"dropped response_mismatch 200": 2},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "a failed request ends the push", docs: 3, maxBulk: 1, // one document per request
			answers: answers{items(itemCreated), status(400)},
			want:    Result{Indexed: 1, Rejected: 1, Dropped: 1},
			wantErr: "bulk request answered HTTP 400 (1 documents)", wantPermanent: true,
			wantDocs:     map[string]int64{"indexed  201": 1, "rejected  400": 1, "dropped not_attempted ": 1},
			wantRequests: map[string]int64{"success 200": 1, "failed_client 400": 1},
		},

		// The retry budget.
		{
			name: "retries disabled", docs: 1, retry: func(r *RetryConfig) { r.Enabled = false },
			answers:      answers{status(503)},
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 1 attempts",
			wantDocs:     map[string]int64{"dropped  503": 1},
			wantRequests: map[string]int64{"failed_server 503": 1},
		},
		{
			name: "max_retries 0", docs: 1, retry: func(r *RetryConfig) { r.MaxRetries = 0 },
			answers:      answers{items(itemBusy)},
			want:         Result{Dropped: 1},
			wantErr:      "1 documents not sent after 1 attempts",
			wantDocs:     map[string]int64{"dropped unavailable_shards_exception 503": 1},
			wantRequests: map[string]int64{"success 200": 1},
		},
		{
			name: "max_retries -1", docs: 1, retry: func(r *RetryConfig) { r.MaxRetries = -1 },
			answers:      append(repeat(6, status(503)), items(itemCreated)),
			want:         Result{Indexed: 1},
			wantDocs:     map[string]int64{"indexed  201": 1},
			wantRequests: map[string]int64{"failed_server 503": 6, "success 200": 1},
			wantRetried:  6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retry := RetryConfig{Enabled: true, MaxRetries: 2, InitialInterval: 1, RetryOnStatus: []int{429, 502, 503, 504}}
			if tt.retry != nil {
				tt.retry(&retry)
			}
			maxBulk := tt.maxBulk
			if maxBulk == 0 {
				maxBulk = 1 << 20
			}
			tb, tel := newTelemetry(t)
			c := script(t, tt.answers...)
			ix, err := New(Config{Client: c, MaxBulkBytes: maxBulk, Retry: retry, Telemetry: tb})
			require.NoError(t, err)
			var docs []string
			for i := range tt.docs {
				docs = append(docs, `{"n":`+strconv.Itoa(i)+`}`)
			}
			res, err := ix.Send(context.Background(), batchOf(docs...))
			assert.Equal(t, tt.want, res)
			assert.Equal(t, len(tt.answers), c.n, "requests sent")
			if tt.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, tt.wantPermanent, consumererror.IsPermanent(err), "permanent: %v", err)
				assert.LessOrEqual(t, strings.Count(err.Error(), "Permanent error"), 1, "%v", err)
			}
			assert.Equal(t, tt.wantDocs, docCounts(t, tel))
			assert.Equal(t, tt.wantRequests, requestCounts(t, tel))
			assert.Equal(t, tt.wantRetried, retried(t, tel))
			assert.Equal(t, int64(tt.docs), sumWithOutcome(t, tel), "each document counted once with an outcome")
		})
	}
}

// Only the statuses Elasticsearch documents for a create count as its outcome: 201 indexed, 409 duplicate, 4xx rejected or retried, 5xx retried. Any other item —
// no status, 0, -1, 100, 200, 3xx, a status that is not an integer, 201 with an error, an
// answer for another action or for two — does not say whether the document was written: it
// is dropped with error.type unexpected_status and dead-lettered, like a response that does
// not match its request, and the push's error is permanent (a resend could store it twice).
// docappender counted every such item without an error type as indexed.
func TestResponseItemStatuses(t *testing.T) {
	odd := func(status int) map[string]int64 {
		code := "" // no status is recorded as none, never as 0
		if status != 0 {
			code = strconv.Itoa(status)
		}
		return map[string]int64{"indexed  201": 1, "dropped unexpected_status " + code: 1}
	}
	for _, tc := range []struct {
		name string
		item string
		want Result // of the push: the item's document and one created
		docs map[string]int64
	}{
		{name: "201 created", item: itemCreated, want: Result{Indexed: 2}, docs: map[string]int64{"indexed  201": 2}},
		{
			name: "201 with other members", item: `{"create":{"_index":"i","_id":"x","_version":1,"result":"created","status":201}}`,
			want: Result{Indexed: 2}, docs: map[string]int64{"indexed  201": 2},
		},
		{
			name: "201 failure store", item: itemStored,
			want: Result{Indexed: 2, FailureStore: 1}, docs: map[string]int64{"indexed  201": 1, "failure_store  201": 1}, // a failure-store document counts once
		},
		{
			name: "409 duplicate", item: itemConflict, want: Result{Indexed: 1, Duplicate: 1},
			docs: map[string]int64{"indexed  201": 1, "duplicate version_conflict_engine_exception 409": 1},
		},
		{
			name: "400 rejected", item: itemRejected, want: Result{Indexed: 1, Rejected: 1},
			docs: map[string]int64{"indexed  201": 1, "rejected mapper_parsing_exception 400": 1},
		},
		{
			name: "404 without error rejected", item: `{"create":{"_index":"i","status":404}}`, want: Result{Indexed: 1, Rejected: 1},
			docs: map[string]int64{"indexed  201": 1, "rejected  404": 1},
		},
		{name: "no status", item: `{"create":{"_index":"i"}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(0)},
		{name: "null status", item: `{"create":{"_index":"i","status":null}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(0)},
		{name: "status 0", item: `{"create":{"_index":"i","status":0}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(0)},
		{name: "status -1", item: `{"create":{"_index":"i","status":-1}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(-1)},
		{name: "status 100", item: `{"create":{"_index":"i","status":100}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(100)},
		{name: "status 200", item: `{"create":{"_index":"i","status":200}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(200)},
		{name: "status 202", item: `{"create":{"_index":"i","status":202}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(202)},
		{name: "status 304", item: `{"create":{"_index":"i","status":304}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(304)},
		{name: "status 600", item: `{"create":{"_index":"i","status":600}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(600)},
		{name: "status 201.5", item: `{"create":{"_index":"i","status":201.5}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(-1)},
		{name: "status as a string", item: `{"create":{"_index":"i","status":"201"}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(-1)},
		{
			name: "201 with an error", item: `{"create":{"_index":"i","status":201,"error":{"type":"x","reason":"y"}}}`,
			want: Result{Indexed: 1, Dropped: 1}, docs: odd(201),
		},
		{name: "index action 201", item: `{"index":{"_index":"i","status":201}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(201)},
		{name: "update action 200", item: `{"update":{"_index":"i","status":200}}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(200)},
		{name: "empty item", item: `{}`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(0)},
		{name: "not an object", item: `"created"`, want: Result{Indexed: 1, Dropped: 1}, docs: odd(0)},
		{
			name: "two actions", item: `{"create":{"_index":"i","status":201},"index":{"_index":"i","status":201}}`,
			want: Result{Indexed: 1, Dropped: 1}, docs: odd(201),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, deadLetters := range []bool{false, true} {
				c := &scriptedClient{answer: func(n int) (*http.Response, error) {
					if n == 0 {
						return answerItems(itemCreated, tc.item)
					}
					return answerItems(itemCreated) // the dead letter
				}}
				tb, tel := newTelemetry(t)
				cfg := Config{Client: c, MaxBulkBytes: 1 << 20, Telemetry: tb}
				if deadLetters {
					cfg.DeadLetterIndex = "d"
				}
				ix, err := New(cfg)
				require.NoError(t, err)
				res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
				want, wantDocs := tc.want, maps.Clone(tc.docs)
				if deadLetters && want.Dropped+want.Rejected > 0 {
					// the fate of the document is that of its dead letter
					want.DeadLettered = 1
					maps.DeleteFunc(wantDocs, func(k string, _ int64) bool {
						return strings.HasPrefix(k, "rejected ") || strings.HasPrefix(k, "dropped ")
					})
					wantDocs["dead_lettered  201"] = 1
				}
				if tc.want.Dropped == 0 || deadLetters {
					require.NoError(t, err)
				} else {
					require.ErrorContains(t, err, "1 documents answered by bulk response items that Elasticsearch does not give to a create")
					assert.True(t, consumererror.IsPermanent(err), "a resend could store the document twice")
				}
				assert.Equal(t, want, res, "dead letters %v", deadLetters)
				assert.Equal(t, wantDocs, docCounts(t, tel), "dead letters %v", deadLetters)
				assert.Equal(t, int64(2), fateSum(t, tel), "dead letters %v: one fate per document", deadLetters)
				assert.Equal(t, int64(2), sumWithOutcome(t, tel), "dead letters %v: one outcome per document", deadLetters)
			}
		})
	}
}

// An error says "Permanent error" once at most, whatever failed on the
// way, and the dead letters' reasons never say it: only Send makes an error permanent.
func TestPermanentErrorSaidOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		docs    int
		maxBulk int
		status  func(request int) int
		answer  func(request, doc int) string
	}{
		{
			name: "indexed, then a request rejected", docs: 3, maxBulk: 1,
			status: func(r int) int { return map[int]int{1: 400}[r] },
		},
		{
			name: "indexed, then a response that does not match", docs: 2, maxBulk: 1,
			answer: func(r, _ int) string {
				if r == 1 {
					return itemCreated + "," + itemCreated
				}
				return itemCreated
			},
		},
		{
			name: "413, then a half rejected", docs: 4,
			status: func(r int) int { return map[int]int{0: 413, 1: 400}[r] },
		},
		{
			name: "odd item after one indexed", docs: 2,
			answer: func(_, doc int) string {
				if doc == 1 {
					return `{"create":{"_index":"i","status":200}}`
				}
				return itemCreated
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, dlq := range []string{"", "dlq"} {
				c := &recordingClient{t: t, status: tc.status}
				c.answer = func(request, doc int) string {
					if tc.answer == nil || isDeadLetters(c.requests[request]) {
						return itemCreated
					}
					return tc.answer(request, doc)
				}
				maxBulk := tc.maxBulk
				if maxBulk == 0 {
					maxBulk = 1 << 20
				}
				ix, err := New(Config{Client: c, MaxBulkBytes: maxBulk, DeadLetterIndex: dlq, IncludeSourceOnError: docappender.False})
				require.NoError(t, err)
				var docs []string
				for i := range tc.docs {
					docs = append(docs, `{"n":`+strconv.Itoa(i)+`}`)
				}
				_, err = ix.Send(context.Background(), batchOf(docs...))
				if dlq == "" {
					require.Error(t, err)
					assert.True(t, consumererror.IsPermanent(err))
					assert.Equal(t, 1, strings.Count(err.Error(), "Permanent error"), "%v", err)
					continue
				}
				require.NoError(t, err, "dead-lettered")
				letters := 0
				for _, r := range c.requests {
					if isDeadLetters(r) {
						for _, l := range r.lines {
							letters++
							assert.NotContains(t, l, "Permanent error")
						}
					}
				}
				assert.Positive(t, letters)
			}
		})
	}
}
