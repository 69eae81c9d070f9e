// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pushbench

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/cputime"
	"github.com/otelcol-es/elasticsearchexporter/internal/profilecache"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

var benchmarkSizes = []int{10, 100, 1000, 10000}

// The corpora of the push benchmarks: the realistic records at every size, the uniform ones,
// the best case, at 1,000 records.
const (
	corpusRealistic = "realistic"
	corpusUniform   = "uniform"
)

var (
	benchmarkLogsStream   = serializer.DataStream{Type: "logs", Dataset: "generic", Namespace: "default"}
	benchmarkTracesStream = serializer.DataStream{Type: "traces", Dataset: "generic", Namespace: "default"}
)

var benchmarkSignals = []benchmarkSignal{
	{
		name:      "logs",
		data:      func(n int) any { return benchmarkLogs(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Logs(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateLogs(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeLogs(context.Context, plog.Logs) error
			}).ConsumeLogs(ctx, data.(plog.Logs))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			for _, rl := range data.(plog.Logs).ResourceLogs().All() {
				e.SetResource(rl.Resource(), rl.SchemaUrl())
				for _, sl := range rl.ScopeLogs().All() {
					e.SetScope(sl.Scope(), sl.SchemaUrl())
					for _, r := range sl.LogRecords().All() {
						buf = e.AppendLog(buf, r, benchmarkLogsStream)
					}
				}
			}
			return buf
		},
		otlpJSON:       func(data any) ([]byte, error) { return (&plog.JSONMarshaler{}).MarshalLogs(data.(plog.Logs)) },
		otlpProto:      func(data any) ([]byte, error) { return (&plog.ProtoMarshaler{}).MarshalLogs(data.(plog.Logs)) },
		docBytes:       375,
		realisticBytes: 1300,
	},
	{
		name:      "spans",
		data:      func(n int) any { return benchmarkTraces(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Traces(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateTraces(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeTraces(context.Context, ptrace.Traces) error
			}).ConsumeTraces(ctx, data.(ptrace.Traces))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			for _, rs := range data.(ptrace.Traces).ResourceSpans().All() {
				e.SetResource(rs.Resource(), rs.SchemaUrl())
				for _, ss := range rs.ScopeSpans().All() {
					e.SetScope(ss.Scope(), ss.SchemaUrl())
					for _, s := range ss.Spans().All() {
						buf = e.AppendSpan(buf, s, benchmarkTracesStream)
					}
				}
			}
			return buf
		},
		otlpJSON:       func(data any) ([]byte, error) { return (&ptrace.JSONMarshaler{}).MarshalTraces(data.(ptrace.Traces)) },
		otlpProto:      func(data any) ([]byte, error) { return (&ptrace.ProtoMarshaler{}).MarshalTraces(data.(ptrace.Traces)) },
		docBytes:       375,
		realisticBytes: 1200,
	},
	{
		name:      "metrics",
		data:      func(n int) any { return benchmarkMetrics(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Metrics(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateMetrics(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeMetrics(context.Context, pmetric.Metrics) error
			}).ConsumeMetrics(ctx, data.(pmetric.Metrics))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			buf, _ = benchdata.AppendMetrics(e, buf, data.(pmetric.Metrics), benchmarkMetricIndex, benchmarkMetricStream, nil)
			return buf
		},
		otlpJSON: func(data any) ([]byte, error) {
			return (&pmetric.JSONMarshaler{}).MarshalMetrics(data.(pmetric.Metrics))
		},
		otlpProto: func(data any) ([]byte, error) {
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(data.(pmetric.Metrics))
		},
		docBytes:       375,
		realisticBytes: 1050,
	},
	{
		// One profile of n samples, each one event; its stacks, frames, executables and host
		// are written by the first push only, as in a steady stream (the serializer's runs
		// likewise remember what they wrote).
		name: "profiles",
		data: func(n int) any { return benchdata.Profiles(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().(xexporter.Factory).CreateProfiles(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeProfiles(context.Context, pprofile.Profiles) error
			}).ConsumeProfiles(ctx, data.(pprofile.Profiles))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			pd := data.(pprofile.Profiles)
			seen := benchmarkProfilesSeen(e)
			for _, rp := range pd.ResourceProfiles().All() {
				e.SetResource(rp.Resource(), rp.SchemaUrl())
				for _, sp := range rp.ScopeProfiles().All() {
					e.SetScope(sp.Scope(), sp.SchemaUrl())
					for _, p := range sp.Profiles().All() {
						buf = appendProfile(e, buf, pd.Dictionary(), p, seen)
					}
				}
			}
			return buf
		},
		otlpJSON: func(data any) ([]byte, error) {
			return (&pprofile.JSONMarshaler{}).MarshalProfiles(data.(pprofile.Profiles))
		},
		otlpProto: func(data any) ([]byte, error) {
			return (&pprofile.ProtoMarshaler{}).MarshalProfiles(data.(pprofile.Profiles))
		},
		docBytes: 200,
	},
}

// benchmarkProfilesSeen returns the record of profiling documents written by encoder e's
// benchmark runs: each encoder has its own, so that its first run writes every document.
var benchmarkProfilesSeen = func() func(e *serializer.Encoder) *profilecache.Cache {
	var mu sync.Mutex
	caches := map[*serializer.Encoder]*profilecache.Cache{}
	return func(e *serializer.Encoder) *profilecache.Cache {
		mu.Lock()
		defer mu.Unlock()
		c, ok := caches[e]
		if !ok {
			c = profilecache.New(profilecache.Defaults())
			caches[e] = c
		}
		return c
	}
}()

// BenchmarkPush measures, per signal and number of records per push, the whole push path of the
// factory-built exporter (impl=push: encoding, gzip at level 1, the HTTP round trip to a
// loopback sink in a process of its own, reading the bulk response), and in the same run, on
// the same data, the
// serializer alone into a reused buffer (impl=serializer), gzip at level 1 alone over the
// request bodies the push sends (impl=gzip: action lines and documents, one pass per request,
// as the push compresses them) and pdata's OTLP JSON and OTLP protobuf marshalers
// (impl=otlpjson, impl=otlpproto). events/s counts records (log records,
// spans, data points) per second; cpu-ns/event is the benchmark process's CPU time per record,
// which leaves out the sink's (processSink), so that push, serializer and gzip compare like
// with like. internal/lab/cmd/benchtable turns the output into ratios of cpu-ns/event.
func BenchmarkPush(b *testing.B) { benchmarkPush(b, false) }

// BenchmarkPushParallel is BenchmarkPush with b.RunParallel: GOMAXPROCS goroutines push
// concurrently to one exporter, as the sending queue's consumers do. `make bench` runs it with
// GOMAXPROCS=2 (-cpu 2).
func BenchmarkPushParallel(b *testing.B) { benchmarkPush(b, true) }

func benchmarkPush(b *testing.B, parallel bool) {
	b.Helper()
	sink := sync.OnceValue(func() string { return processSink(b) })
	for _, sig := range benchmarkSignals {
		for _, n := range benchmarkSizes {
			for _, corpus := range benchmarkCorpora(sig, n) {
				benchmarkPushOf(b, parallel, sink, sig, corpus, n)
			}
		}
	}
}

// benchmarkPushOf runs the implementations of one signal, corpus and size of push.
func benchmarkPushOf(b *testing.B, parallel bool, sink func() string, sig benchmarkSignal, corpus string, n int) {
	b.Helper()
	data := benchmarkData(sig, corpus, n)
	size := int64(len(sig.encode(new(serializer.Encoder), nil, data)))
	run := func(b *testing.B, op func() func() error) {
		b.Helper()
		b.ReportAllocs()
		b.SetBytes(size)
		cpu0, cpuOK := cputime.Process()
		if parallel {
			b.RunParallel(func(pb *testing.PB) {
				do := op()
				for pb.Next() {
					if err := do(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		} else {
			do := op()
			for b.Loop() {
				if err := do(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		if cpu1, ok := cputime.Process(); ok && cpuOK {
			// CPU time of the process (the sink runs in another) per record: unlike
			// events/s, it hardly moves when other jobs share the machine.
			b.ReportMetric(float64(cpu1-cpu0)/float64(n)/float64(b.N), "cpu-ns/event")
		}
	}
	prefix := "signal=" + sig.name + "/corpus=" + corpus + "/records=" + strconv.Itoa(n)
	b.Run(prefix+"/impl=push", func(b *testing.B) {
		exp := sig.create(b, sink())
		// A context with a Done channel, as the sending queue gives: a background
		// context would let every select on it take a shortcut.
		ctx := b.Context()
		run(b, func() func() error {
			return func() error { return sig.push(ctx, exp, data) }
		})
	})
	b.Run(prefix+"/impl=serializer", func(b *testing.B) {
		run(b, func() func() error {
			var e serializer.Encoder
			buf := sig.encode(&e, nil, data)
			return func() error {
				buf = sig.encode(&e, buf[:0], data)
				return nil
			}
		})
	})
	b.Run(prefix+"/impl=gzip", func(b *testing.B) {
		bodies := requestBodies(b, sig, data)
		run(b, func() func() error {
			var out bytes.Buffer
			zw, err := gzip.NewWriterLevel(&out, 1)
			return func() error {
				if err != nil {
					return err
				}
				for _, body := range bodies {
					out.Reset()
					zw.Reset(&out)
					if _, err := zw.Write(body); err != nil {
						return err
					}
					if err := zw.Close(); err != nil {
						return err
					}
				}
				return nil
			}
		})
	})
	b.Run(prefix+"/impl=otlpjson", func(b *testing.B) {
		run(b, func() func() error {
			return func() error {
				_, err := sig.otlpJSON(data)
				return err
			}
		})
	})
	b.Run(prefix+"/impl=otlpproto", func(b *testing.B) {
		run(b, func() func() error {
			return func() error {
				_, err := sig.otlpProto(data)
				return err
			}
		})
	})
}

// TestBenchmarkData keeps the push benchmarks honest: each signal's data of each corpus reaches
// the sink as documents of the intended size, and every push succeeds.
func TestBenchmarkData(t *testing.T) {
	for _, sig := range benchmarkSignals {
		for _, corpus := range benchmarkCorpora(sig, 1000) {
			t.Run(sig.name+"/"+corpus, func(t *testing.T) {
				data := benchmarkData(sig, corpus, 100)
				want, delta := sig.docBytes, 75.0
				if corpus == corpusRealistic {
					want, delta = sig.realisticBytes, 200
				}
				size := len(sig.encode(new(serializer.Encoder), nil, data))
				perDoc := size / 100
				t.Logf("%s, %s: %d bytes per document", sig.name, corpus, perDoc)
				require.InDelta(t, want, perDoc, delta, "documents should be records of about %d bytes", want)
				exp := sig.create(t, bulkSink(t))
				require.NoError(t, sig.push(context.Background(), exp, data))
			})
		}
	}
}
