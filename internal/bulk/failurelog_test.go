// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// A Send with failed documents logs one Warn line that groups them by outcome, status, error
// type and index; a 409 on a content-derived id is an expected duplicate and is not in it.
func TestFailureLogLine(t *testing.T) {
	c := &scriptedClient{answer: func(int) (*http.Response, error) {
		return answerItems(itemRejected, itemRejected, itemConflict, itemConflict, itemCreated)
	}}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core),
		IncludeSourceOnError: docappender.False, // error reasons are kept (see docappender)
	})
	require.NoError(t, err)
	b := batchOf(`{"n":0}`, `{"n":1}`)
	for _, it := range []Item{{Index: "d", DocumentID: "mine"}, {Index: "d", DocumentID: "derived", DerivedID: true}, {Index: "logs-a"}} {
		start := len(b.Buf)
		b.Buf = append(b.Buf, `{"n":2}`...)
		b.Add(start, it)
	}
	res, err := ix.Send(context.Background(), b)
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1, Rejected: 2, Duplicate: 2}, res)

	lines := logs.All()
	require.Len(t, lines, 1)
	assert.Equal(t, zapcore.WarnLevel, lines[0].Level)
	assert.Equal(t, "Documents not indexed", lines[0].Message)
	assert.Equal(t, map[string]any{
		"failures": "2 rejected (400 mapper_parsing_exception: x) in i; 1 duplicate (409 version_conflict_engine_exception: x) in d",
		"indexed":  int64(1), "rejected": int64(2), "duplicate": int64(2), "dropped": int64(0),
	}, lines[0].ContextMap())
}

// A metric document's failure is logged with the metrics of the first document of its entry,
// the paths of its dynamic templates (at most maxLoggedFields of them): a duplicate or an
// out-of-window rejection then says which metric it was.
func TestFailureLogNamesMetrics(t *testing.T) {
	c := &scriptedClient{answer: func(int) (*http.Response, error) {
		return answerItems(itemRejected, itemRejected, itemConflict, itemCreated)
	}}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core),
		IncludeSourceOnError: docappender.False,
	})
	require.NoError(t, err)
	var b Batch
	add := func(it Item, paths ...string) {
		for _, p := range paths {
			b.AddTemplate(p, "gauge_double")
		}
		start := len(b.Buf)
		b.Buf = append(b.Buf, `{"n":0}`...)
		b.Add(start, it)
	}
	many := make([]string, maxLoggedFields+2)
	for i := range many {
		many[i] = "metrics.m" + strconv.Itoa(i)
	}
	add(Item{Index: "i"}, many...)
	add(Item{Index: "i"}, "metrics.other") // same entry: only the first document is named
	add(Item{Index: "d"}, "metrics.g.repeated")
	add(Item{Index: "logs"}) // no templates
	_, err = ix.Send(context.Background(), &b)
	require.NoError(t, err)
	lines := logs.FilterMessage("Documents not indexed").All()
	require.Len(t, lines, 1)
	assert.Equal(t, "2 rejected (400 mapper_parsing_exception: x) in i, first document's metrics: "+
		"metrics.m0, metrics.m1, metrics.m2, metrics.m3, metrics.m4, metrics.m5, metrics.m6, metrics.m7 and 2 more; "+
		"1 duplicate (409 version_conflict_engine_exception: x) in d, first document's metrics: metrics.g.repeated",
		lines[0].ContextMap()["failures"])
}

// Retryable failures are in the line too, and a Send without failures logs nothing.
func TestFailureLogRetryable(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		if n == 0 {
			return answerItems(itemBusy, itemCreated)
		}
		return answerItems(itemCreated)
	}}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core),
		Retry: RetryConfig{Enabled: true, MaxRetries: 1, InitialInterval: 1},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 2}, res)
	lines := logs.FilterMessage("Documents not indexed").All()
	require.Len(t, lines, 1)
	assert.Equal(t, "1 retryable (503 unavailable_shards_exception) in i", lines[0].ContextMap()["failures"],
		"the reason is left out unless include_source_on_error is false")

	_, err = ix.Send(context.Background(), batchOf(`{"n":2}`))
	require.NoError(t, err)
	assert.Equal(t, 1, logs.Len(), "nothing failed, nothing logged")
}

// The line is rate-limited per Indexer; the next line allowed tells how many were held back.
func TestFailureLogRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &scriptedClient{answer: func(int) (*http.Response, error) { return answerItems(itemRejected) }}
		core, logs := observer.New(zapcore.InfoLevel)
		ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core), LogRateLimit: time.Hour})
		require.NoError(t, err)
		for range 4 {
			_, err = ix.Send(context.Background(), batchOf(`{"n":0}`))
			require.NoError(t, err)
		}
		require.Equal(t, 1, logs.Len())
		assert.NotContains(t, logs.All()[0].ContextMap(), "suppressed_log_lines")

		time.Sleep(2 * time.Hour) // the period is over, on the bubble's clock
		_, err = ix.Send(context.Background(), batchOf(`{"n":0}`))
		require.NoError(t, err)
		require.Equal(t, 2, logs.Len())
		assert.Equal(t, int64(3), logs.All()[1].ContextMap()["suppressed_log_lines"])
	})
}

// With LogFailedDocsInput, each document rejected for good is logged with its source, under
// the same rate limit, kept apart from that of the summary line.
func TestLogFailedDocsInput(t *testing.T) {
	c := &scriptedClient{answer: func(int) (*http.Response, error) { return answerItems(itemRejected, itemRejected) }}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core), LogRateLimit: time.Hour, LogFailedDocsInput: true,
	})
	require.NoError(t, err)
	_, err = ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	require.NoError(t, err)
	docs := logs.FilterMessage("Document rejected").All()
	require.Len(t, docs, 1, "the second is held back by the rate limit")
	assert.Equal(t, map[string]any{
		"index": "i", "status": int64(400), "error.type": "mapper_parsing_exception", "error.reason": "",
		"document": `{"n":0}`, "suppressed_log_lines": int64(0),
	}, docs[0].ContextMap())
	assert.Equal(t, 1, logs.FilterMessage("Documents not indexed").Len())
}

// The summary holds at most maxFailureEntries groups; further documents of a group are
// counted in it.
func TestFailureSummary(t *testing.T) {
	var f failureSummary
	for i := range maxFailureEntries + 4 {
		f.add(OutcomeRejected, 400, "e", "reason "+strconv.Itoa(i), "index-"+strconv.Itoa(i))
	}
	f.add(OutcomeRejected, 400, "e", "another reason", "index-0")
	f.add(OutcomeRetryable, 400, "e", "", "index-0")
	require.Len(t, f.entries, maxFailureEntries)
	assert.Equal(t, failureEntry{outcome: OutcomeRejected, errorType: "e", reason: "reason 0", index: "index-0", status: 400, count: 2}, f.entries[0],
		"grouped by outcome, status, error type and index; the first reason is kept")
	f.reset()
	assert.Empty(t, f.entries)
}

// Documents written to the failure store get one Warn line that names their data stream and
// where the reason is, and a fate of their own; the push succeeds.
func TestFailureStoreLogLine(t *testing.T) {
	c := &scriptedClient{answer: func(int) (*http.Response, error) {
		return answerItems(itemStored, itemStored, itemCreated)
	}}
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core)})
	require.NoError(t, err)
	b := &Batch{}
	for _, index := range []string{"logs-app.otel-default", "logs-app.otel-default", "logs-other.otel-default"} {
		start := len(b.Buf)
		b.Buf = append(b.Buf, `{"n":0}`...)
		b.Add(start, Item{Index: index})
	}
	res, err := ix.Send(context.Background(), b)
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 3, FailureStore: 2}, res)

	lines := logs.FilterMessageSnippet("failure store").All()
	require.Len(t, lines, 1)
	assert.Equal(t, zapcore.WarnLevel, lines[0].Level)
	assert.Contains(t, lines[0].Message, "search logs-app.otel-default::failures")
	assert.Equal(t, map[string]any{
		"documents": int64(2), "data_stream": "logs-app.otel-default", "suppressed_log_lines": int64(0),
	}, lines[0].ContextMap())
}
