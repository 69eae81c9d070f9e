// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// A graceful shutdown with a healthy server loses nothing: the records still in the sending
// queue's batcher are sent once while the queue drains.
func TestShutdownDrainSendsRemainingBatch(t *testing.T) {
	srv := fakees.New(t)
	exp, tel := queuedLogs(t, srv, time.Hour) // held in the batcher until shutdown
	require.NoError(t, exp.Shutdown(context.Background()))
	assert.Len(t, srv.Accepted(), 50)
	assert.Equal(t, int64(50), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")))
}

// A request in flight when shutdown begins is answered and counted, not canceled.
func TestShutdownLetsRequestsInFlightFinish(t *testing.T) {
	srv := fakees.New(t)
	srv.SetFaults(fakees.Faults{SlowResponse: 500 * time.Millisecond})
	exp, tel := queuedLogs(t, srv, 10*time.Millisecond)
	require.Eventually(t, func() bool { return srv.Requests() >= 1 }, 10*time.Second, time.Millisecond, "a request in flight")
	require.NoError(t, exp.Shutdown(context.Background()))
	assert.Len(t, srv.Accepted(), 50)
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")))
}

// When the shutdown's context ends before the drain, as when a server hangs, the requests in
// flight are canceled: shutdown ends, and what was not sent is counted as dropped.
func TestShutdownDeadlineCancelsRequestsInFlight(t *testing.T) {
	srv := fakees.New(t)
	srv.SetFaults(fakees.Faults{SlowResponse: time.Hour})
	exp, tel := queuedLogs(t, srv, 10*time.Millisecond)
	require.Eventually(t, func() bool { return srv.Requests() >= 1 }, 10*time.Second, time.Millisecond, "a request in flight")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_ = exp.Shutdown(ctx) // exporterhelper may report the deadline
	assert.Less(t, time.Since(start), 5*time.Second, "shutdown does not wait for the hung request")
	assert.Empty(t, srv.Accepted())
	assert.Eventually(t, func() bool {
		return countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")) == 50
	}, 5*time.Second, 10*time.Millisecond)
}

// A traces push that gives up waiting for room under the in-flight byte cap counts its span
// events with its spans: each is a document of its own.
func TestWaitGivenUpCountsSpanEvents(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	cfg := newTestConfig(srv.URL)
	cfg.FlowControl.MaxInflightBytes = 1
	cfg.Retry.MaxRetries = -1
	f := NewFactory()
	logsExp, err := f.CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, logsExp)
	tracesExp, err := f.CreateTraces(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, tracesExp)

	// A logs push holds the whole cap through an outage.
	srv.StartOutage(time.Hour)
	first := make(chan error, 1)
	go func() { first <- logsExp.ConsumeLogs(context.Background(), testLogs(3)) }()
	require.Eventually(t, func() bool { return countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes") > 0 },
		10*time.Second, time.Millisecond)

	td := ptrace.NewTraces()
	span := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.SetName("op")
	span.Events().AppendEmpty().SetName("e1")
	span.Events().AppendEmpty().SetName("e2")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	require.Error(t, tracesExp.ConsumeTraces(ctx, td))
	assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("retryable"), attribute.String("error.type", "inflight_bytes_wait")),
		"one span and two span events")
	srv.StartOutage(0)
	require.NoError(t, <-first)
}

// With a persistent queue, a graceful shutdown during an outage hands the batch being retried
// back to the queue, which keeps it: after the restart it is sent. Its records are counted as
// retryable (error.type shutdown), not dropped, and no dead letter is written for them.
func TestPersistentQueueKeepsBatchGivenUpAtShutdown(t *testing.T) {
	srv := fakees.New(t)
	cfg, host := queuedConfig(srv.URL, 10*time.Millisecond)
	cfg.Retry.MaxRetries = -1
	cfg.DeadLetter.Enabled = true
	set, tel := withTelemetry(t)
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(core)
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), host))
	srv.StartOutage(time.Hour)
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(5)))
	require.Eventually(t, func() bool { return srv.Stats().OutageAnswers >= 2 }, 10*time.Second, 5*time.Millisecond, "retrying")
	require.NoError(t, exp.Shutdown(context.Background()))
	assert.Equal(t, int64(5), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("retryable"), attribute.String("error.type", "shutdown")))
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")))
	assert.Empty(t, logs.FilterMessageSnippet(exportFailedDropping).All(), "nothing was dropped")
	kept := logs.FilterMessage(handedBackMessage).All()
	require.Len(t, kept, 1, "exporterhelper's line says the queue keeps the batch")
	assert.Equal(t, zapcore.InfoLevel, kept[0].Level)
	assert.Equal(t, int64(5), kept[0].ContextMap()["items"])

	srv.StartOutage(0)
	restarted := *cfg // a new *Config: a new shared instance, as after a restart
	exp2, err := NewFactory().CreateLogs(context.Background(), testSettings(), &restarted)
	require.NoError(t, err)
	require.NoError(t, exp2.Start(context.Background(), host))
	defer func() { require.NoError(t, exp2.Shutdown(context.Background())) }()
	require.Eventually(t, func() bool { return len(srv.Accepted()) == 5 }, 10*time.Second, 10*time.Millisecond,
		"the kept batch is sent after the restart")
	for _, it := range srv.Accepted() {
		assert.NotEqual(t, "otel-dead-letters", it.Index(), "no dead letter for a batch handed back")
	}
}
