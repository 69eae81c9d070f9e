// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// The bounds on what is read of a server's answer and what is kept of it.
// Each test measures what the bound is about (bytes allocated, dead letters written, lengths of
// errors and log lines) and logs it; the numbers before the bounds are in the test's comment.

// A whole-request 500 with a 10 KB HTML page on 5,000 documents: each of the 5,000 dead letters
// repeated the page, 54 MB of dead letters; now each carries one reason of at
// most esclient.MaxReason bytes, made once.
func TestErrorPageDeadLettersBounded(t *testing.T) {
	const docs = 5000
	page := "<html><body>" + strings.Repeat("<p>Internal Server Error at the gateway</p>", 10_000/42) + "</body></html>"
	c := &deadLetterSink{first: func() (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusInternalServerError, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(page))}, nil
	}}
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 5_000_000, DeadLetterIndex: "dlq", IncludeSourceOnError: docappender.False,
		Retry: RetryConfig{Enabled: true, MaxRetries: 3, InitialInterval: 1, RetryOnStatus: []int{429, 502, 503, 504}},
	})
	require.NoError(t, err)
	b := logDocs(docs)
	var res Result
	alloc := allocated(func() { res, err = ix.Send(context.Background(), b) })
	require.NoError(t, err, "rejected and dead-lettered")
	require.Equal(t, Result{Rejected: docs, DeadLettered: docs}, res)
	t.Logf("%d dead letters: %d bytes (%d per letter, documents of %d bytes); %d bytes allocated",
		docs, c.letterBytes, c.letterBytes/docs, len(b.Buf)/docs, alloc)
	var letter fakees.DeadLetter
	require.NoError(t, json.Unmarshal([]byte(c.letters[0]), &letter))
	assert.LessOrEqual(t, len(letter.Error.Reason), esclient.MaxReason)
	assert.True(t, strings.HasPrefix(letter.Error.Reason, "bulk request answered HTTP 500 (5000 documents): <html><body><p>"), letter.Error.Reason)
	assert.True(t, strings.HasSuffix(letter.Error.Reason, esclient.TruncatedMarker), letter.Error.Reason)
	// A letter: its document (about 70 bytes), the reason (at most 1 KiB, a little more once
	// JSON-escaped) and about 150 bytes of fields.
	assert.Less(t, c.letterBytes, docs*(len(b.Buf)/docs+esclient.MaxReason+400))
	assert.Less(t, alloc, uint64(96<<20), "mostly the dead letters and their request")
}

// A 20 MB error body became a 20 MB error string and log line; now at most MaxErrorBody bytes
// of it are read and at most esclient.MaxReason of them quoted.
func TestLargeErrorBodyBounded(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusServiceUnavailable} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			c := clientFunc(func(req *http.Request) (*http.Response, error) {
				_, _ = io.Copy(io.Discard, req.Body)
				body := &fillReader{prefix: `{"error":{"type":"x","reason":"`, n: 20 << 20, fill: 'e', suffix: `"},"status":` + strconv.Itoa(status) + `}`}
				return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(body)}, nil
			})
			core, logs := observer.New(zapcore.DebugLevel)
			ix, err := New(Config{
				Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core), IncludeSourceOnError: docappender.False,
				Retry: RetryConfig{Enabled: true, MaxRetries: 0, RetryOnStatus: []int{503}},
			})
			require.NoError(t, err)
			var sendErr error
			alloc := allocated(func() { _, sendErr = ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`)) })
			require.Error(t, sendErr)
			logged := 0
			for _, e := range logs.All() {
				enc, err := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()).EncodeEntry(e.Entry, e.Context)
				require.NoError(t, err)
				logged = max(logged, enc.Len())
			}
			t.Logf("error of %d bytes, longest log line %d bytes, %d bytes allocated", len(sendErr.Error()), logged, alloc)
			assert.Less(t, len(sendErr.Error()), esclient.MaxReason+300)
			assert.Less(t, logged, 2*esclient.MaxReason+1000)
			assert.Less(t, alloc, uint64(4<<20))
		})
	}
}

// A 5 MB reason of one document was logged and dead-lettered in full; now esclient.MaxReason bytes of it
// are kept. The response (about 5 MB for 1,000 documents) is within ResponseLimit and read.
func TestLongItemReasonBounded(t *testing.T) {
	const docs = 1000
	reason := strings.Repeat("r", 5<<20)
	c := &deadLetterSink{first: func() (*http.Response, error) {
		items := make([]string, docs)
		for i := range items {
			items[i] = itemCreated
		}
		items[7] = `{"create":{"_index":"i","status":400,"error":{"type":"document_parsing_exception","reason":"` + reason + `"}}}`
		return answerItems(items...)
	}}
	core, logs := observer.New(zapcore.DebugLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 5_000_000, DeadLetterIndex: "dlq", IncludeSourceOnError: docappender.False,
		Logger: zap.New(core), LogFailedDocsInput: true,
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), logDocs(docs))
	require.NoError(t, err)
	require.Equal(t, Result{Indexed: docs - 1, Rejected: 1, DeadLettered: 1}, res)
	var letter fakees.DeadLetter
	require.NoError(t, json.Unmarshal([]byte(c.letters[0]), &letter))
	logged := 0
	for _, e := range logs.All() {
		enc, err := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()).EncodeEntry(e.Entry, e.Context)
		require.NoError(t, err)
		logged = max(logged, enc.Len())
	}
	t.Logf("dead letter reason %d bytes, longest log line %d bytes (of %d lines)", len(letter.Error.Reason), logged, len(logs.All()))
	assert.Len(t, letter.Error.Reason, esclient.MaxReason)
	assert.True(t, strings.HasSuffix(letter.Error.Reason, esclient.TruncatedMarker))
	assert.Less(t, logged, 2*esclient.MaxReason+1000)
	require.NotEmpty(t, logs.FilterMessage("Document rejected").All())
	require.NotEmpty(t, logs.FilterMessage("Documents not indexed").All())
}

// A 256 MB answer of 200 to a 3-document request took 555 MB, outside the
// in-flight cap; now it is refused once ResponseLimit(3) bytes are read, and its documents,
// whose outcome is unknown, are dropped and dead-lettered like those of a response that does
// not match its request. With a Content-Length, nothing of it is read.
func TestHugeResponseRefused(t *testing.T) {
	for _, withLength := range []bool{false, true} {
		t.Run(fmt.Sprintf("content-length %v", withLength), func(t *testing.T) {
			c := clientFunc(func(req *http.Request) (*http.Response, error) {
				_, _ = io.Copy(io.Discard, req.Body)
				body := &fillReader{
					prefix: `{"items":[` + itemCreated + `,` + itemCreated + `,{"create":{"_index":"i","status":400,"error":{"type":"x","reason":"`,
					n:      256 << 20, fill: 'z', suffix: `"}}}]}`,
				}
				resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(body), ContentLength: -1}
				if withLength {
					resp.ContentLength = body.Len()
				}
				return resp, nil
			})
			tb, tel := newTelemetry(t)
			budget := NewByteBudget(0)
			ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Telemetry: tb, Budget: budget})
			require.NoError(t, err)
			var (
				res     Result
				sendErr error
			)
			alloc := allocated(func() { res, sendErr = ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`, `{"n":2}`)) })
			t.Logf("%d bytes allocated; error: %v", alloc, sendErr)
			assert.Equal(t, Result{Dropped: 3}, res)
			require.ErrorContains(t, sendErr, "bulk response longer than "+strconv.Itoa(ResponseLimit(3))+" bytes for 3 documents")
			assert.True(t, consumererror.IsPermanent(sendErr), "their outcome is unknown: a resend could store them twice")
			assert.Equal(t, map[string]int64{"dropped response_too_large 200": 3}, docCounts(t, tel))
			assert.Equal(t, map[string]int64{"failed_server 200": 1}, requestCounts(t, tel))
			assert.Less(t, alloc, uint64(2<<20))
			assert.Zero(t, budget.Held(), "the response's bytes are given back")
		})
	}
}

// The bytes of a response count in the byte budget while it is read and decoded, and are given
// back once the request is done; a session does not keep a large buffer when pooled.
func TestResponseBytesCountInBudget(t *testing.T) {
	items := make([]string, 50_000)
	for i := range items {
		items[i] = itemRejected
	}
	answer := `{"items":[` + strings.Join(items, ",") + `]}`
	budget := NewByteBudget(0)
	c := &compactClient{next: okClient(answer), budget: budget, docs: len(items)}
	resp, err := c.Perform(httptest.NewRequest(http.MethodPost, "/_bulk", nil))
	require.NoError(t, err)
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.True(t, bytes.Equal([]byte(answer), out), "only failures: kept whole")
	held := budget.Held()
	assert.GreaterOrEqual(t, held, int64(2*len(answer)), "the response and its compacted copy")
	c.release()
	assert.Zero(t, budget.Held())
	assert.True(t, c.in == nil && c.out == nil, "larger than a pooled session keeps")
}

// An error body is read up to MaxErrorBody bytes; the rest is not read.
func TestErrorBodyReadUpToMaxErrorBody(t *testing.T) {
	body := &fillReader{n: 10 << 20, fill: 'x'}
	c := &compactClient{next: clientFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusBadGateway, Header: http.Header{}, Body: io.NopCloser(body)}, nil
	})}
	resp, err := c.Perform(httptest.NewRequest(http.MethodPost, "/_bulk", nil))
	require.NoError(t, err)
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Len(t, out, MaxErrorBody)
	assert.LessOrEqual(t, body.pos, int64(MaxErrorBody))
}

func TestResponseLimit(t *testing.T) {
	assert.Equal(t, 64<<10+3*8<<10, ResponseLimit(3))
	assert.Equal(t, 64<<10+5000*8<<10, ResponseLimit(5000))
	assert.Equal(t, MaxResponseBytes, ResponseLimit(1_000_000))
	assert.Equal(t, MaxResponseBytes, ResponseLimit(1<<40))
}
