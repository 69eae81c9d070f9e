// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// A push that gives up waiting for a request slot leaves nothing behind in its session's bulk
// indexer: docappender would send those documents with the session's next request, whose
// answer would then not match what it sent.
func TestGivingUpWaitingForSlotDropsAddedDocuments(t *testing.T) {
	c := &recordingClient{t: t}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Concurrency: ConcurrencyConfig{Max: 1}})
	require.NoError(t, err)
	require.NoError(t, ix.requests.acquire(context.Background())) // the only slot is taken
	var b Batch
	b.Buf = append(b.Buf, `{"n":1}`...)
	b.Add(0, Item{Index: "logs-a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := ix.Send(ctx, &b)
	require.Error(t, err)
	assert.Equal(t, 1, res.Dropped)
	ix.requests.release(time.Now(), 0, 0, false, false)

	// The next push, most likely on the same pooled session, sends its own document only.
	b.Reset()
	b.Buf = append(b.Buf, `{"n":2}`...)
	b.Add(0, Item{Index: "logs-a"})
	res, err = ix.Send(context.Background(), &b)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Indexed)
	require.Len(t, c.requests, 1)
	assert.Equal(t, []string{`{"create":{"_index":"logs-a"}}`, `{"n":2}`}, c.requests[0].lines)
}

// The wait a server asks for with Retry-After on a 429 or 503 reaches the flush that sent the
// request, through the session's client; other answers ask for none.
func TestFlushReturnsRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter string
		want       time.Duration
	}{
		{name: "429", status: http.StatusTooManyRequests, retryAfter: "7", want: 7 * time.Second},
		{name: "503", status: http.StatusServiceUnavailable, retryAfter: "2", want: 2 * time.Second},
		{name: "503 without header", status: http.StatusServiceUnavailable},
		{name: "502 ignores it", status: http.StatusBadGateway, retryAfter: "7"},
		{name: "capped", status: http.StatusTooManyRequests, retryAfter: "3600", want: maxRetryAfter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := clientFunc(func(req *http.Request) (*http.Response, error) {
				_, _ = io.Copy(io.Discard, req.Body)
				resp, err := answerStatus(tt.status)
				resp.Header.Set("Retry-After", tt.retryAfter)
				return resp, err
			})
			ix, err := New(Config{Client: client, MaxBulkBytes: 1 << 20})
			require.NoError(t, err)
			s := ix.getSession()
			defer ix.putSession(s)
			res := ix.flush(context.Background(), s, batchOf(`{"n":0}`), []int{0})
			require.Error(t, res.err)
			assert.Equal(t, tt.status, res.status)
			assert.Equal(t, tt.want, res.retryAfter)
		})
	}
}

// A request sent counts its compressed and uncompressed bytes, and teaches the Indexer the
// compression ratio that RequestBufferBytes uses.
func TestFlushCountsBytes(t *testing.T) {
	var sent int64
	client := clientFunc(func(req *http.Request) (*http.Response, error) {
		sent, _ = io.Copy(io.Discard, req.Body)
		return answerItems(itemCreated, itemCreated)
	})
	tb, tel := newTelemetry(t)
	ix, err := New(Config{Client: client, CompressionLevel: 1, MaxBulkBytes: 1 << 20, Telemetry: tb})
	require.NoError(t, err)
	doc := `{"message":"` + strings.Repeat("compressible ", 100) + `"}`
	b := batchOf(doc, doc)
	res, err := ix.Send(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, Result{Indexed: 2}, res)

	uncompressed := int64(2 * (len(`{"create":{"_index":"logs-a"}}`) + 1 + len(doc) + 1))
	assert.Equal(t, map[string]int64{"": sent}, countertest.SumBy(t, tel, "otelcol.elasticsearch.flushed.bytes"))
	assert.Equal(t, map[string]int64{"": uncompressed}, countertest.SumBy(t, tel, "otelcol.elasticsearch.flushed.uncompressed_bytes"))
	assert.Less(t, sent, uncompressed/4, "gzip")
	assert.Equal(t, int(sent*1000/uncompressed), ix.RequestBufferBytes(1000)-1000-compressorBytes,
		"compressed like the last request, plus its piece and the compressor")
}

// A session, with its response buffers, outlives garbage collections between Sends (a
// sync.Pool would lose it); the free list keeps at most IdleSessions of them, each cleared, and
// the request body of a Send's request is kept for the next request, not in the session.
func TestSessionsKeptAcrossCollections(t *testing.T) {
	ix, err := New(Config{Client: okClient(`{"items":[` + itemCreated + `]}`), CompressionLevel: 1, MaxBulkBytes: 1 << 20, IdleSessions: 2})
	require.NoError(t, err)
	s := ix.getSession()
	ix.putSession(s)
	runtime.GC()
	runtime.GC()
	runtime.GC()
	again := ix.getSession()
	assert.Same(t, s, again)

	res, err := ix.Send(context.Background(), batchOf(`{"n":1}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1}, res)
	ix.putSession(again)
	assert.Equal(t, 1, ix.bodies.Len(), "the request body is given back with its answer, and kept")
	assert.Zero(t, again.result, "cleared")
	assert.Empty(t, again.chunk)
	assert.Empty(t, again.req.chunks)

	var held []*session
	for range 3 {
		s := ix.getSession()
		held = append(held, s)
	}
	for _, s := range held {
		ix.putSession(s)
	}
	assert.Equal(t, 2, ix.sessions.Len(), "at most IdleSessions are kept")
}
