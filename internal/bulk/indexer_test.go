// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"io"
	"net/http"
	"strconv"
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

func TestNewNeedsAClient(t *testing.T) {
	_, err := New(Config{})
	require.EqualError(t, err, "bulk: no client")
}

// include_source_on_error follows SetIncludeSourceOnError from the next request on.
func TestSetIncludeSourceOnError(t *testing.T) {
	c := &recordingClient{t: t}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20})
	require.NoError(t, err)
	send := func() string {
		t.Helper()
		res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
		require.NoError(t, err)
		require.Equal(t, Result{Indexed: 1}, res)
		q := c.requests[len(c.requests)-1].query
		if !q.Has("include_source_on_error") {
			return "unset"
		}
		return q.Get("include_source_on_error")
	}
	assert.Equal(t, "unset", send())
	ix.SetIncludeSourceOnError(docappender.False)
	assert.Equal(t, "false", send(), "a pooled session of the older settings is not used again")
	assert.Equal(t, "false", send())
	ix.SetIncludeSourceOnError(docappender.True)
	assert.Equal(t, "true", send())
}

// At Stop, a Send waiting to retry gives up at once: its documents are dropped (no hand-back
// asked), the error is retryable and says the exporter is shutting down, and so does the log
// line: the retries were not exhausted.
func TestStopEndsRetries(t *testing.T) {
	started := make(chan struct{})
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		if n == 0 {
			close(started)
		}
		return answerStatus(http.StatusServiceUnavailable)
	}}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core),
		Retry: RetryConfig{Enabled: true, MaxRetries: -1, InitialInterval: time.Hour, MaxInterval: time.Hour, RetryOnStatus: []int{503}},
	})
	require.NoError(t, err)
	go func() {
		<-started
		ix.Stop()
	}()
	start := time.Now()
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	assert.Less(t, time.Since(start), time.Minute, "the wait of an hour ended at Stop")
	assert.Equal(t, Result{Dropped: 2}, res)
	assert.Equal(t, 1, c.n)
	require.ErrorIs(t, err, errStopped)
	assert.False(t, consumererror.IsPermanent(err))
	assert.Contains(t, err.Error(), "2 documents not sent: the exporter is shutting down: bulk request answered HTTP 503")
	dropped := logs.FilterMessage("Dropping documents: the exporter is shutting down").All()
	require.Len(t, dropped, 1)
	assert.Equal(t, int64(2), dropped[0].ContextMap()["documents"])
	assert.Empty(t, logs.FilterMessageSnippet("retries exhausted").All())

	// A Send after Stop makes one attempt.
	res, err = ix.Send(context.Background(), batchOf(`{"n":2}`))
	assert.Equal(t, Result{Dropped: 1}, res)
	assert.Equal(t, 2, c.n)
	require.ErrorIs(t, err, errStopped)
}

// Abort cancels the request in flight, and every later Send gives up at once: its one request
// has its context canceled.
func TestAbortCancelsRequestsInFlight(t *testing.T) {
	inFlight := make(chan struct{}, 1)
	requests := 0
	c := clientFunc(func(req *http.Request) (*http.Response, error) {
		requests++
		inFlight <- struct{}{}
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Retry: RetryConfig{Enabled: true, MaxRetries: -1, InitialInterval: 1}})
	require.NoError(t, err)
	go func() {
		<-inFlight
		ix.Abort()
	}()
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
	assert.Equal(t, Result{Dropped: 1}, res)
	assert.Equal(t, 1, requests)
	require.ErrorIs(t, err, errStopped)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, consumererror.IsPermanent(err))

	res, err = ix.Send(context.Background(), batchOf(`{"n":1}`))
	assert.Equal(t, Result{Dropped: 1}, res)
	require.ErrorIs(t, err, errStopped)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, requests, "handed to the client with its context canceled: a transport fails it at once")
}

// Abort cancels every Send in flight, whichever order they started and ended in, and a Send
// that ended before Abort leaves nothing behind.
func TestAbortCancelsEverySendInFlight(t *testing.T) {
	const sends = 4
	inFlight := make(chan struct{}, sends)
	c := clientFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get("X-Elastic-Event-Count") == "2" {
			_, _ = io.Copy(io.Discard, req.Body)
			return answerItems(itemCreated, itemCreated) // the Send that ends before Abort
		}
		inFlight <- struct{}{}
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Concurrency: ConcurrencyConfig{Max: sends + 1}})
	require.NoError(t, err)
	errs := make(chan error, sends)
	for i := range sends {
		go func() {
			_, sendErr := ix.Send(context.Background(), batchOf(`{"n":`+strconv.Itoa(i)+`}`))
			errs <- sendErr
		}()
	}
	for range sends {
		<-inFlight
	}
	res, err := ix.Send(context.Background(), batchOf(`{"a":0}`, `{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 2}, res)
	ix.Abort()
	for range sends {
		require.ErrorIs(t, <-errs, context.Canceled)
	}
	ix.sends.mu.Lock()
	defer ix.sends.mu.Unlock()
	assert.Empty(t, ix.sends.running)
}
