// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

var metricBenchSizes = []int{10, 100, 1000, 10000}

// benchMetricNames are the ten metrics of every group: four gauges, three sums and three
// histograms, as a host or runtime receiver sends them.
var benchMetricNames = [10]string{
	"system.cpu.utilization", "system.memory.usage", "process.threads", "jvm.memory.used",
	"system.cpu.time", "system.network.io", "system.disk.operations",
	"http.server.request.duration", "http.client.request.duration", "rpc.server.duration",
}

// benchMetrics returns points data points in points/10 groups of ten metrics: one resource with
// four attributes and one scope; each group has its own data point attributes (two or three).
func benchMetrics(points int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	benchResource(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	benchScope(sm.Scope())
	groups := max(points/len(benchMetricNames), 1)
	states := [...]string{"user", "system", "idle", "wait"}
	bounds := []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
	for k, name := range benchMetricNames {
		m := sm.Metrics().AppendEmpty()
		m.SetName(name)
		// The unit is a grouping key; one unit for all keeps the ten metrics in one group.
		m.SetUnit("1")
		var numbers pmetric.NumberDataPointSlice
		switch {
		case k < 4:
			numbers = m.SetEmptyGauge().DataPoints()
		case k < 7:
			s := m.SetEmptySum()
			s.SetIsMonotonic(k != 6)
			s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			numbers = s.DataPoints()
		default:
			m.SetEmptyHistogram().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		}
		for g := range groups {
			var attrs pcommon.Map
			if m.Type() == pmetric.MetricTypeHistogram {
				dp := m.Histogram().DataPoints().AppendEmpty()
				dp.SetTimestamp(ts0)
				dp.SetStartTimestamp(start0)
				dp.ExplicitBounds().FromRaw(bounds)
				counts := dp.BucketCounts()
				counts.EnsureCapacity(len(bounds) + 1)
				var total uint64
				for b := range len(bounds) + 1 {
					c := uint64((g + b) % 5)
					counts.Append(c)
					total += c
				}
				dp.SetCount(total)
				dp.SetSum(float64(total) * 0.3)
				attrs = dp.Attributes()
			} else {
				dp := numbers.AppendEmpty()
				dp.SetTimestamp(ts0)
				dp.SetStartTimestamp(start0)
				if k%2 == 0 {
					dp.SetDoubleValue(float64(g) * 0.25)
				} else {
					dp.SetIntValue(int64(g) * 1024)
				}
				attrs = dp.Attributes()
			}
			attrs.PutInt("cpu", int64(g))
			attrs.PutStr("state", states[g%len(states)])
			if g%2 == 0 {
				attrs.PutStr("device", "eth"+strconv.Itoa(g%4))
			}
		}
	}
	return md
}

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

// reportCPUTime reports the process CPU time used since start per op, when the system tells
// it (ok is start's).
func reportCPUTime(b *testing.B, start time.Duration, ok bool) {
	b.Helper()
	if now, nowOK := processCPUTime(); ok && nowOK {
		b.ReportMetric(float64(now-start)/float64(b.N), "cpu-ns/op")
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

// seriesMetrics returns points gauge data points of one metric, each with attributes of its
// own and so a document of its own, in one resource and scope at one timestamp: the shape of
// a host receiver's per-CPU or per-device metric, where no two points group together.
func seriesMetrics(points int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	benchResource(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	benchScope(sm.Scope())
	m := sm.Metrics().AppendEmpty()
	m.SetName("process.cpu.utilization")
	m.SetUnit("1")
	dps := m.SetEmptyGauge().DataPoints()
	dps.EnsureCapacity(points)
	for i := range points {
		dp := dps.AppendEmpty()
		dp.SetTimestamp(ts0)
		dp.SetDoubleValue(float64(i%100) / 100)
		dp.Attributes().PutInt("cpu", int64(i))
		dp.Attributes().PutStr("state", "user")
	}
	return md
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
