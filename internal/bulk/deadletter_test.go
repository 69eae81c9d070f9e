// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// A dead letter whose first request's answer is lost is stored; its resend is answered 409
// (content-derived id): it counts as dead-lettered, not as a duplicate of the push, and the
// push succeeds. The dead letter may retry: its document was rejected, the push spent none of
// its retries.
func TestDeadLetterResentAfterLostAnswer(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		switch n {
		case 0: // the push's document: rejected for good
			return answerItems(itemRejected)
		case 1: // the dead letter: stored, but the answer is lost
			return nil, errors.New("connection reset by peer")
		default: // resent dead letter: already there
			return answerItems(itemConflict)
		}
	}}
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d",
		Retry: RetryConfig{Enabled: true, MaxRetries: 1, InitialInterval: 1},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":1}`))
	assert.Equal(t, 3, c.n)
	assert.Equal(t, 0, res.Duplicate, "the dead letter is not a duplicate of the push")
	assert.Equal(t, 1, res.DeadLettered)
	assert.NoError(t, err, "every document is dead-lettered")
}

// The documents of a response that does not match the request are dropped and dead-lettered;
// the push fails (a dead letter stored for another of its documents must not hide the drop).
func TestMismatchedResponseIsDeadLettered(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		switch n {
		case 0:
			return answerItems(itemRejected, itemBusy) // doc 0 rejected (dead letter), doc 1 retried
		case 1:
			return answerItems(itemCreated, itemCreated) // 2 items for the 1 document resent
		default:
			return answerItems(itemCreated) // the dead letter
		}
	}}
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d",
		Retry: RetryConfig{Enabled: true, MaxRetries: 3, InitialInterval: 1},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Equal(t, 1, res.Dropped)
	assert.Error(t, err, "document 1 is dropped and not dead-lettered")
}

// A dead letter that cannot be written fails the push, also when its document was rejected
// for good.
func TestDeadLetterFailureFailsThePush(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		if n == 0 {
			return answerItems(itemRejected)
		}
		return &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`))}, nil
	}}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d"})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Error(t, err, "the dead letter could not be written")
}

// Each document rejected for good or given up gets one dead letter, in the dead-letter index,
// with a content-derived id, its original document (the beginning of it when it was too
// large), the index it was meant for, and why it was not indexed.
func TestDeadLetterDocuments(t *testing.T) {
	big := `{"n":1,"pad":"` + strings.Repeat("é", 2000) + `"}`
	tests := []struct {
		name    string
		docs    []string
		maxBulk int
		retries int
		status  func(request int) int         // whole-request answers, 0 for items
		answer  func(request, doc int) string // item answers of the push's requests
		want    []fakees.DeadLetter           // Timestamp not compared
		result  Result
	}{
		{
			name: "rejected for good", docs: []string{`{"n":0}`, `{"n":1}`},
			answer: func(_, doc int) string {
				if doc == 1 {
					return itemRejected
				}
				return itemCreated
			},
			want:   []fakees.DeadLetter{letter(`{"n":1}`, 400, "mapper_parsing_exception", "x")},
			result: Result{Indexed: 1, Rejected: 1, DeadLettered: 1},
		},
		{
			name: "retries exhausted: the last failure", docs: []string{`{"n":0}`}, retries: 1,
			answer: func(int, int) string { return itemBusy },
			want: []fakees.DeadLetter{letter(`{"n":0}`, 503, "not_delivered",
				"unavailable_shards_exception: 1 documents not sent after 2 attempts: 1 documents failed with a retryable status")},
			result: Result{Dropped: 1, DeadLettered: 1},
		},
		{
			name: "request rejected", docs: []string{`{"n":0}`},
			status: func(request int) int {
				if request == 0 {
					return http.StatusBadRequest
				}
				return 0
			},
			want: []fakees.DeadLetter{letter(`{"n":0}`, 400, "request_rejected",
				`bulk request answered HTTP 400 (1 documents): {"error":{"type":"fake_exception","reason":"injected 400"},"status":400}`)},
			result: Result{Rejected: 1, DeadLettered: 1},
		},
		{
			name: "not attempted after a failed request", docs: []string{`{"n":0}`, `{"n":1}`}, maxBulk: 1,
			status: func(request int) int {
				if request == 0 {
					return http.StatusBadRequest
				}
				return 0
			},
			want: []fakees.DeadLetter{
				letter(`{"n":0}`, 400, "request_rejected",
					`bulk request answered HTTP 400 (1 documents): {"error":{"type":"fake_exception","reason":"injected 400"},"status":400}`),
				letter(`{"n":1}`, 0, "not_attempted",
					`an earlier request of the same push failed: bulk request answered HTTP 400 (1 documents): {"error":{"type":"fake_exception","reason":"injected 400"},"status":400}`),
			},
			result: Result{Rejected: 1, Dropped: 1, DeadLettered: 2},
		},
		{
			name: "too large alone: the beginning of it", docs: []string{big},
			status: func(request int) int {
				if request == 0 {
					return http.StatusRequestEntityTooLarge
				}
				return 0
			},
			want: []fakees.DeadLetter{letter(big[:maxTooLargeSource], 413, "request_entity_too_large",
				"a single document of 4016 bytes is over the server's request size limit")},
			result: Result{Rejected: 1, DeadLettered: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &recordingClient{t: t, status: tt.status}
			c.answer = func(request, doc int) string {
				if tt.answer == nil || isDeadLetters(c.requests[request]) {
					return itemCreated
				}
				return tt.answer(request, doc)
			}
			maxBulk := tt.maxBulk
			if maxBulk == 0 {
				maxBulk = 1 << 20
			}
			tb, tel := newTelemetry(t)
			ix, err := New(Config{
				Client: c, MaxBulkBytes: maxBulk, DeadLetterIndex: "dlq", Telemetry: tb,
				IncludeSourceOnError: docappender.False, // error reasons are kept (see docappender)
				Retry:                RetryConfig{Enabled: true, MaxRetries: tt.retries, InitialInterval: 1, RetryOnStatus: []int{503}},
			})
			require.NoError(t, err)
			b := batchOf(tt.docs...)
			res, err := ix.Send(context.Background(), b)
			require.NoError(t, err, "every document is indexed or dead-lettered")
			assert.Equal(t, tt.result, res)

			// The dead letters are sent once every document of the push has an outcome.
			var lines []string
			for i, r := range c.requests {
				if isDeadLetters(r) {
					lines = append(lines, r.lines...)
				} else {
					require.Empty(t, lines, "request %d of the push after dead letters", i)
				}
			}
			require.Len(t, lines, 2*len(tt.want))
			for i, want := range tt.want {
				var action map[string]map[string]string
				require.NoError(t, json.Unmarshal([]byte(lines[2*i]), &action))
				assert.Equal(t, "dlq", action["create"]["_index"])
				assert.Equal(t, ContentID([]byte(lines[2*i+1])), action["create"]["_id"], "a content-derived id")
				var got fakees.DeadLetter
				require.NoError(t, json.Unmarshal([]byte(lines[2*i+1]), &got))
				assert.NotEmpty(t, got.Timestamp)
				got.Timestamp = ""
				assert.Equal(t, want, got)
			}
			assert.Equal(t, int64(len(tt.want)), docCounts(t, tel)["dead_lettered  201"])
		})
	}
}

// A document the pipeline refused (Batch.Refuse) is never sent: it is rejected for good at
// once, counted in docs.processed as failed_client with its error type and no status, and,
// with dead letters on, its dead letter names the index its record chose, status 0 and the
// pipeline's reason, and its fate is dead_lettered; with dead letters off, rejected.
func TestRefusedDocumentIsDeadLetteredNotSent(t *testing.T) {
	const reason = `target ".kibana_1" from attribute elasticsearch.index on the record is not allowed`
	for _, tt := range []struct {
		name       string
		deadLetter string
		sent       bool // a document besides the refused one
		result     Result
		fates      map[string]int64
	}{
		{
			name: "dead letters on", deadLetter: "dlq", sent: true,
			result: Result{Indexed: 1, Rejected: 1, DeadLettered: 1},
			fates:  map[string]int64{"indexed  201": 1, "dead_lettered  201": 1},
		},
		{
			name: "dead letters on, nothing else in the batch", deadLetter: "dlq",
			result: Result{Rejected: 1, DeadLettered: 1},
			fates:  map[string]int64{"dead_lettered  201": 1},
		},
		{
			name: "dead letters off", sent: true,
			result: Result{Indexed: 1, Rejected: 1},
			fates:  map[string]int64{"indexed  201": 1, "rejected target_not_allowed ": 1},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &recordingClient{t: t}
			tb, tel := newTelemetry(t)
			ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: tt.deadLetter, Telemetry: tb})
			require.NoError(t, err)
			b := &Batch{}
			if tt.sent {
				b = batchOf(`{"n":0}`)
			}
			start := len(b.Buf)
			b.Buf = append(b.Buf, `{"n":"refused"}`...)
			b.AddTemplate("metrics.x", "gauge_double") // dropped with the refused document
			b.Refuse(start, ".kibana_1", "target_not_allowed", reason)
			if tt.sent {
				start = len(b.Buf)
				b.Buf = append(b.Buf, `{"n":2}`...)
				b.Add(start, Item{Index: "logs-a"})
				tt.result.Indexed++
				tt.fates["indexed  201"]++
				assert.Empty(t, b.Templates(1), "the refused document's templates are not the next one's")
			}
			require.Equal(t, 1, b.Refused())

			res, err := ix.Send(context.Background(), b)
			require.NoError(t, err)
			assert.Equal(t, tt.result, res)
			assert.Equal(t, tt.fates, docCounts(t, tel))
			processed := countertest.SumBy(t, tel, "otelcol.elasticsearch.docs.processed", "outcome", "error.type", "http.response.status_code")
			assert.Equal(t, int64(1), processed["failed_client target_not_allowed "])
			assert.Equal(t, int64(1+b.Len()), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.received"))

			var letters []string
			for _, r := range c.requests {
				if isDeadLetters(r) {
					letters = append(letters, r.lines...)
					continue
				}
				for _, l := range r.lines {
					assert.NotContains(t, l, "refused", "the refused document is not sent")
					assert.NotContains(t, l, ".kibana_1")
				}
			}
			if tt.deadLetter == "" {
				assert.Empty(t, letters)
				return
			}
			require.Len(t, letters, 2)
			var got fakees.DeadLetter
			require.NoError(t, json.Unmarshal([]byte(letters[1]), &got))
			got.Timestamp = ""
			want := letter(`{"n":"refused"}`, 0, "target_not_allowed", reason)
			want.Index = ".kibana_1"
			assert.Equal(t, want, got)
		})
	}
}
