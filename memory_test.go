// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// The race detector multiplies memory use, so this test runs without it: `make unit` runs it
// on its own, after the race run.

//go:build !race

package elasticsearchexporter

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

const (
	// memOutage is how long Elasticsearch is down while the load keeps coming.
	memOutage = 30 * time.Second
	// memQueueBytes is each signal's sending queue, in OTLP bytes.
	memQueueBytes = 8 << 20
	// memInflightBytes is flow_control::max_inflight_bytes.
	memInflightBytes = 16 << 20
	// memMargin covers what neither cap counts: the exporter's pools (bulk sessions with their
	// gzip writers, encoder states), the HTTP client and server, the telemetry SDK, the load
	// generators' batches being built, and garbage the GC has not returned to its pool yet.
	memMargin = 32 << 20
	// memRecordsPerPush is the size of each ConsumeX call of the load.
	memRecordsPerPush = 500
)

// heapBytes returns the bytes of live heap objects after a full collection.
func heapBytes() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// memLogs, memSpans and memMetrics build the load: records with a few attributes and a
// sequence number, each its own document.
func memLogs(seq int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "memory-test")
	rl.Resource().Attributes().PutStr("host.name", "host-1")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("memory")
	for i := range memRecordsPerPush {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq+i)))
		r.SetSeverityText("INFO")
		r.Body().SetStr(fmt.Sprintf("log record %d of the memory test, with some text to make it a realistic size", seq+i))
		r.Attributes().PutInt("seq", int64(seq+i))
		r.Attributes().PutStr("http.route", "/api/v1/items/{id}")
	}
	return ld
}

func memSpans(seq int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "memory-test")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("memory")
	for i := range memRecordsPerPush {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("GET /api/v1/items/{id}")
		sp.SetTraceID(pcommon.TraceID{1, byte(i), byte(i >> 8), byte(seq), byte(seq >> 8), byte(seq >> 16)})
		sp.SetSpanID(pcommon.SpanID{2, byte(i), byte(i >> 8), byte(seq), byte(seq >> 8), byte(seq >> 16)})
		sp.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq+i)))
		sp.SetEndTimestamp(pcommon.Timestamp(1_700_000_000_001_000_000 + int64(seq+i)))
		sp.Attributes().PutInt("seq", int64(seq+i))
	}
	return td
}

func memMetrics(seq int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "memory-test")
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("memory")
	m := sm.Metrics().AppendEmpty()
	m.SetName("memory.test.gauge")
	g := m.SetEmptyGauge()
	for i := range memRecordsPerPush {
		dp := g.DataPoints().AppendEmpty()
		// A timestamp of its own makes each point its own document.
		dp.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq+i)*1_000_000))
		dp.SetIntValue(int64(seq + i))
	}
	return md
}

// sharedExporterOf returns the exporter that the factory made for cfg.
func sharedExporterOf(t *testing.T, cfg *Config) *esExporter {
	t.Helper()
	sharedExporters.mu.Lock()
	defer sharedExporters.mu.Unlock()
	for k, s := range sharedExporters.entries {
		if k.cfg == cfg {
			return s.exp
		}
	}
	t.Fatal("no exporter for this configuration")
	return nil
}

// pdataSize returns the heap bytes per OTLP byte of the batches that build makes.
func pdataSize(build func(seq int) (any, int)) float64 {
	before := heapBytes()
	keep := make([]any, 0, 40)
	var proto int
	for i := range 40 {
		v, n := build(i * memRecordsPerPush)
		keep = append(keep, v)
		proto += n
	}
	after := heapBytes()
	runtime.KeepAlive(keep)
	return float64(after-before) / float64(proto)
}

// TestMemoryBound holds Elasticsearch down for 30 s while logs, metrics and traces keep coming
// into one exporter with its sending queues sized in bytes, and checks that the heap stays
// under what the queues (their pdata in memory) and the in-flight byte cap allow, plus a
// margin; then the server comes back and every document is delivered.
func TestMemoryBound(t *testing.T) {
	// The server keeps only the counts of what it accepts, so that its memory is not counted
	// as the exporter's.
	srv := fakees.New(t)
	srv.KeepNothing = true

	// The in-memory size of the load's pdata per OTLP byte, which is what the queues count,
	// per signal.
	pdataPerByte := [3]float64{
		pdataSize(func(seq int) (any, int) { ld := memLogs(seq); return ld, (&plog.ProtoMarshaler{}).LogsSize(ld) }),
		pdataSize(func(seq int) (any, int) {
			md := memMetrics(seq)
			return md, (&pmetric.ProtoMarshaler{}).MetricsSize(md)
		}),
		pdataSize(func(seq int) (any, int) { td := memSpans(seq); return td, (&ptrace.ProtoMarshaler{}).TracesSize(td) }),
	}
	var queued float64
	for _, f := range pdataPerByte {
		queued += f * memQueueBytes
	}

	cfg := defaultWith()
	cfg.Endpoints = []string{srv.URL}
	cfg.Retry.MaxRetries = -1
	cfg.Retry.InitialInterval = 10 * time.Millisecond
	cfg.Retry.MaxInterval = 500 * time.Millisecond
	cfg.FlowControl.MaxInflightBytes = memInflightBytes
	q := cfg.QueueBatchConfig.Get()
	q.Sizer = exporterhelper.RequestSizerTypeBytes
	q.QueueSize = memQueueBytes
	q.NumConsumers = 10
	q.BlockOnOverflow = true
	b := q.Batch.Get()
	b.MinSize = 512 << 10
	b.MaxSize = 1 << 20
	b.FlushTimeout = 50 * time.Millisecond
	require.NoError(t, cfg.Validate())

	set, tel := withTelemetry(t)
	f := NewFactory()
	ctx := context.Background()
	logExp, err := f.CreateLogs(ctx, set, cfg)
	require.NoError(t, err)
	metExp, err := f.CreateMetrics(ctx, set, cfg)
	require.NoError(t, err)
	trcExp, err := f.CreateTraces(ctx, set, cfg)
	require.NoError(t, err)
	host := componenttest.NewNopHost()
	require.NoError(t, logExp.Start(ctx, host))
	require.NoError(t, metExp.Start(ctx, host))
	require.NoError(t, trcExp.Start(ctx, host))
	shutdown := func() {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		assert.NoError(t, logExp.Shutdown(sctx))
		assert.NoError(t, metExp.Shutdown(sctx))
		assert.NoError(t, trcExp.Shutdown(sctx))
	}
	var shutOnce sync.Once
	t.Cleanup(func() { shutOnce.Do(shutdown) })

	baseline := heapBytes()
	limit := baseline + uint64(queued) + memInflightBytes + memMargin

	// The load: each signal pushes as fast as the pipeline takes it.
	srv.StartOutage(time.Hour)
	stop := make(chan struct{})
	var sent [3]atomic.Int64 // logs, metrics, traces records accepted by ConsumeX
	var wg sync.WaitGroup
	load := func(i int, consume func(seq int) error) {
		wg.Go(func() {
			for seq := 0; ; seq += memRecordsPerPush {
				select {
				case <-stop:
					return
				default:
				}
				if err := consume(seq); err != nil {
					t.Errorf("push: %v", err)
					return
				}
				sent[i].Add(memRecordsPerPush)
			}
		})
	}
	load(0, func(seq int) error { return logExp.ConsumeLogs(ctx, memLogs(seq)) })
	load(1, func(seq int) error { return metExp.ConsumeMetrics(ctx, memMetrics(seq)) })
	load(2, func(seq int) error { return trcExp.ConsumeTraces(ctx, memSpans(seq)) })

	exp := sharedExporterOf(t, cfg)
	var peak uint64
	var peakHeld int64
	began := time.Now()
	for time.Since(began) < memOutage {
		time.Sleep(500 * time.Millisecond)
		peak = max(peak, heapBytes())
		peakHeld = max(peakHeld, exp.budget.Held())
	}
	inflight := countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes")
	srv.EndOutage()
	close(stop)
	wg.Wait()

	want := map[string]int{"logs": int(sent[0].Load()), "metrics": int(sent[1].Load()), "traces": int(sent[2].Load())}
	require.Eventually(t, func() bool {
		got := perSignal(srv.AcceptedPerIndex())
		return got["logs"] == want["logs"] && got["metrics"] == want["metrics"] && got["traces"] == want["traces"]
	}, 2*time.Minute, 50*time.Millisecond, "every document is delivered after the outage")
	assert.Equal(t, want, perSignal(srv.AcceptedPerIndex()), "nothing is stored twice")
	t.Logf("delivered %s after the outage", time.Since(began)-memOutage)
	shutOnce.Do(shutdown)

	const mib = 1 << 20
	t.Logf("pdata in memory per OTLP byte: logs %.2f, metrics %.2f, traces %.2f; queues 3 × %d MiB (%.1f MiB of pdata), in-flight cap %d MiB, margin %d MiB",
		pdataPerByte[0], pdataPerByte[1], pdataPerByte[2], memQueueBytes/mib, queued/mib, memInflightBytes/mib, memMargin/mib)
	t.Logf("heap: baseline %.1f MiB, peak during the outage %.1f MiB, bound %.1f MiB; encoded bytes in flight at the end of the outage %.1f MiB",
		float64(baseline)/mib, float64(peak)/mib, float64(limit)/mib, float64(inflight)/mib)
	t.Logf("bytes held under the in-flight cap: at most %.1f MiB seen", float64(peakHeld)/mib)
	t.Logf("records pushed during the outage and delivered after it: %v", want)
	assert.LessOrEqual(t, peak, limit, "the heap stays under the queues, the in-flight cap and the margin")
	assert.Positive(t, want["logs"]+want["metrics"]+want["traces"])
}
