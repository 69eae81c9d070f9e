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

// TestMetricsGroupingEnvelope checks the resource and scope parts of grouping: two
// ResourceMetrics (or ScopeMetrics) each holding one gauge with the same data point.
func TestMetricsGroupingEnvelope(t *testing.T) {
	type envelope struct {
		resAttrs, scopeAttrs []any
		resSchema            string
		resDropped           uint32
		scopeName            string
		scopeVersion         string
	}
	base := envelope{resAttrs: []any{"service.name", "checkout", "host.name", "h1"}, scopeName: "s", scopeVersion: "1.0"}
	tests := []struct {
		name     string
		b        func(e *envelope)
		wantDocs int
	}{
		{name: "equal resources", wantDocs: 1},
		{name: "resource attributes in another order", b: func(e *envelope) { e.resAttrs = []any{"host.name", "h1", "service.name", "checkout"} }, wantDocs: 1},
		{name: "different resource attributes", b: func(e *envelope) { e.resAttrs = []any{"service.name", "cart", "host.name", "h1"} }, wantDocs: 2},
		{name: "resource schema URL and dropped count do not count", b: func(e *envelope) { e.resSchema, e.resDropped = "https://schema", 3 }, wantDocs: 1},
		{name: "resource control attributes do not count", b: func(e *envelope) { e.resAttrs = append(slices.Clone(e.resAttrs), "elastic.mapping.mode", "otel") }, wantDocs: 1},
		{name: "resource routing attribute splits by index", b: func(e *envelope) { e.resAttrs = append(slices.Clone(e.resAttrs), "data_stream.dataset", "x") }, wantDocs: 2},
		{name: "different scope name", b: func(e *envelope) { e.scopeName = "other" }, wantDocs: 2},
		{name: "scope version does not count", b: func(e *envelope) { e.scopeVersion = "2.0" }, wantDocs: 1},
		{name: "different scope attributes", b: func(e *envelope) { e.scopeAttrs = []any{"lib", "x"} }, wantDocs: 2},
		{name: "scope routing attribute splits by index", b: func(e *envelope) { e.scopeAttrs = []any{"data_stream.namespace", "prod", "data_stream.dataset", "y"} }, wantDocs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := pmetric.NewMetrics()
			for i := range 2 {
				e := base
				if i == 1 && tt.b != nil {
					tt.b(&e)
				}
				rm := md.ResourceMetrics().AppendEmpty()
				rm.SetSchemaUrl(e.resSchema)
				putAttrs(rm.Resource().Attributes(), e.resAttrs...)
				rm.Resource().SetDroppedAttributesCount(e.resDropped)
				sm := rm.ScopeMetrics().AppendEmpty()
				sm.Scope().SetName(e.scopeName)
				sm.Scope().SetVersion(e.scopeVersion)
				putAttrs(sm.Scope().Attributes(), e.scopeAttrs...)
				gaugeInt(sm.Metrics(), []string{"a", "b"}[i], int64(i), "k", "v")
			}
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			if tt.wantDocs == 1 {
				// The first resource's and scope's fields are written.
				f := docs[0].fields(t)
				assert.JSONEq(t, `{"attributes":{"service.name":"checkout","host.name":"h1"}}`, string(f["resource"]))
				assert.JSONEq(t, `{"name":"s","version":"1.0"}`, string(f["scope"]))
			}
		})
	}
}

func TestMetricsRepeatedNameGetsItsOwnDocument(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "cpu", 1, "k", "v")
	gaugeInt(ms, "mem", 2, "k", "v")
	gaugeInt(ms, "cpu", 3, "k", "v")
	gaugeInt(ms, "cpu", 4, "k", "v")
	docs, rep := encodeMetrics(t, md)
	assert.Equal(t, MetricsReport{}, rep)
	require.Len(t, docs, 3, "documents: %s", docsText(docs))
	assert.Equal(t, "1", docs[0].metric(t, "cpu"), "the first point stays in the group's document")
	assert.Equal(t, "2", docs[0].metric(t, "mem"))
	assert.Equal(t, "3", docs[1].metric(t, "cpu"))
	assert.Equal(t, "4", docs[2].metric(t, "cpu"))
	for i, d := range docs {
		assert.JSONEq(t, string(docs[0].fields(t)["attributes"]), string(d.fields(t)["attributes"]), "document %d", i)
		assert.Equal(t, ms0, string(d.fields(t)["@timestamp"]))
	}
	// checkMetricsDocument has checked each _metric_names_hash; spell out the two values.
	assert.Equal(t, `"`+strconv.FormatUint(xxhash.Sum64String("cpumem"), 16)+`"`, string(docs[0].fields(t)["_metric_names_hash"]))
	assert.Equal(t, `"`+strconv.FormatUint(xxhash.Sum64String("cpu"), 16)+`"`, string(docs[1].fields(t)["_metric_names_hash"]))
}

// Inverses of mix, to build attribute maps whose hashes collide.
const (
	mixK  = 0x9e3779b97f4a7c15
	mixC1 = 0xbf58476d1ce4e5b9
	mixC2 = 0x94d049bb133111eb
)

// unmix returns b such that mix(a, b) == out.
func unmix(a, out uint64) uint64 {
	z := unxorshift(out, 31)
	z *= modInverse(mixC2)
	z = unxorshift(z, 27)
	z *= modInverse(mixC1)
	z = unxorshift(z, 30)
	return z - a*mixK
}

func unxorshift(y uint64, s uint) uint64 {
	x := y
	for range 64/s + 1 {
		x = y ^ (x >> s)
	}
	return x
}

// modInverse returns the inverse of the odd c modulo 2^64 (Newton's iteration).
func modInverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}

// collidingInt returns v such that the map {key: v} hashes like {"k": 1}.
func collidingInt(t *testing.T, key string) int64 {
	t.Helper()
	target := mix(xxhash.Sum64String("k"), hashValue(pcommon.NewValueInt(1)))
	hv := unmix(xxhash.Sum64String(key), target)
	v := int64(unmix(1, hv))
	a, b := pcommon.NewMap(), pcommon.NewMap()
	a.PutInt("k", 1)
	b.PutInt(key, v)
	require.Equal(t, hashMap(a), hashMap(b), "the forged collision")
	require.False(t, equalAttrs(a, b))
	return v
}

func TestMetricsHashCollisionDoesNotMerge(t *testing.T) {
	v := collidingInt(t, "j")

	t.Run("data point attributes", func(t *testing.T) {
		md, ms := newMetrics()
		gaugeInt(ms, "m1", 1, "k", 1)
		gaugeInt(ms, "m2", 2, "j", v)
		gaugeInt(ms, "m3", 3, "k", 1) // the same group as m1
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
		assert.JSONEq(t, `{"k":1}`, string(docs[0].fields(t)["attributes"]))
		assert.Equal(t, "1", docs[0].metric(t, "m1"))
		assert.Equal(t, "3", docs[0].metric(t, "m3"))
		assert.JSONEq(t, `{"j":`+strconv.FormatInt(v, 10)+`}`, string(docs[1].fields(t)["attributes"]))
		assert.Equal(t, "2", docs[1].metric(t, "m2"))
	})
	t.Run("resource attributes", func(t *testing.T) {
		md := pmetric.NewMetrics()
		for i, kv := range [][]any{{"k", 1}, {"j", v}} {
			rm := md.ResourceMetrics().AppendEmpty()
			putAttrs(rm.Resource().Attributes(), kv...)
			gaugeInt(rm.ScopeMetrics().AppendEmpty().Metrics(), "m"+strconv.Itoa(i), 1)
		}
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
	})
	t.Run("scope attributes", func(t *testing.T) {
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		for i, kv := range [][]any{{"k", 1}, {"j", v}} {
			sm := rm.ScopeMetrics().AppendEmpty()
			sm.Scope().SetName("s")
			putAttrs(sm.Scope().Attributes(), kv...)
			gaugeInt(sm.Metrics(), "m"+strconv.Itoa(i), 1)
		}
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
	})
}

// TestSamePointGroup checks the equality behind the hash: points with equal hashes that differ
// in any grouped part are apart.
func TestSamePointGroup(t *testing.T) {
	_, ms := newMetrics()
	gaugeInt(ms, "a", 1, "k", "v")
	gaugeInt(ms, "b", 1, "k", "v")
	gaugeInt(ms, "c", 1, "k", "w")
	ms.AppendEmpty().SetName("unit")
	ms.At(3).SetUnit("By")
	ms.At(3).SetEmptyGauge().DataPoints().AppendEmpty().Attributes().PutStr("k", "v")
	res1, res2 := pcommon.NewMap(), pcommon.NewMap()
	res1.PutStr("r", "1")
	res2.PutStr("r", "2")
	scope := pcommon.NewMap()

	var e Encoder
	e.metrics.resources = []envelopeRef{{attrs: res1}, {attrs: res1}, {attrs: res2}}
	e.metrics.scopes = []envelopeRef{{attrs: scope, name: "s"}, {attrs: scope, name: "t"}}
	for i := range ms.Len() {
		m := ms.At(i)
		e.metrics.metrics = append(e.metrics.metrics, metricInfo{metric: m, name: m.Name(), unit: m.Unit(), typ: m.Type()})
	}
	point := func(metric int, change func(p *metricPoint)) *metricPoint {
		attrs := ms.At(metric).Gauge().DataPoints().At(0).Attributes()
		_, shape := hashAttrs(attrs)
		p := &metricPoint{metric: int32(metric), attrs: attrs, shape: shape, hash: 42, ts: 1, start: 1}
		if change != nil {
			change(p)
		}
		return p
	}
	tests := []struct {
		name string
		b    *metricPoint
		want bool
	}{
		{name: "same group", b: point(1, nil), want: true},
		{name: "another resource with equal attributes", b: point(1, func(p *metricPoint) { p.res = 1 }), want: true},
		{name: "another resource with other attributes", b: point(1, func(p *metricPoint) { p.res = 2 }), want: false},
		{name: "another scope name", b: point(1, func(p *metricPoint) { p.scope = 1 }), want: false},
		{name: "another target", b: point(1, func(p *metricPoint) { p.target = 1 }), want: false},
		{name: "another timestamp", b: point(1, func(p *metricPoint) { p.ts = 2 }), want: false},
		{name: "another start", b: point(1, func(p *metricPoint) { p.start = 2 }), want: false},
		{name: "other attributes", b: point(2, nil), want: false},
		{name: "another unit", b: point(3, nil), want: false},
	}
	a := point(0, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.samePointGroup(a, tt.b); got != tt.want {
				t.Errorf("samePointGroup = %v, want %v", got, tt.want)
			}
			if got := e.samePointGroup(tt.b, a); got != tt.want {
				t.Errorf("samePointGroup (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

// largeAttrs returns the pairs k0=0 to k<2*linearMax-1>, rotated by r.
func largeAttrs(r int) []any {
	n := 2 * linearMax
	kv := make([]any, 0, 2*n)
	for i := range n {
		j := (i + r) % n
		kv = append(kv, "k"+strconv.Itoa(j), j)
	}
	return kv
}

func TestEqualAttrsAndHashMap(t *testing.T) {
	mk := func(kv ...any) pcommon.Map {
		m := pcommon.NewMap()
		putAttrs(m, kv...)
		return m
	}
	nested := func(keys ...string) pcommon.Map {
		m := pcommon.NewMap()
		n := m.PutEmptyMap("n")
		for _, k := range keys {
			n.PutStr(k, k)
		}
		return m
	}
	tests := []struct {
		name string
		a, b pcommon.Map
		want bool
	}{
		{name: "both empty", a: mk(), b: mk(), want: true},
		{name: "key order", a: mk("a", 1, "b", "x", "c", true), b: mk("c", true, "a", 1, "b", "x"), want: true},
		{name: "different value", a: mk("a", 1), b: mk("a", 2), want: false},
		{name: "int and double", a: mk("a", 1), b: mk("a", 1.0), want: false},
		{name: "int and string", a: mk("a", 1), b: mk("a", "1"), want: false},
		{name: "missing key", a: mk("a", 1, "b", 2), b: mk("a", 1), want: false},
		{name: "extra key", a: mk("a", 1), b: mk("a", 1, "b", 2), want: false},
		{name: "control attributes ignored", a: mk("a", 1, "data_stream.dataset", "x"), b: mk("elasticsearch.mapping.hints", hints("_doc_count"), "a", 1), want: true},
		{name: "only control attributes", a: mk("elasticsearch.index", "i"), b: mk(), want: true},
		{name: "nested map key order", a: nested("x", "y"), b: nested("y", "x"), want: true},
		{name: "nested map differs", a: nested("x", "y"), b: nested("x"), want: false},
		{name: "slices", a: mk("s", hints("a", "b")), b: mk("s", hints("a", "b")), want: true},
		{name: "slice order counts", a: mk("s", hints("a", "b")), b: mk("s", hints("b", "a")), want: false},
		{name: "repeated key, first value wins", a: rawAttrs(t, "k", "v", "k", "w"), b: rawAttrs(t, "k", "v"), want: true},
		{name: "repeated key, second value ignored", a: rawAttrs(t, "k", "v", "k", "w"), b: rawAttrs(t, "k", "w"), want: false},
		{name: "repeated key against another key", a: rawAttrs(t, "k", "v", "k", "v"), b: rawAttrs(t, "k", "v", "j", "v"), want: false},
		{name: "large maps, key order", a: mk(largeAttrs(0)...), b: mk(largeAttrs(1)...), want: true},
		{name: "large maps differ", a: mk(largeAttrs(0)...), b: mk(append(largeAttrs(1)[2:], "k0", "x")...), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := equalAttrs(tt.a, tt.b); got != tt.want {
				t.Errorf("equalAttrs = %v, want %v", got, tt.want)
			}
			if got := equalAttrs(tt.b, tt.a); got != tt.want {
				t.Errorf("equalAttrs (swapped) = %v, want %v", got, tt.want)
			}
			_, sa := hashAttrs(tt.a)
			_, sb := hashAttrs(tt.b)
			if got := equalPointAttrs(tt.a, tt.b, sa, sb); got != tt.want {
				t.Errorf("equalPointAttrs = %v, want %v", got, tt.want)
			}
			if got := equalPointAttrs(tt.b, tt.a, sb, sa); got != tt.want {
				t.Errorf("equalPointAttrs (swapped) = %v, want %v", got, tt.want)
			}
			if tt.want && hashMap(tt.a) != hashMap(tt.b) {
				t.Errorf("equal maps hash apart: %x, %x", hashMap(tt.a), hashMap(tt.b))
			}
			if !tt.want && hashMap(tt.a) == hashMap(tt.b) {
				t.Errorf("different maps hash alike: %x", hashMap(tt.a))
			}
		})
	}
}

// TestMetricValues checks the value and dynamic template of each kind of data point, alone in
// its document.
func TestMetricValues(t *testing.T) {
	const name = "m"
	tests := []struct {
		name          string
		add           func(ms pmetric.MetricSlice)
		wantValue     string // the bytes of metrics.m
		wantTemplates map[string]string
		wantQuantiles string // the bytes of summary_quantiles, "" for none
		wantDocCount  string // the bytes of _doc_count, "" for none
		wantNonFinite int
	}{
		{name: "gauge int", add: func(ms pmetric.MetricSlice) { gaugeInt(ms, name, -42) }, wantValue: "-42", wantTemplates: map[string]string{"metrics.m": "gauge_long"}},
		{name: "gauge double", add: func(ms pmetric.MetricSlice) { gaugeDouble(ms, name, 2) }, wantValue: "2.0", wantTemplates: map[string]string{"metrics.m": "gauge_double"}},
		{name: "gauge double tiny", add: func(ms pmetric.MetricSlice) { gaugeDouble(ms, name, 1e-9) }, wantValue: "1e-9", wantTemplates: map[string]string{"metrics.m": "gauge_double"}},
		{
			name: "sum monotonic cumulative int",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityCumulative).SetIntValue(7)
			},
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "counter_long"},
		},
		{
			name: "sum monotonic cumulative double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityCumulative).SetDoubleValue(7.5)
			},
			wantValue:     "7.5",
			wantTemplates: map[string]string{"metrics.m": "counter_double"},
		},
		{
			name:          "sum monotonic delta int",
			add:           func(ms pmetric.MetricSlice) { sum(ms, name, true, pmetric.AggregationTemporalityDelta).SetIntValue(7) },
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum monotonic delta double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityDelta).SetDoubleValue(7)
			},
			wantValue:     "7.0",
			wantTemplates: map[string]string{"metrics.m": "gauge_double"},
		},
		{
			name: "sum monotonic unspecified temporality",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityUnspecified).SetIntValue(7)
			},
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum non-monotonic cumulative int",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, false, pmetric.AggregationTemporalityCumulative).SetIntValue(-3)
			},
			wantValue:     "-3",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum non-monotonic delta double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, false, pmetric.AggregationTemporalityDelta).SetDoubleValue(0.5)
			},
			wantValue:     "0.5",
			wantTemplates: map[string]string{"metrics.m": "gauge_double"},
		},
		{
			name: "histogram midpoints",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1})
			},
			wantValue:     `{"counts":[1,6,2,1],"values":[5.0,35.0,75.0,100.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram first bound zero",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 3, 5, []float64{0, 10}, []uint64{2, 1, 0}) },
			wantValue:     `{"counts":[2,1],"values":[0.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram first bound negative",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 6, 0, []float64{-5, 5}, []uint64{3, 1, 2}) },
			wantValue:     `{"counts":[3,1,2],"values":[-5.0,0.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram only the overflow bucket",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 40, []float64{1, 2}, []uint64{0, 0, 4}) },
			wantValue:     `{"counts":[4],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram all buckets empty",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, 0, []float64{1, 2}, []uint64{0, 0, 0}) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 10, nil, nil) },
			wantValue:     `{"counts":[4],"values":[2.5]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, one bucket count",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 10, nil, []uint64{4}) },
			wantValue:     `{"counts":[4],"values":[2.5]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, count zero",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, 0, nil, nil) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, infinite sum",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 2, math.Inf(1), nil, nil) },
			wantValue:     `{"counts":[2],"values":[null]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram counts capped at the int64 maximum",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, math.MaxUint64, 1, []float64{1}, []uint64{math.MaxUint64, uint64(math.MaxInt64) + 1})
			},
			wantValue:     `{"counts":[9223372036854775807,9223372036854775807],"values":[0.5,1.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[1,6,3],"values":[10.0,50.0,100.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, overflow joins an earlier bucket",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 8, 0, []float64{10, 20, 50}, []uint64{1, 2, 0, 5}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[1,7],"values":[10.0,20.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, only the overflow bucket",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 4, 0, []float64{1, 2}, []uint64{0, 0, 4}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[4],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, first bucket not halved",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 0, []float64{10}, []uint64{3, 0}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[3],"values":[10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, overflow sum capped",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, []float64{1, 2}, []uint64{0, math.MaxUint64, 5}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[9223372036854775807],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "aggregate_metric_double on a histogram",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
			},
			wantValue:     `{"sum":250.0,"value_count":10}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "aggregate_metric_double wins over histogram:raw",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("histogram:raw", "aggregate_metric_double"))
			},
			wantValue:     `{"sum":250.0,"value_count":10}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "aggregate_metric_double with a NaN sum",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, math.NaN(), []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
			},
			wantValue:     `{"sum":null,"value_count":10}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "aggregate_metric_double on an exponential histogram",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 0, 1, expBuckets{}, expBuckets{counts: []uint64{2}}, "elasticsearch.mapping.hints", hints("aggregate_metric_double", "histogram:raw")).SetSum(4.5)
			},
			wantValue:     `{"sum":4.5,"value_count":3}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "unknown hints are ignored",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 0, []float64{10}, []uint64{3, 0}, "elasticsearch.mapping.hints", hints("whatever", "HISTOGRAM:RAW"))
			},
			wantValue:     `{"counts":[3],"values":[5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram scale 0",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 0, 1, expBuckets{offset: 1, counts: []uint64{1, 2}}, expBuckets{counts: []uint64{2, 1}})
			},
			wantValue:     `{"counts":[2,1,1,2,1],"values":[-6.0,-3.0,0.0,1.5,3.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram negative scale",
			add: func(ms pmetric.MetricSlice) {
				// Scale -1: base 4, bucket 0 is (1, 4], bucket 1 is (4, 16].
				expHistogram(ms, name, -1, 0, expBuckets{}, expBuckets{counts: []uint64{1, 3}})
			},
			wantValue:     `{"counts":[1,3],"values":[2.5,10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram negative offset",
			add: func(ms pmetric.MetricSlice) {
				// Scale 0: bucket -2 is (0.25, 0.5], bucket -1 is (0.5, 1].
				expHistogram(ms, name, 0, 0, expBuckets{offset: -2, counts: []uint64{5, 0}}, expBuckets{offset: -2, counts: []uint64{1, 2}})
			},
			wantValue:     `{"counts":[5,1,2],"values":[-0.375,0.375,0.75]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "exponential histogram zero bucket only",
			add:           func(ms pmetric.MetricSlice) { expHistogram(ms, name, 3, 4, expBuckets{}, expBuckets{}) },
			wantValue:     `{"counts":[4],"values":[0.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram empty",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 3, 0, expBuckets{}, expBuckets{counts: []uint64{0, 0}})
			},
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "summary",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, 5, 12.5) },
			wantValue:     `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name:          "summary with a NaN sum",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, 5, math.NaN()) },
			wantValue:     `{"sum":null,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name:          "summary count capped",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, math.MaxUint64, 1) },
			wantValue:     `{"sum":1.0,"value_count":9223372036854775807}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "summary quantiles",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.99, 9.5}, [2]float64{1, 10})
			},
			wantValue: `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{
				"metrics.m": "summary", "summary_quantiles.m.q0_5": "gauge_double",
				"summary_quantiles.m.q0_99": "gauge_double", "summary_quantiles.m.q1": "gauge_double",
			},
			wantQuantiles: `{"m":{"q0_5":2.0,"q0_99":9.5,"q1":10.0}}`,
		},
		{
			name: "summary repeated quantile, the first wins",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.5, 3}, [2]float64{0.9, 4})
			},
			wantValue: `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{
				"metrics.m": "summary", "summary_quantiles.m.q0_5": "gauge_double", "summary_quantiles.m.q0_9": "gauge_double",
			},
			wantQuantiles: `{"m":{"q0_5":2.0,"q0_9":4.0}}`,
		},
		{
			name: "summary NaN and infinite quantiles skipped",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, math.NaN()}, [2]float64{0.9, 1}, [2]float64{0.99, math.Inf(1)}, [2]float64{math.NaN(), 3})
			},
			wantValue:     `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary", "summary_quantiles.m.q0_9": "gauge_double"},
			wantQuantiles: `{"m":{"q0_9":1.0}}`,
			wantNonFinite: 3,
		},
		{
			name: "_doc_count of a number",
			add: func(ms pmetric.MetricSlice) {
				gaugeInt(ms, name, 5, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     "5",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
			wantDocCount:  "1",
		},
		{
			name: "_doc_count of a histogram",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"counts":[4,6],"values":[5.0,10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
			wantDocCount:  "10",
		},
		{
			name: "_doc_count of an empty histogram is left out",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, nil, nil, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "_doc_count of a summary",
			add: func(ms pmetric.MetricSlice) {
				putAttrs(summary(ms, name, 7, 1).Attributes(), "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"sum":1.0,"value_count":7}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
			wantDocCount:  "7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.add(ms)
			docs, rep := encodeMetrics(t, md)
			require.Len(t, docs, 1, "documents: %s", docsText(docs))
			d := docs[0]
			if got := d.metric(t, name); got != tt.wantValue {
				t.Errorf("metrics.m = %s, want %s", got, tt.wantValue)
			}
			got := map[string]string{}
			for _, tpl := range d.templates {
				got[tpl.Path] = tpl.Template
			}
			assert.Equal(t, tt.wantTemplates, got, "dynamic templates")
			f := d.fields(t)
			assert.Equal(t, tt.wantQuantiles, string(f["summary_quantiles"]), "summary_quantiles")
			assert.Equal(t, tt.wantDocCount, string(f["_doc_count"]), "_doc_count")
			assert.Equal(t, tt.wantNonFinite, rep.NonFinite, "NonFinite")
			if tt.wantNonFinite > 0 {
				assert.Equal(t, name, rep.NonFiniteName)
			}
			assert.Equal(t, [numRejectReasons]int{}, rep.Rejected)
		})
	}
}

// TestExponentialHistogramMidpoints compares the midpoints with 2^(i/2^scale), computed another
// way, over the whole scale range, and checks that the values ascend. At scale -10 the base is
// 2^1024, so bucket 1 starts beyond the largest float64: its midpoint is infinite and written as
// null.
func TestExponentialHistogramMidpoints(t *testing.T) {
	for _, scale := range []int32{-10, -3, -1, 0, 1, 2, 5, 10, 20} {
		t.Run("scale="+strconv.Itoa(int(scale)), func(t *testing.T) {
			md, ms := newMetrics()
			counts := []uint64{1, 2, 0, 3}
			expHistogram(ms, "m", scale, 1, expBuckets{offset: -2, counts: counts}, expBuckets{offset: -2, counts: counts})
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1)
			var h struct {
				Counts []uint64   `json:"counts"`
				Values []*float64 `json:"values"`
			}
			require.NoError(t, json.Unmarshal([]byte(docs[0].metric(t, "m")), &h))
			bound := func(i int) float64 { return math.Pow(2, float64(i)*math.Pow(2, -float64(scale))) }
			mid := func(i int) float64 { return (bound(i) + bound(i+1)) / 2 }
			wantValues := []float64{-mid(1), -mid(-1), -mid(-2), 0, mid(-2), mid(-1), mid(1)}
			assert.Equal(t, []uint64{3, 2, 1, 1, 1, 2, 3}, h.Counts)
			require.Len(t, h.Values, len(wantValues))
			var finite []float64
			for i, want := range wantValues {
				got := h.Values[i]
				if math.IsInf(want, 0) {
					assert.Nil(t, got, "value %d: an infinite midpoint is null", i)
					continue
				}
				if !assert.NotNil(t, got, "value %d", i) {
					continue
				}
				if want == 0 || math.Abs(want) < 1e-300 {
					assert.InDelta(t, want, *got, 1e-300, "value %d", i)
				} else {
					assert.InEpsilon(t, want, *got, 1e-12, "value %d", i)
				}
				finite = append(finite, *got)
			}
			assert.True(t, slices.IsSorted(finite), "values ascend: %v", finite)
		})
	}
}

// TestDocCountFromLastHintedPoint checks that _doc_count comes from the last hinted point of a
// group, in the order the points came.
func TestDocCountFromLastHintedPoint(t *testing.T) {
	hinted := []any{"k", "v", "elasticsearch.mapping.hints", hints("_doc_count")}
	tests := []struct {
		name string
		add  func(ms pmetric.MetricSlice)
		want string
	}{
		{
			name: "number then histogram",
			add: func(ms pmetric.MetricSlice) {
				gaugeInt(ms, "a", 1, hinted...)
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
			},
			want: "10",
		},
		{
			name: "histogram then number",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
				gaugeInt(ms, "a", 1, hinted...)
			},
			want: "1",
		},
		{
			name: "unhinted points do not count",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
				histogram(ms, "c", 3, 1, nil, nil, "k", "v")
			},
			want: "10",
		},
		{
			name: "no hint",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, "k", "v")
			},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.add(ms)
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1, "documents: %s", docsText(docs))
			assert.Equal(t, tt.want, string(docs[0].fields(t)["_doc_count"]))
		})
	}
}

func TestNonFiniteNumbersAreSkipped(t *testing.T) {
	md, ms := newMetrics()
	gaugeDouble(ms, "nan", math.NaN(), "k", "v")
	gaugeDouble(ms, "inf", math.Inf(-1), "k", "v")
	gaugeDouble(ms, "ok", 1.5, "k", "v")
	gaugeDouble(ms, "alone", math.NaN(), "k", "other") // a group with nothing left: no document
	docs, rep := encodeMetrics(t, md)
	require.Len(t, docs, 1, "documents: %s", docsText(docs))
	d := docs[0]
	assert.Equal(t, "1.5", d.metric(t, "ok"))
	assert.Empty(t, d.metric(t, "nan"))
	assert.Empty(t, d.metric(t, "inf"))
	assert.Equal(t, []DynamicTemplate{{Path: "metrics.ok", Template: "gauge_double"}}, d.templates)
	assert.JSONEq(t, `"`+strconv.FormatUint(xxhash.Sum64String("ok"), 16)+`"`, string(d.fields(t)["_metric_names_hash"]),
		"a skipped value's name is not in the hash")
	assert.Equal(t, 3, rep.NonFinite)
	assert.Equal(t, "nan", rep.NonFiniteName)
}

// TestMetricsBadInput feeds data that a well-behaved SDK does not send. Every document written
// must still be valid; what cannot be written is counted.
func TestMetricsBadInput(t *testing.T) {
	rejected := func(reason string, n int) [numRejectReasons]int {
		var r [numRejectReasons]int
		r[rejectIndex(reason)] = n
		return r
	}
	tests := []struct {
		name         string
		md           func() pmetric.Metrics
		wantDocs     int
		wantRejected [numRejectReasons]int
		wantNames    string // the first name rejected
		check        func(t *testing.T, docs []metricDoc)
	}{
		{name: "empty metrics", md: pmetric.NewMetrics},
		{
			name: "resource and scope without metrics",
			md: func() pmetric.Metrics {
				md := pmetric.NewMetrics()
				md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
				md.ResourceMetrics().AppendEmpty()
				return md
			},
		},
		{
			name: "metric of type empty",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				ms.AppendEmpty().SetName("empty")
				gaugeInt(ms, "ok", 1)
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectUnsupportedType, 1),
			wantNames:    "empty",
		},
		{
			name: "data points without a value",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gauge(ms, "novalue", "k", "v")
				sum(ms, "novalue.sum", true, pmetric.AggregationTemporalityCumulative, "k", "v")
				gaugeInt(ms, "ok", 1, "k", "v")
				gauge(ms, "alone", "k", "w")
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectNoValue, 3),
			wantNames:    "novalue",
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				assert.Equal(t, "1", docs[0].metric(t, "ok"))
				assert.Len(t, docs[0].templates, 1)
			},
		},
		{
			name: "histogram bucket counts that do not match the bounds",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				histogram(ms, "short", 3, 1, []float64{1, 2, 3}, []uint64{1, 2})
				histogram(ms, "long", 3, 1, []float64{1}, []uint64{1, 1, 1})
				histogram(ms, "nobounds", 3, 1, nil, []uint64{1, 2})
				histogram(ms, "nocounts", 3, 1, []float64{1}, nil)
				histogram(ms, "aggregate", 3, 1, []float64{1}, nil, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
				return md
			},
			wantRejected: rejected(RejectBucketMismatch, 5),
			wantNames:    "short",
		},
		{
			name: "exponential histogram scale out of range",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				expHistogram(ms, "high", 21, 1, expBuckets{}, expBuckets{})
				expHistogram(ms, "low", -11, 1, expBuckets{}, expBuckets{})
				expHistogram(ms, "max", 20, 1, expBuckets{}, expBuckets{}, "k", "max")
				expHistogram(ms, "min", -10, 1, expBuckets{}, expBuckets{}, "k", "min")
				return md
			},
			wantDocs:     2,
			wantRejected: rejected(RejectScaleOutOfRange, 2),
			wantNames:    "high",
		},
		{
			name: "unroutable data point",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "bad", 1, "elasticsearch.index", "BAD")
				gaugeInt(ms, "good", 1)
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectInvalidIndexName, 1),
			wantNames:    "bad",
		},
		{
			name: "zero timestamps",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "m", 1).SetTimestamp(0)
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				f := docs[0].fields(t)
				assert.Equal(t, "0", string(f["@timestamp"]))
				assert.NotContains(t, f, "start_timestamp")
			},
		},
		{
			name: "ten thousand attributes on one point",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				dp := gaugeInt(ms, "m", 1)
				dp.Attributes().EnsureCapacity(10_000)
				for i := range 10_000 {
					dp.Attributes().PutInt("attr."+strconv.Itoa(i), int64(i))
				}
				gaugeInt(ms, "n", 2).Attributes().EnsureCapacity(10_000)
				dp.Attributes().CopyTo(ms.At(1).Gauge().DataPoints().At(0).Attributes())
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				keys, err := objectKeys(docs[0].fields(t)["attributes"])
				require.NoError(t, err)
				assert.Len(t, keys, 10_000)
			},
		},
		{
			name: "map-valued attributes are JSON strings",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				res := md.ResourceMetrics().At(0).Resource().Attributes()
				k8s := res.PutEmptyMap("k8s")
				k8s.PutStr("pod", "p-1")
				k8s.PutStr("node", "n-1")
				scope := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Scope().Attributes()
				scope.PutEmptyMap("lib").PutBool("ok", true)
				dp := gaugeInt(ms, "m", 1)
				m := dp.Attributes().PutEmptyMap("labels")
				m.PutInt("z", 1)
				m.PutEmptyBytes("b").FromRaw([]byte{1, 2, 0xff})
				m.PutEmptyMap("inner").PutStr("a", "x\"y")
				dp.Attributes().PutEmptySlice("list").AppendEmpty().SetEmptyMap().PutStr("k", "v")
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				f := docs[0].fields(t)
				assert.JSONEq(t, `{"labels":"{\"b\":\"AQL/\",\"inner\":{\"a\":\"x\\\"y\"},\"z\":1}","list":["{\"k\":\"v\"}"]}`, string(f["attributes"]))
				assert.JSONEq(t, `{"attributes":{"service.name":"checkout","k8s":"{\"node\":\"n-1\",\"pod\":\"p-1\"}"}}`, string(f["resource"]))
				assert.JSONEq(t, `{"name":"test","attributes":{"lib":"{\"ok\":true}"}}`, string(f["scope"]))
			},
		},
		{
			name: "map-valued attributes in another key order group together",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				for i, keys := range [][]string{{"a", "b"}, {"b", "a"}} {
					m := gaugeInt(ms, "m"+strconv.Itoa(i), 1).Attributes().PutEmptyMap("labels")
					for _, k := range keys {
						m.PutStr(k, k)
					}
				}
				return md
			},
			wantDocs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, rep := encodeMetrics(t, tt.md())
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			assert.Equal(t, tt.wantRejected, rep.Rejected)
			for i, n := range rep.Rejected {
				if n > 0 {
					assert.Equal(t, tt.wantNames, rep.RejectedNames[i])
				}
			}
			if tt.wantRejected[rejectIndex(RejectInvalidIndexName)] > 0 {
				require.ErrorIs(t, rep.FirstError, errBadIndex)
			} else {
				require.NoError(t, rep.FirstError)
			}
			if tt.check != nil {
				tt.check(t, docs)
			}
		})
	}
}

func TestNoIndexHintSkipsThePoint(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "skipped", 1, "k", "v", "elasticsearch.mapping.hints", hints("_noindex"))
	histogram(ms, "skipped.too", 1, 1, nil, nil, "k", "v", "elasticsearch.mapping.hints", hints("aggregate_metric_double", "_noindex"))
	gaugeInt(ms, "kept", 2, "k", "v")
	docs, rep := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	assert.Equal(t, 2, rep.NoIndex)
	keys, err := objectKeys(docs[0].fields(t)["metrics"])
	require.NoError(t, err)
	assert.Equal(t, []string{"kept"}, keys)
}

// TestMetricsDocumentKeyOrder checks the whole document of a group against DOCUMENTS.md.
func TestMetricsDocumentKeyOrder(t *testing.T) {
	md, ms := newMetrics()
	ms.AppendEmpty()
	m := ms.At(0)
	m.SetName("http.requests")
	m.SetUnit("{request}")
	s := m.SetEmptySum()
	s.SetIsMonotonic(true)
	s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := s.DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetStartTimestamp(start0 + 999_999)
	dp.SetIntValue(12)
	putAttrs(dp.Attributes(), "route", "/cart", "elasticsearch.mapping.hints", hints("_doc_count"))
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	want := `{"@timestamp":1700000000123,"start_timestamp":1699999000000,"unit":"{request}",` +
		`"data_stream":{"type":"metrics","dataset":"generic.otel","namespace":"default"},` +
		`"attributes":{"route":"/cart"},"resource":{"attributes":{"service.name":"checkout"}},"scope":{"name":"test"},` +
		`"metrics":{"http.requests":12},"_doc_count":1,"_metric_names_hash":"` + strconv.FormatUint(xxhash.Sum64String("http.requests"), 16) + `"}`
	assert.Equal(t, want, string(docs[0].raw))
	assert.Equal(t, "metrics-generic.otel-default", docs[0].index)
	assert.Equal(t, metricsStream, docs[0].ds)
	assert.Equal(t, []DynamicTemplate{{Path: "metrics.http.requests", Template: "counter_long"}}, docs[0].templates)
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

// TestSummaryNamesWithInvalidUTF8 is the same for summary_quantiles, whose keys are the names.
func TestSummaryNamesWithInvalidUTF8(t *testing.T) {
	md, ms := newMetrics()
	summary(ms, "q\xff", 1, 1, [2]float64{0.5, 1})
	summary(ms, "q\xfe", 1, 1, [2]float64{0.5, 1})
	docs, _ := encodeMetrics(t, md)
	assert.Len(t, docs, 2, "documents: %s", docsText(docs))
}

// TestMetricTimestampsBeyondInt64 checks a timestamp past 2^63 ns (year 2262): pdata's
// timestamps are unsigned, and the logs and spans write them as such.
func TestMetricTimestampsBeyondInt64(t *testing.T) {
	md, ms := newMetrics()
	dp := gaugeInt(ms, "m", 1)
	dp.SetTimestamp(1 << 63)
	dp.SetStartTimestamp(1 << 63)
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	f := docs[0].fields(t)
	assert.Equal(t, "9223372036854", string(f["@timestamp"]), "1<<63 ns in milliseconds")
	assert.Equal(t, "9223372036854", string(f["start_timestamp"]))
}

// TestDocCountCapped checks that _doc_count stays within what Elasticsearch accepts. The
// _doc_count field is an integer, not a long: Elasticsearch 9.5.4 indexes 2147483647 and refuses
// the whole document for 2147483648 or more (400 document_parsing_exception "failed to parse
// field [_doc_count] of type [_doc_count]"). The histogram counts themselves are longs.
func TestDocCountCapped(t *testing.T) {
	tests := []struct {
		name  string
		count uint64
		want  string
	}{
		{name: "int32 maximum", count: math.MaxInt32, want: "2147483647"},
		{name: "one more", count: math.MaxInt32 + 1, want: "2147483647"},
		{name: "uint64 maximum", count: math.MaxUint64, want: "2147483647"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			histogram(ms, "m", tt.count, 1, nil, nil, "elasticsearch.mapping.hints", hints("_doc_count"))
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1)
			counts, _, _ := strings.Cut(strings.TrimPrefix(docs[0].metric(t, "m"), `{"counts":[`), "]")
			assert.Equal(t, strconv.FormatUint(min(tt.count, math.MaxInt64), 10), counts, "the histogram count is a long")
			if got := string(docs[0].fields(t)["_doc_count"]); got != tt.want {
				t.Errorf("_doc_count = %s, want %s", got, tt.want)
			}
		})
	}
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
		{name: "every type", md: everyTypeMetrics(100)},
	}
	for _, tt := range tests {
		tt.md.MarkReadOnly()
		for _, mode := range []Mode{ModeOTel, ModeECS} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				var e Encoder
				e.SetMode(mode)
				var sink countingSink
				buf := make([]byte, 0, 1<<20)
				e.EncodeMetrics(&buf, tt.md, fixedRoute, &sink)
				require.Positive(t, sink.docs)
				allocs := testing.AllocsPerRun(20, func() {
					buf = buf[:0]
					e.EncodeMetrics(&buf, tt.md, fixedRoute, &sink)
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

// TestGroupingScalesLinearly encodes one data point with many attributes, and one group with
// many metric names, at n and at 8n, and compares the times: linear work takes about 8 times as
// long at 8n, work that grows with the square of the count (a pcommon.Map.Get per key while
// hashing and comparing attributes, a linear scan of the names written for every name) 64
// times, and a single large payload then holds an exporter goroutine for seconds. Each size
// is timed five times and the fastest run counts, so that a busy machine (or the race
// detector) slows both sizes alike; the limit, 40 times, leaves room for cache effects (the
// larger input no longer fits the caches: up to 2 times per element here) and noise.
func TestGroupingScalesLinearly(t *testing.T) {
	tests := []struct {
		name string
		n    int
		md   func(n int) pmetric.Metrics
	}{
		{
			name: "attributes on one point",
			n:    2_000,
			md: func(n int) pmetric.Metrics {
				md, ms := newMetrics()
				raw := make(map[string]any, n)
				for i := range n {
					raw["attr."+strconv.Itoa(i)] = i
				}
				require.NoError(t, gaugeInt(ms, "m", 1).Attributes().FromRaw(raw))
				return md
			},
		},
		{
			name: "metric names in one group",
			n:    4_000,
			md: func(n int) pmetric.Metrics {
				md, ms := newMetrics()
				for i := range n {
					gaugeInt(ms, "metric."+strconv.Itoa(i), 1)
				}
				return md
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fastest := func(n int) time.Duration {
				md := tt.md(n)
				var e Encoder
				var buf []byte
				best := time.Duration(math.MaxInt64)
				for range 5 {
					var sink countingSink
					buf = buf[:0]
					start := time.Now()
					e.EncodeMetrics(&buf, md, fixedRoute, &sink)
					best = min(best, time.Since(start))
					require.Equal(t, 1, sink.docs)
				}
				return best
			}
			small, large := fastest(tt.n), fastest(8*tt.n)
			if ratio := float64(large) / float64(small); ratio > 40 {
				t.Errorf("8 times as many %s took %.0f times as long (%v vs %v); linear work takes about 8 times", tt.name, ratio, large, small)
			}
		})
	}
}

// TestBucketValueCache checks that cached bucket values are those of the bounds asked for,
// whichever bounds came before: more sets than the cache holds, in turn, raw and not, and
// bounds that differ only in the sign of zero.
func TestBucketValueCache(t *testing.T) {
	sets := [][]float64{
		{0, 1},
		{math.Copysign(0, -1), 1},
		{0.005, 0.01, 0.025, 0.05, 0.1},
		{0.005, 0.01, 0.025, 0.05},
		{-5, -1, 0, 1, 5},
		{1, 2, 3, 4, 5, 6},
		{0.1 + 0.2, math.Pi, math.Inf(1)},
	}
	var c bucketValueCache
	for round := range 3 {
		for _, raw := range []bool{false, true} {
			for _, set := range sets {
				bounds := pcommon.NewFloat64Slice()
				bounds.FromRaw(set)
				v := c.lookup(bounds, raw)
				for i := range len(set) + 1 {
					want := string(appendFloat(nil, bucketValue(bounds, i, raw)))
					if got := string(v.text(bounds, i)); got != want {
						t.Fatalf("round %d, raw %v, bounds %v, bucket %d: %s, want %s", round, raw, set, i, got, want)
					}
				}
			}
		}
	}
}
