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
	"time"
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

// template returns the template of path, or "".
func (d metricDoc) template(path string) string {
	for _, t := range d.templates {
		if t.Path == path {
			return t.Template
		}
	}
	return ""
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
	rep := e.EncodeMetrics(&buf, md, route, sink)
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
// and each have a dynamic template, and a _metric_names_hash that is the XXH64 of those names.
func checkMetricsDocument(t testing.TB, d metricDoc) {
	t.Helper()
	checkDocument(t, d.raw)
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
	n := 0
	for _, tpl := range d.templates {
		if strings.HasPrefix(tpl.Path, "metrics.") {
			n++
			if !slices.Contains(names, repairUTF8(strings.TrimPrefix(tpl.Path, "metrics."))) {
				t.Errorf("template for %q, which the document does not hold: %s", tpl.Path, d.raw)
			}
		}
	}
	if n != len(names) {
		t.Errorf("%d metric templates for %d metrics: %v: %s", n, len(names), d.templates, d.raw)
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

func histogram(ms pmetric.MetricSlice, name string, count uint64, total float64, bounds []float64, counts []uint64, kv ...any) pmetric.HistogramDataPoint {
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
	return dp
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

func TestMetricNamesHash(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  uint64
	}{
		// Published XXH64 (seed 0) vectors.
		{name: "no names", names: nil, want: 0xef46db3751d8e999},
		{name: "a", names: []string{"a"}, want: 0xd24ec4f1a98c6e5b},
		{name: "abc", names: []string{"abc"}, want: 0x44bc2cf5ad770999},
		// Sorted, then concatenated with no separator: all of these hash "abc".
		{name: "sorted before hashing", names: []string{"c", "b", "a"}, want: 0x44bc2cf5ad770999},
		{name: "no separator", names: []string{"bc", "a"}, want: 0x44bc2cf5ad770999},
		{name: "no separator, other split", names: []string{"c", "ab"}, want: 0x44bc2cf5ad770999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			joined := strings.Join(slices.Sorted(slices.Values(tt.names)), "")
			require.Equal(t, tt.want, xxhash.Sum64String(joined), "the vector itself, by the xxhash library")
			names := slices.Clone(tt.names)
			if got := metricNamesHash(names); got != tt.want {
				t.Errorf("metricNamesHash(%q) = %x, want %x", tt.names, got, tt.want)
			}
			assert.True(t, slices.IsSorted(names), "metricNamesHash sorts in place, as documented")
		})
	}
}

// TestMetricNamesHashInDocument checks the written form: lower-case hex without zero padding.
// The XXH64 of "jvm.gc.countqueue.deltaqueue.depth" is 0x0073bc4a560e3f01.
func TestMetricNamesHashInDocument(t *testing.T) {
	md, ms := newMetrics()
	for _, name := range []string{"queue.depth", "jvm.gc.count", "queue.delta"} {
		gaugeInt(ms, name, 1)
	}
	require.Equal(t, uint64(0x0073bc4a560e3f01), xxhash.Sum64String("jvm.gc.countqueue.deltaqueue.depth"))
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	assert.JSONEq(t, `"73bc4a560e3f01"`, string(docs[0].fields(t)["_metric_names_hash"]))
}

// TestMetricsGrouping checks which data points share a document. Every case has two gauges,
// a and b, that differ only as the case says.
func TestMetricsGrouping(t *testing.T) {
	type point struct {
		ts, start pcommon.Timestamp
		unit      string
		attrs     []any
	}
	base := point{ts: ts0, start: start0, unit: "1", attrs: []any{"host", "h1", "cpu", 1}}
	tests := []struct {
		name     string
		a, b     func(p *point)
		wantDocs int
	}{
		{name: "identical", wantDocs: 1},
		{
			name:     "same attributes in another key order",
			b:        func(p *point) { p.attrs = []any{"cpu", 1, "host", "h1"} },
			wantDocs: 1,
		},
		{name: "different attribute value", b: func(p *point) { p.attrs = []any{"host", "h2", "cpu", 1} }, wantDocs: 2},
		{name: "different attribute type", b: func(p *point) { p.attrs = []any{"host", "h1", "cpu", "1"} }, wantDocs: 2},
		{name: "one attribute more", b: func(p *point) { p.attrs = append(p.attrs, "extra", true) }, wantDocs: 2},
		{name: "different unit", b: func(p *point) { p.unit = "By" }, wantDocs: 2},
		{name: "timestamps one millisecond apart", b: func(p *point) { p.ts += 1_000_000 }, wantDocs: 2},
		{name: "timestamps apart by less than a millisecond", b: func(p *point) { p.ts += 543_210 }, wantDocs: 1},
		{name: "start timestamps one millisecond apart", b: func(p *point) { p.start += 1_000_000 }, wantDocs: 2},
		{name: "start timestamps apart by less than a millisecond", b: func(p *point) { p.start += 999_999 }, wantDocs: 1},
		{name: "one start timestamp zero", b: func(p *point) { p.start = 0 }, wantDocs: 2},
		{
			name:     "different index",
			b:        func(p *point) { p.attrs = append(p.attrs, "data_stream.dataset", "other") },
			wantDocs: 2,
		},
		{
			name:     "different plain index",
			a:        func(p *point) { p.attrs = append(p.attrs, "elasticsearch.index", "idx-a") },
			b:        func(p *point) { p.attrs = append(p.attrs, "elasticsearch.index", "idx-b") },
			wantDocs: 2,
		},
		{
			name: "control attributes and hints do not split",
			a:    func(p *point) { p.attrs = append(p.attrs, "elasticsearch.mapping.hints", hints("_doc_count")) },
			b: func(p *point) {
				p.attrs = append(p.attrs, "elastic.mapping.mode", "otel", "data_stream.namespace", "default",
					"elasticsearch.document_id", "id-1", "elasticsearch.ingest_pipeline", "p",
					"elasticsearch.document_pipeline", "p", "data_stream.type", "logs")
			},
			wantDocs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			for i, change := range []func(*point){tt.a, tt.b} {
				p := base
				p.attrs = slices.Clone(base.attrs)
				if change != nil {
					change(&p)
				}
				dp := gaugeInt(ms, []string{"a", "b"}[i], int64(i))
				ms.At(i).SetUnit(p.unit)
				dp.SetTimestamp(p.ts)
				dp.SetStartTimestamp(p.start)
				putAttrs(dp.Attributes(), p.attrs...)
			}
			docs, rep := encodeMetrics(t, md)
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			assert.Equal(t, MetricsReport{}, rep)
			for _, d := range docs {
				attrs := string(d.fields(t)["attributes"])
				for _, k := range []string{"elasticsearch.", "data_stream.", "elastic.mapping"} {
					assert.NotContains(t, attrs, k, "control attributes are not written")
				}
			}
			if tt.wantDocs == 1 {
				assert.Equal(t, "0", docs[0].metric(t, "a"))
				assert.Equal(t, "1", docs[0].metric(t, "b"))
			}
		})
	}
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
