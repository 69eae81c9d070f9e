// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The tests of this file send metrics through the exporter into metrics-<id>.otel-default,
// a time series data stream made by the stand-in template (internal/estest/templates/
// metrics-otel.json, shaped like Elasticsearch's metrics-otel@template), and check in
// Elasticsearch that every value is indexed, not only kept in _source. What the stand-in
// cannot check is in docs/dev/tsdb-facts.md; the time series identity of the documents is tested
// in tsdb_identity_test.go.

// tsdbPoint is one kind of data point the tests send, alone in its document (its attribute
// kind differs from the others'): the metric, the dynamic template the bulk item must name,
// and the metrics object the document must hold.
type tsdbPoint struct {
	kind     string
	metric   string
	template string
	want     string // JSON of the document's metrics object
}

// tsdbPoints are the data points of tsdbMetrics, one document each.
var tsdbPoints = []tsdbPoint{
	{"gauge_long", "g.long", "gauge_long", `{"g.long":42}`},
	{"gauge_double", "g.double", "gauge_double", `{"g.double":0.25}`},
	{"sum_monotonic_cumulative_int", "c.long", "counter_long", `{"c.long":1234}`},
	{"sum_monotonic_cumulative_double", "c.double", "counter_double", `{"c.double":2048.5}`},
	{"sum_not_monotonic_int", "s.updown", "gauge_long", `{"s.updown":-3}`},
	{"sum_monotonic_delta_double", "s.delta", "gauge_double", `{"s.delta":7.5}`},
	// Bounds 1, 5, 10 and counts 2, 3, 0, 1: the empty bucket is left out, the first bucket
	// writes half its upper bound, the overflow bucket the last bound.
	{"histogram", "h.explicit", "histogram", `{"h.explicit":{"counts":[2,3,1],"values":[0.5,3.0,10.0]}}`},
	{"histogram_without_bounds", "h.nobounds", "histogram", `{"h.nobounds":{"counts":[4],"values":[2.5]}}`},
	// Scale 0: one negative bucket (-2, -1], the zero bucket, positive buckets (1, 2] and (2, 4].
	{"exponential_histogram", "eh", "histogram", `{"eh":{"counts":[1,1,1,2],"values":[-1.5,0.0,1.5,3.0]}}`},
	{"histogram_aggregate_metric_double", "h.agg", "summary", `{"h.agg":{"sum":9.0,"value_count":6}}`},
	// The quantiles go inside metrics, as the metric sm_quantiles, each leaf a gauge_double.
	{"summary", "sm", "summary", `{"sm":{"sum":10.0,"value_count":4},"sm_quantiles":{"q0_5":2.0,"q0_99":4.0}}`},
}

// tsdbMetrics returns the data points of tsdbPoints at ts (start time one minute earlier),
// routed to the dataset of the test.
func (s *suite) tsdbMetrics(ts pcommon.Timestamp) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "tsdb")
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("integration")
	ms := sm.Metrics()
	start := ts - pcommon.Timestamp(time.Minute)
	attrs := func(a pcommon.Map, kind string) {
		a.PutStr("run", s.id)
		a.PutStr("kind", kind)
	}
	metric := func(name string) pmetric.Metric {
		m := ms.AppendEmpty()
		m.SetName(name)
		m.SetUnit("1")
		return m
	}
	number := func(p tsdbPoint, dps pmetric.NumberDataPointSlice) pmetric.NumberDataPoint {
		dp := dps.AppendEmpty()
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(ts)
		attrs(dp.Attributes(), p.kind)
		return dp
	}
	sum := func(m pmetric.Metric, monotonic bool, temporality pmetric.AggregationTemporality) pmetric.NumberDataPointSlice {
		sm := m.SetEmptySum()
		sm.SetIsMonotonic(monotonic)
		sm.SetAggregationTemporality(temporality)
		return sm.DataPoints()
	}
	histogram := func(p tsdbPoint, count uint64, total float64, bounds []float64, counts []uint64) pmetric.HistogramDataPoint {
		h := metric(p.metric).SetEmptyHistogram()
		h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		dp := h.DataPoints().AppendEmpty()
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(ts)
		dp.SetCount(count)
		dp.SetSum(total)
		dp.ExplicitBounds().FromRaw(bounds)
		dp.BucketCounts().FromRaw(counts)
		attrs(dp.Attributes(), p.kind)
		return dp
	}
	for _, p := range tsdbPoints {
		switch p.kind {
		case "gauge_long":
			number(p, metric(p.metric).SetEmptyGauge().DataPoints()).SetIntValue(42)
		case "gauge_double":
			number(p, metric(p.metric).SetEmptyGauge().DataPoints()).SetDoubleValue(0.25)
		case "sum_monotonic_cumulative_int":
			number(p, sum(metric(p.metric), true, pmetric.AggregationTemporalityCumulative)).SetIntValue(1234)
		case "sum_monotonic_cumulative_double":
			number(p, sum(metric(p.metric), true, pmetric.AggregationTemporalityCumulative)).SetDoubleValue(2048.5)
		case "sum_not_monotonic_int":
			number(p, sum(metric(p.metric), false, pmetric.AggregationTemporalityCumulative)).SetIntValue(-3)
		case "sum_monotonic_delta_double":
			number(p, sum(metric(p.metric), true, pmetric.AggregationTemporalityDelta)).SetDoubleValue(7.5)
		case "histogram":
			histogram(p, 6, 20, []float64{1, 5, 10}, []uint64{2, 3, 0, 1})
		case "histogram_without_bounds":
			histogram(p, 4, 10, nil, nil)
		case "histogram_aggregate_metric_double":
			dp := histogram(p, 6, 9, []float64{1, 5}, []uint64{2, 3, 1})
			dp.Attributes().PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("aggregate_metric_double")
		case "exponential_histogram":
			eh := metric(p.metric).SetEmptyExponentialHistogram()
			eh.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			dp := eh.DataPoints().AppendEmpty()
			dp.SetStartTimestamp(start)
			dp.SetTimestamp(ts)
			dp.SetScale(0)
			dp.SetCount(5)
			dp.SetSum(6)
			dp.SetZeroCount(1)
			dp.Negative().BucketCounts().FromRaw([]uint64{1})
			dp.Positive().BucketCounts().FromRaw([]uint64{1, 2})
			attrs(dp.Attributes(), p.kind)
		case "summary":
			dp := metric(p.metric).SetEmptySummary().DataPoints().AppendEmpty()
			dp.SetStartTimestamp(start)
			dp.SetTimestamp(ts)
			dp.SetCount(4)
			dp.SetSum(10)
			for _, q := range [][2]float64{{0.5, 2}, {0.99, 4}} {
				qv := dp.QuantileValues().AppendEmpty()
				qv.SetQuantile(q[0])
				qv.SetValue(q[1])
			}
			attrs(dp.Attributes(), p.kind)
		default:
			panic("no data point for kind " + p.kind)
		}
	}
	return md
}

// kindQuery returns a query for the documents of this test's run whose kind is kind, with
// the further filters given.
func (s *suite) kindQuery(kind string, filters ...any) map[string]any {
	f := []any{
		map[string]any{"term": map[string]any{"attributes.run": s.id}},
		map[string]any{"term": map[string]any{"attributes.kind": kind}},
	}
	return map[string]any{"query": map[string]any{"bool": map[string]any{"filter": append(f, filters...)}}}
}

// numericLeaves returns every number of the metrics object m by its field name (metrics.<name>
// or metrics.<name>.<sub-field>), in _source order within each field.
func numericLeaves(prefix string, m map[string]any) map[string][]json.Number {
	out := map[string][]json.Number{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case json.Number:
			out[path] = append(out[path], v)
		case []any:
			for _, e := range v {
				walk(path, e)
			}
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		}
	}
	for k, v := range m {
		walk(prefix+"."+k, v)
	}
	return out
}

// TestTSDBEveryMetricValueIndexed sends gauges, sums (monotonic and not, cumulative and
// delta), histograms (with and without bounds, and with the aggregate_metric_double hint),
// an exponential histogram and a summary through the exporter into the time series stand-in,
// and checks for each document: the form of its metrics object, that every number in it is
// found by a term query on its indexed field (and the counters, counts and sums by
// aggregations too), that no document has an _ignored field, and that the counts match.
func TestTSDBEveryMetricValueIndexed(t *testing.T) {
	s := newSuite(t)
	exp := s.metricsExporter(t, s.config())
	require.NoError(t, exp.ConsumeMetrics(context.Background(), s.tsdbMetrics(tsdbNow())))
	index := "metrics-" + s.id + ".otel-default"
	s.es.Refresh(t, index)

	assert.Equal(t, int64(len(tsdbPoints)), s.docs(t, "indexed"))
	assert.Equal(t, len(tsdbPoints), s.es.Count(t, index))
	assert.Equal(t, 0, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}}),
		"no document has an _ignored field")
	settings := string(s.es.MustDo(t, http.MethodGet, "/"+index+"/_settings?filter_path=**.mode", nil))
	require.Contains(t, settings, `"mode":"time_series"`, "the stand-in makes a time series data stream")

	types := fieldTypes(t, s.es, index, "metrics.*")
	for _, p := range tsdbPoints {
		t.Run(p.kind, func(t *testing.T) {
			hits := s.es.SearchNumbers(t, index, s.kindQuery(p.kind))
			require.Len(t, hits, 1, "one document of kind %s", p.kind)
			doc := hits[0]
			got, err := json.Marshal(doc["metrics"])
			require.NoError(t, err)
			assert.JSONEq(t, p.want, string(got), "metrics of the document")

			leaves := numericLeaves("metrics", doc["metrics"].(map[string]any))
			require.NotEmpty(t, leaves)
			for field, values := range leaves {
				assert.NotEmpty(t, types[field], "%s is mapped", field)
				for _, v := range values {
					assert.Equal(t, 1, s.es.CountQuery(t, index, s.kindQuery(p.kind, map[string]any{"term": map[string]any{field: v}})),
						"%s = %s found by a term query", field, v)
				}
			}
			switch p.template {
			case "counter_long", "counter_double":
				want, _ := leaves["metrics."+p.metric][0].Float64()
				assert.InDelta(t, want, aggregate(t, s.es, index, "max", "metrics."+p.metric, s.kindQuery(p.kind)), 0, "max of the counter")
				assert.Equal(t, "counter", timeSeriesMetric(t, s.es, index, "metrics."+p.metric))
			case "gauge_long", "gauge_double":
				assert.Equal(t, "gauge", timeSeriesMetric(t, s.es, index, "metrics."+p.metric))
			case "histogram":
				var total float64
				for _, c := range leaves["metrics."+p.metric+".counts"] {
					n, _ := c.Float64()
					total += n
				}
				assert.InDelta(t, total, aggregate(t, s.es, index, "sum", "metrics."+p.metric+".counts", s.kindQuery(p.kind)), 0, "sum of the counts")
				assert.InDelta(t, len(leaves["metrics."+p.metric+".values"]),
					aggregate(t, s.es, index, "value_count", "metrics."+p.metric+".values", s.kindQuery(p.kind)), 0, "values indexed")
			case "summary":
				want, _ := leaves["metrics."+p.metric+".sum"][0].Float64()
				assert.InDelta(t, want, aggregate(t, s.es, index, "sum", "metrics."+p.metric+".sum", s.kindQuery(p.kind)), 0, "sum")
			}
		})
	}

	// Summary quantiles are inside metrics, under sm_quantiles: each is a double gauge that a
	// term query and an aggregation find (the term queries ran above, with every leaf).
	t.Run("summary_quantiles", func(t *testing.T) {
		for q, v := range map[string]float64{"q0_5": 2, "q0_99": 4} {
			field := "metrics.sm_quantiles." + q
			assert.Equal(t, "double", types[field], field)
			assert.Equal(t, "gauge", timeSeriesMetric(t, s.es, index, field), field)
			assert.InDelta(t, v, aggregate(t, s.es, index, "max", field, s.kindQuery("summary")), 0, field)
		}
	})
}

// mustJSON returns v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestTSDBNonFiniteValues sends a summary whose sum is NaN, a histogram with an infinite
// bound and a gauge whose value is +Inf. The contract ("nothing dropped silently") skips and
// counts a {sum, value_count} value that a NaN makes unrepresentable, and gives an infinite
// bucket value the nearest finite bound, merging the buckets that then write the same value;
// it never writes null, which ignore_malformed would drop without a trace.
func TestTSDBNonFiniteValues(t *testing.T) {
	s := newSuite(t)
	exp := s.metricsExporter(t, s.config())
	ts := tsdbNow()
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	sm := ms.AppendEmpty()
	sm.SetName("sm.nan")
	sdp := sm.SetEmptySummary().DataPoints().AppendEmpty()
	sdp.SetTimestamp(ts)
	sdp.SetCount(2)
	sdp.SetSum(math.NaN())
	sdp.Attributes().PutStr("run", s.id)
	sdp.Attributes().PutStr("kind", "summary_nan")
	hm := ms.AppendEmpty()
	hm.SetName("h.inf")
	h := hm.SetEmptyHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	hdp := h.DataPoints().AppendEmpty()
	hdp.SetTimestamp(ts)
	hdp.SetCount(3)
	hdp.SetSum(3)
	hdp.ExplicitBounds().FromRaw([]float64{1, math.Inf(1)})
	hdp.BucketCounts().FromRaw([]uint64{1, 1, 1})
	hdp.Attributes().PutStr("run", s.id)
	hdp.Attributes().PutStr("kind", "histogram_inf")
	gm := ms.AppendEmpty()
	gm.SetName("g.inf")
	gdps := gm.SetEmptyGauge().DataPoints()
	for i, v := range []float64{math.Inf(1), 3.5} {
		dp := gdps.AppendEmpty()
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(v)
		dp.Attributes().PutStr("run", s.id)
		dp.Attributes().PutStr("kind", "gauge_"+strconv.Itoa(i))
	}
	require.NoError(t, exp.ConsumeMetrics(context.Background(), md))
	index := "metrics-" + s.id + ".otel-default"
	s.es.Refresh(t, index)

	assert.Equal(t, int64(2), s.docs(t, "skipped"), "the NaN summary value and the infinite gauge value are skipped and counted")
	assert.Equal(t, int64(2), s.docs(t, "indexed"), "the histogram and the finite gauge")
	assert.Equal(t, 2, s.es.Count(t, index))
	assert.Equal(t, 0, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}}))
	assert.Equal(t, 0, s.es.CountQuery(t, index, s.kindQuery("summary_nan")), "no document holds the unrepresentable summary alone")
	assert.Equal(t, 0, s.es.CountQuery(t, index, s.kindQuery("gauge_0")), "no document holds the infinite gauge alone")
	assert.Equal(t, 1, s.es.CountQuery(t, index, s.kindQuery("gauge_1", map[string]any{"term": map[string]any{"metrics.g.inf": 3.5}})))
	skipped := s.logs.FilterMessageSnippet("NaN or infinite").All()
	require.Len(t, skipped, 1, "the skipped values are logged once per push, with a metric's name")
	assert.Contains(t, []any{"sm.nan", "g.inf"}, skipped[0].ContextMap()["metric"])
	hits := s.es.SearchNumbers(t, index, s.kindQuery("histogram_inf"))
	require.Len(t, hits, 1)
	raw, err := json.Marshal(hits[0])
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "null", "no value is written as null")
	assert.JSONEq(t, `{"h.inf":{"counts":[1,2],"values":[0.5,1.0]}}`, mustJSON(t, hits[0]["metrics"]),
		"the buckets (1, +Inf] and (+Inf, ...) write the nearest finite bound, 1.0: one pair")
	leaves := numericLeaves("metrics", hits[0]["metrics"].(map[string]any))
	assert.Len(t, leaves["metrics.h.inf.values"], len(leaves["metrics.h.inf.counts"]), "counts and values pair up")
	for _, v := range leaves["metrics.h.inf.values"] {
		assert.Equal(t, 1, s.es.CountQuery(t, index, s.kindQuery("histogram_inf", map[string]any{"term": map[string]any{"metrics.h.inf.values": v}})), "value %s", v)
	}
}

// TestTSDBRepeatedNameCollides sends two data points of one gauge with the same attributes and
// time. The contract writes the later one to a document of its own; in a time series data
// stream both documents have the same dimensions, _metric_names_hash and @timestamp, so the
// same _id, and Elasticsearch refuses the later one with 409. The exporter counts it as a
// duplicate.
func TestTSDBRepeatedNameCollides(t *testing.T) {
	s := newSuite(t)
	exp := s.metricsExporter(t, s.config())
	s.waitConnected(t)
	ts := tsdbNow()
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("g.repeated")
	dps := m.SetEmptyGauge().DataPoints()
	for _, v := range []float64{1.5, 2.5} {
		dp := dps.AppendEmpty()
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(v)
		dp.Attributes().PutStr("run", s.id)
	}
	require.NoError(t, exp.ConsumeMetrics(context.Background(), md))
	index := "metrics-" + s.id + ".otel-default"
	s.es.Refresh(t, index)

	assert.Equal(t, int64(1), s.docs(t, "indexed"))
	assert.Equal(t, int64(1), s.docs(t, "duplicate"), "the later document is a duplicate of the first")
	assert.Equal(t, int64(1), s.docsWithError(t, "duplicate", "version_conflict_engine_exception"))
	hits := s.es.SearchNumbers(t, index, map[string]any{"query": map[string]any{"term": map[string]any{"attributes.run": s.id}}})
	require.Len(t, hits, 1)
	assert.Equal(t, map[string]any{"g.repeated": json.Number("1.5")}, hits[0]["metrics"], "the first is kept")
	failures := s.lastFailures(t)
	t.Logf("logged: %s", failures)
	assert.Contains(t, failures, "1 duplicate (409 version_conflict_engine_exception")

	assert.Contains(t, failures, "first document's metrics: metrics.g.repeated", "logged with the metric name")
}

// TestTSDBPointOutsideTimeWindow sends three points through the exporter to a time series data
// stream whose backing index covers [now-1h, now+1h): one inside, one a day old and one at the
// end bound. The node refuses the other two with 400 timestamp_error; the exporter counts them
// as rejected and logs the error.
func TestTSDBPointOutsideTimeWindow(t *testing.T) {
	s := newSuite(t)
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	end := start.Add(2 * time.Hour)
	s.tsdbWindowTemplate(t, start, end)
	exp := s.metricsExporter(t, s.config())
	s.waitConnected(t)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("g.window")
	dps := m.SetEmptyGauge().DataPoints()
	for _, ts := range []time.Time{time.Now().Add(-time.Minute), time.Now().Add(-24 * time.Hour), end} {
		dp := dps.AppendEmpty()
		dp.SetTimestamp(pcommon.NewTimestampFromTime(ts))
		dp.SetDoubleValue(1.5)
		dp.Attributes().PutStr("run", s.id)
	}
	require.NoError(t, exp.ConsumeMetrics(context.Background(), md), "documents rejected for good do not fail the push")
	index := "metrics-" + s.id + ".otel-default"
	s.es.Refresh(t, index)

	assert.Equal(t, int64(1), s.docs(t, "indexed"))
	assert.Equal(t, int64(2), s.docs(t, "rejected"))
	assert.Equal(t, int64(2), s.docsWithError(t, "rejected", "timestamp_error"), "counted with the error type the node gave")
	assert.Equal(t, 1, s.es.Count(t, index))
	failures := s.lastFailures(t)
	t.Logf("logged: %s", failures)
	assert.Contains(t, failures, "2 rejected (400 timestamp_error: the document timestamp [")
	assert.Contains(t, failures, "is outside of ranges of currently writable indices")
	assert.Contains(t, failures, index)

	assert.Contains(t, failures, "first document's metrics: metrics.g.window", "logged with the metric name")
	assert.Equal(t, 1, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"term": map[string]any{"metrics.g.window": 1.5}}}),
		"the point inside the window is indexed")
}
