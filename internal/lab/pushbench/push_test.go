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
