// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"strconv"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

var metricBenchSizes = []int{10, 100, 1000, 10000}

func benchDataPoints(md pmetric.Metrics) int { return md.DataPointCount() }

// BenchmarkEncodeMetrics compares our documents with pdata's OTLP JSON of the same data points.
// Both report the bytes of our output per op, so MB/s and events/s (data points per second)
// compare alike. Each also reports the CPU time of the process per op (cpu-ns/op, garbage
// collection included), which varies far less than the wall time on a machine whose cores are
// shared with other jobs.
func BenchmarkEncodeMetrics(b *testing.B) {
	for _, n := range metricBenchSizes {
		md := benchMetrics(n)
		md.MarkReadOnly()
		points := benchDataPoints(md)
		b.Run("points="+strconv.Itoa(n), func(b *testing.B) {
			var e Encoder
			var sink countingSink
			var buf []byte
			encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
			size := int64(len(buf))
			b.Run("impl=ours", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(size)
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					buf = buf[:0]
					encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
				}
				reportCPUTime(b, cpu, cpuOK)
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
			// The same data points in the ecs mapping mode, with the bytes of its own output.
			b.Run("impl=ours-ecs", func(b *testing.B) {
				var ecs Encoder
				ecs.SetMode(ModeECS)
				var ecsBuf []byte
				encodeMetricsPush(&ecs, &ecsBuf, md, fixedRoute, &sink)
				b.ReportAllocs()
				b.SetBytes(int64(len(ecsBuf)))
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					ecsBuf = ecsBuf[:0]
					encodeMetricsPush(&ecs, &ecsBuf, md, fixedRoute, &sink)
				}
				reportCPUTime(b, cpu, cpuOK)
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
			b.Run("impl=otlpjson", func(b *testing.B) {
				var m pmetric.JSONMarshaler
				b.ReportAllocs()
				b.SetBytes(size)
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					out, err := m.MarshalMetrics(md)
					if err != nil {
						b.Fatal(err)
					}
					benchSink = out
				}
				reportCPUTime(b, cpu, cpuOK)
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		})
	}
}

// BenchmarkEncodeMetricsEveryType encodes everyTypeMetrics: groups that hold every metric type
// and hint (histograms plain, raw and aggregate, exponential histograms, summaries with
// quantiles), the paths BenchmarkEncodeMetrics, made of gauges, sums and plain histograms,
// leaves out.
func BenchmarkEncodeMetricsEveryType(b *testing.B) {
	md := everyTypeMetrics(100)
	md.MarkReadOnly()
	for _, mode := range []Mode{ModeOTel, ModeECS} {
		b.Run("mode="+mode.String(), func(b *testing.B) {
			var e Encoder
			e.SetMode(mode)
			var sink countingSink
			var buf []byte
			encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			cpu, cpuOK := processCPUTime()
			for b.Loop() {
				buf = buf[:0]
				encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
			}
			reportCPUTime(b, cpu, cpuOK)
		})
	}
}

// TestBenchMetrics keeps the benchmark data honest: the sizes hold the data points they say, in
// groups of ten, and every document is valid.
func TestBenchMetrics(t *testing.T) {
	for _, n := range metricBenchSizes {
		md := benchMetrics(n)
		if got := benchDataPoints(md); got != n {
			t.Errorf("benchMetrics(%d) holds %d data points", n, got)
		}
		docs, rep := encodeMetricsWith(t, new(Encoder), md, fixedRoute)
		if len(docs) != n/10 {
			t.Errorf("benchMetrics(%d) makes %d documents, want %d", n, len(docs), n/10)
		}
		if rep != (MetricsReport{}) {
			t.Errorf("benchMetrics(%d): report %+v", n, rep)
		}
		out, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
		if err != nil {
			t.Fatal(err)
		}
		var size int
		for _, d := range docs {
			size += len(d.raw)
		}
		t.Logf("%d points: ours %d bytes in %d documents, OTLP JSON %d bytes", n, size, len(docs), len(out))
	}
}

// BenchmarkEncodeMetricsSeries encodes seriesMetrics: every group holds one data point, so
// the cost is the grouping and routing of each point rather than the writing of shared
// envelopes.
func BenchmarkEncodeMetricsSeries(b *testing.B) {
	for _, n := range []int{50, 1000} {
		md := seriesMetrics(n)
		md.MarkReadOnly()
		for _, mode := range []Mode{ModeOTel, ModeECS} {
			b.Run("points="+strconv.Itoa(n)+"/mode="+mode.String(), func(b *testing.B) {
				var e Encoder
				e.SetMode(mode)
				var sink countingSink
				var buf []byte
				encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
				b.ReportAllocs()
				b.SetBytes(int64(len(buf)))
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					buf = buf[:0]
					encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
				}
				reportCPUTime(b, cpu, cpuOK)
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// TestSeriesMetrics keeps the series benchmark honest: one document per data point.
func TestSeriesMetrics(t *testing.T) {
	for _, mode := range []Mode{ModeOTel, ModeECS} {
		var e Encoder
		e.SetMode(mode)
		var sink countingSink
		var buf []byte
		rep := encodeMetricsPush(&e, &buf, seriesMetrics(100), fixedRoute, &sink)
		if sink.docs != 100 || rep != (MetricsReport{}) {
			t.Errorf("mode %s: %d documents, report %+v; want 100 documents and an empty report", mode, sink.docs, rep)
		}
	}
}
