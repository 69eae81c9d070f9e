// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// ts0 is the time of the test data points: 1700000000123 ms and 456789 ns.
const (
	ts0    = pcommon.Timestamp(1_700_000_000_123_456_789)
	start0 = pcommon.Timestamp(1_699_999_000_000_000_000)
	ms0    = "1700000000123"
)

var metricsStream = DataStream{Type: "metrics", Dataset: "generic.otel", Namespace: "default"}

var errBadIndex = errors.New("bad index name")

// testRoute routes like the exporter's default, in miniature: data_stream.dataset from the data
// point, then the scope, then the resource, into metrics-<dataset>.otel-default, and
// elasticsearch.index verbatim to a plain index ("BAD" is refused).
func testRoute(attrs, scope, resource pcommon.Map, _ string, _ pcommon.Timestamp) (string, DataStream, error) {
	for _, m := range [...]pcommon.Map{attrs, scope, resource} {
		if v, ok := m.Get("elasticsearch.index"); ok {
			if v.AsString() == "BAD" {
				return "", DataStream{}, errBadIndex
			}
			return v.AsString(), DataStream{}, nil
		}
	}
	ds := metricsStream
	for _, m := range [...]pcommon.Map{attrs, scope, resource} {
		if v, ok := m.Get("data_stream.dataset"); ok {
			ds.Dataset = v.AsString() + ".otel"
			break
		}
	}
	return "metrics-" + ds.Dataset + "-" + ds.Namespace, ds, nil
}

// fixedRoute sends every data point to one data stream without allocating.
func fixedRoute(_, _, _ pcommon.Map, _ string, _ pcommon.Timestamp) (string, DataStream, error) {
	return "metrics-generic.otel-default", metricsStream, nil
}

// metricDoc is one document handed to the sink, with copies of what the sink was given.
type metricDoc struct {
	raw       []byte
	index     string
	ds        DataStream
	templates []DynamicTemplate
}

// fields decodes the document's top level, keeping each value's bytes as written.
func (d metricDoc) fields(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(d.raw, &m), "%s", d.raw)
	return m
}

// metric returns the bytes written for metrics.<name>, or "" when there are none.
func (d metricDoc) metric(t testing.TB, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(d.fields(t)["metrics"], &m))
	return string(m[name])
}

// recordingSink keeps a copy of every document and checks that the documents follow each
// other in the buffer with nothing in between.
type recordingSink struct {
	buf  *[]byte
	end  int
	docs []metricDoc
	t    testing.TB
}

func (s *recordingSink) AddMetricsDocument(start int, index string, ds DataStream, templates []DynamicTemplate) {
	if start != s.end {
		s.t.Errorf("document starts at byte %d, want %d (right after the previous one)", start, s.end)
	}
	s.end = len(*s.buf)
	s.docs = append(s.docs, metricDoc{
		raw: bytes.Clone((*s.buf)[start:]), index: index, ds: ds, templates: slices.Clone(templates),
	})
}

// encodeMetrics encodes md with testRoute and checks every document (see checkMetricsDocument).
func encodeMetrics(t testing.TB, md pmetric.Metrics) ([]metricDoc, MetricsReport) {
	t.Helper()
	return encodeMetricsWith(t, new(Encoder), md, testRoute)
}

func encodeMetricsWith(t testing.TB, e *Encoder, md pmetric.Metrics, route MetricRouteFunc) ([]metricDoc, MetricsReport) {
	t.Helper()
	var buf []byte
	sink := &recordingSink{buf: &buf, t: t}
	rep := encodeMetricsPush(e, &buf, md, route, sink)
	if len(buf) != sink.end {
		t.Errorf("the buffer holds %d bytes after the last document: %q", len(buf)-sink.end, buf[sink.end:])
	}
	for _, d := range sink.docs {
		checkMetricsDocument(t, d)
	}
	return sink.docs, rep
}

// checkMetricsDocument fails unless the document is valid JSON, an object with no name repeated
// at any depth, with an integer @timestamp, a non-empty metrics object whose names are unique
// and each have a dynamic template (summary quantiles: one per quantile under the name), every
// template under metrics, values of the shapes checkMetricShapes checks, and a
// _metric_names_hash that is the XXH64 of the names.
func checkMetricsDocument(t testing.TB, d metricDoc) {
	t.Helper()
	checkDocument(t, d.raw)
	checkMetricShapes(t, ModeOTel, d.raw, d.templates)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(d.raw, &top); err != nil {
		t.Fatalf("document is not a JSON object: %v: %q", err, d.raw)
	}
	if ts := string(top["@timestamp"]); ts == "" || strings.ContainsAny(ts, ".eE\"") {
		t.Errorf("@timestamp = %s, want integer milliseconds: %s", ts, d.raw)
	}
	names, err := objectKeys(top["metrics"])
	if err != nil {
		t.Fatalf("metrics is not an object: %v: %s", err, d.raw)
	}
	if len(names) == 0 {
		t.Errorf("document without metrics: %s", d.raw)
	}
	sorted := slices.Sorted(slices.Values(names))
	if c := slices.Compact(slices.Clone(sorted)); len(c) != len(sorted) {
		t.Errorf("metrics repeats a name: %q in %s", names, d.raw)
	}
	for _, tpl := range d.templates {
		if !strings.HasPrefix(tpl.Path, "metrics.") {
			t.Errorf("template for %q, outside metrics: %s", tpl.Path, d.raw)
		}
	}
	for _, name := range names {
		if !slices.ContainsFunc(d.templates, func(tpl DynamicTemplate) bool {
			p := repairUTF8(tpl.Path)
			return p == "metrics."+name || strings.HasSuffix(name, "_quantiles") && strings.HasPrefix(p, "metrics."+name+".")
		}) {
			t.Errorf("no template for metric %q: %v: %s", name, d.templates, d.raw)
		}
	}
	var hash string
	if err := json.Unmarshal(top["_metric_names_hash"], &hash); err != nil {
		t.Fatalf("_metric_names_hash: %v: %s", err, d.raw)
	}
	if want := strconv.FormatUint(xxhash.Sum64String(strings.Join(sorted, "")), 16); hash != want && allValidUTF8(d.templates) {
		t.Errorf("_metric_names_hash = %s, want %s (XXH64 of %q)", hash, want, sorted)
	}
}

func allValidUTF8(tpls []DynamicTemplate) bool {
	for _, t := range tpls {
		if !utf8.ValidString(t.Path) {
			return false
		}
	}
	return true
}

// objectKeys returns the names of a JSON object in the order written, repeats included.
func objectKeys(obj []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// newMetrics returns metrics with one resource (service.name=checkout) and one scope.
func newMetrics() (pmetric.Metrics, pmetric.MetricSlice) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("test")
	return md, sm.Metrics()
}

// putAttrs puts key, value pairs: string, int, float64, bool, or []string for a slice.
func putAttrs(m pcommon.Map, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			m.PutStr(k, v)
		case int:
			m.PutInt(k, int64(v))
		case int64:
			m.PutInt(k, v)
		case float64:
			m.PutDouble(k, v)
		case bool:
			m.PutBool(k, v)
		case []string:
			s := m.PutEmptySlice(k)
			for _, e := range v {
				s.AppendEmpty().SetStr(e)
			}
		default:
			panic("putAttrs: unsupported value type")
		}
	}
}

func hints(h ...string) []string { return h }

func gauge(ms pmetric.MetricSlice, name string, kv ...any) pmetric.NumberDataPoint {
	m := ms.AppendEmpty()
	m.SetName(name)
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	putAttrs(dp.Attributes(), kv...)
	return dp
}

func gaugeInt(ms pmetric.MetricSlice, name string, v int64, kv ...any) pmetric.NumberDataPoint {
	dp := gauge(ms, name, kv...)
	dp.SetIntValue(v)
	return dp
}

func gaugeDouble(ms pmetric.MetricSlice, name string, v float64, kv ...any) pmetric.NumberDataPoint {
	dp := gauge(ms, name, kv...)
	dp.SetDoubleValue(v)
	return dp
}

func sum(ms pmetric.MetricSlice, name string, monotonic bool, temp pmetric.AggregationTemporality, kv ...any) pmetric.NumberDataPoint {
	m := ms.AppendEmpty()
	m.SetName(name)
	s := m.SetEmptySum()
	s.SetIsMonotonic(monotonic)
	s.SetAggregationTemporality(temp)
	dp := s.DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	putAttrs(dp.Attributes(), kv...)
	return dp
}

func histogram(ms pmetric.MetricSlice, name string, count uint64, total float64, bounds []float64, counts []uint64, kv ...any) {
	m := ms.AppendEmpty()
	m.SetName(name)
	h := m.SetEmptyHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := h.DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetCount(count)
	dp.SetSum(total)
	dp.ExplicitBounds().FromRaw(bounds)
	dp.BucketCounts().FromRaw(counts)
	putAttrs(dp.Attributes(), kv...)
}

type expBuckets struct {
	offset int32
	counts []uint64
}

func expHistogram(ms pmetric.MetricSlice, name string, scale int32, zero uint64, neg, pos expBuckets, kv ...any) pmetric.ExponentialHistogramDataPoint {
	m := ms.AppendEmpty()
	m.SetName(name)
	h := m.SetEmptyExponentialHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := h.DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetScale(scale)
	dp.SetZeroCount(zero)
	dp.Negative().SetOffset(neg.offset)
	dp.Negative().BucketCounts().FromRaw(neg.counts)
	dp.Positive().SetOffset(pos.offset)
	dp.Positive().BucketCounts().FromRaw(pos.counts)
	count := zero
	for _, c := range slices.Concat(neg.counts, pos.counts) {
		count += c
	}
	dp.SetCount(count)
	putAttrs(dp.Attributes(), kv...)
	return dp
}

func summary(ms pmetric.MetricSlice, name string, count uint64, total float64, quantiles ...[2]float64) pmetric.SummaryDataPoint {
	m := ms.AppendEmpty()
	m.SetName(name)
	dp := m.SetEmptySummary().DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetCount(count)
	dp.SetSum(total)
	for _, q := range quantiles {
		qv := dp.QuantileValues().AppendEmpty()
		qv.SetQuantile(q[0])
		qv.SetValue(q[1])
	}
	return dp
}

// rawAttrs returns a map holding the string pairs in order, repeats included, as an OTLP payload
// can (pcommon.Map.PutStr would replace).
func rawAttrs(t testing.TB, kv ...string) pcommon.Map {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"resourceMetrics":[{"resource":{"attributes":[`)
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"key":` + strconv.Quote(kv[i]) + `,"value":{"stringValue":` + strconv.Quote(kv[i+1]) + `}}`)
	}
	b.WriteString(`]}}]}`)
	md, err := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics([]byte(b.String()))
	require.NoError(t, err)
	m := md.ResourceMetrics().At(0).Resource().Attributes()
	require.Equal(t, len(kv)/2, m.Len(), "the repeats are kept")
	return m
}

func docsText(docs []metricDoc) string {
	var b strings.Builder
	for _, d := range docs {
		b.Write(d.raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestMetricNamesWithInvalidUTF8 puts two names that differ only in invalid bytes in one
// group. Both are written as "a\ufffd", so they must not share a metrics object.
func TestMetricNamesWithInvalidUTF8(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "a\xff", 1)
	gaugeInt(ms, "a\xfe", 2)
	docs, _ := encodeMetrics(t, md) // checkMetricsDocument fails on a repeated name
	assert.Len(t, docs, 2, "documents: %s", docsText(docs))
}

// TestSummaryNamesWithInvalidUTF8 is the same for summaries, whose <name>_quantiles repeat too.
func TestSummaryNamesWithInvalidUTF8(t *testing.T) {
	md, ms := newMetrics()
	summary(ms, "q\xff", 1, 1, [2]float64{0.5, 1})
	summary(ms, "q\xfe", 1, 1, [2]float64{0.5, 1})
	docs, _ := encodeMetrics(t, md)
	assert.Len(t, docs, 2, "documents: %s", docsText(docs))
}

// countingSink counts documents without allocating.
type countingSink struct{ docs, templates int }

func (s *countingSink) AddMetricsDocument(_ int, _ string, _ DataStream, templates []DynamicTemplate) {
	s.docs++
	s.templates += len(templates)
}

// TestEncodeMetricsSteadyStateDoesNotAllocate checks that a warm Encoder writing into a warm
// buffer allocates nothing.
func TestEncodeMetricsSteadyStateDoesNotAllocate(t *testing.T) {
	tests := []struct {
		name string
		md   pmetric.Metrics
	}{
		{name: "1000 points in 100 groups", md: benchMetrics(1000)},
		{name: "1000 points each its own group", md: seriesMetrics(1000)},
		{name: "every type", md: everyTypeMetrics(100)},
		{name: "value rules", md: valueRuleMetrics(100)},
	}
	for _, tt := range tests {
		tt.md.MarkReadOnly()
		for _, mode := range []Mode{ModeOTel, ModeECS} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				var e Encoder
				e.SetMode(mode)
				var sink countingSink
				buf := make([]byte, 0, 1<<20)
				encodeMetricsPush(&e, &buf, tt.md, fixedRoute, &sink)
				require.Positive(t, sink.docs)
				allocs := testing.AllocsPerRun(20, func() {
					buf = buf[:0]
					encodeMetricsPush(&e, &buf, tt.md, fixedRoute, &sink)
				})
				if allocs != 0 {
					t.Errorf("EncodeMetrics in mode %s allocates %v times per run, want 0", mode, allocs)
				}
			})
		}
	}
}

// everyTypeMetrics returns n groups, each holding every metric type and hint that writes a
// value: gauges, sums, histograms (plain, raw, aggregate), an exponential histogram and a
// summary with quantiles.
func everyTypeMetrics(n int) pmetric.Metrics {
	md, ms := newMetrics()
	for i := range n {
		kv := []any{"i", i}
		gaugeInt(ms, "g.int", int64(i), kv...)
		gaugeDouble(ms, "g.double", float64(i)/3, kv...)
		sum(ms, "s.counter", true, pmetric.AggregationTemporalityCumulative, kv...).SetIntValue(int64(i))
		sum(ms, "s.delta", true, pmetric.AggregationTemporalityDelta, kv...).SetDoubleValue(1.5)
		histogram(ms, "h", 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1}, kv...)
		histogram(ms, "h.raw", 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1}, "i", i, "elasticsearch.mapping.hints", hints("histogram:raw", "_doc_count"))
		histogram(ms, "h.agg", 10, 250, []float64{10}, []uint64{4, 6}, "i", i, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
		expHistogram(ms, "e", 2, 1, expBuckets{offset: -1, counts: []uint64{1, 2}}, expBuckets{offset: 3, counts: []uint64{4, 0, 5}}, kv...)
		putAttrs(summary(ms, "sm", 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.99, 9.5}).Attributes(), kv...)
	}
	return md
}

// valueRuleMetrics returns n groups of data points that take the value rules of the contract:
// infinite bounds and merged buckets, bucketless histograms, raw and overflowing exponential
// histograms, NaN sums, NaN dimensions, a refused metric name and bad bounds.
func valueRuleMetrics(n int) pmetric.Metrics {
	md, ms := newMetrics()
	raw := "elasticsearch.mapping.hints"
	for i := range n {
		kv := []any{"i", i, "nan", math.NaN()}
		histogram(ms, "h.inf", 9, 0, []float64{1, 5, math.Inf(1)}, []uint64{1, 2, 3, 3}, kv...)
		histogram(ms, "h.inf.raw", 9, 0, []float64{math.Inf(-1), 1, 5, math.Inf(1)}, []uint64{1, 2, 3, 3, 1}, "i", i, "nan", math.NaN(), raw, hints("histogram:raw"))
		histogram(ms, "h.nocounts", 4, 10, []float64{1, 5}, nil, kv...)
		histogram(ms, "h.bad", 4, 10, []float64{5, 1}, []uint64{1, 2, 1}, kv...)
		histogram(ms, "h.nan", 4, math.NaN(), nil, nil, kv...)
		expHistogram(ms, "e.raw", 0, 1, expBuckets{counts: []uint64{2}}, expBuckets{offset: 3, counts: []uint64{3, 4}}, "i", i, "nan", math.NaN(), raw, hints("histogram:raw"))
		expHistogram(ms, "e.big", -10, 1, expBuckets{counts: []uint64{2, 3}}, expBuckets{counts: []uint64{3, 4}}, kv...)
		putAttrs(summary(ms, "sm", 5, math.NaN(), [2]float64{0.5, 2}, [2]float64{0.99, math.NaN()}).Attributes(), kv...)
		gaugeDouble(ms, "g.nan", math.Inf(1), kv...)
		gaugeInt(ms, "bad..name", 1, kv...)
		gaugeInt(ms, "g", 1, kv...).SetStartTimestamp(1)
	}
	return md
}
