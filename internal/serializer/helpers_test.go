// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Documents: checking and decoding them, and the encoders and records the tests of every signal
// write them from.

// checkDocument fails the test unless doc is one JSON object on one line, with no name repeated
// within an object at any depth (Elasticsearch rejects such a document).
func checkDocument(t testing.TB, doc []byte) {
	t.Helper()
	if !json.Valid(doc) {
		t.Fatalf("document is not valid JSON: %q", doc)
	}
	if i := bytes.IndexByte(doc, '\n'); i >= 0 {
		t.Fatalf("document has a raw newline at byte %d: %q", i, doc)
	}
	if len(doc) == 0 || doc[0] != '{' {
		t.Fatalf("document is not a JSON object: %q", doc)
	}
	name, err := duplicateName(doc)
	if err != nil {
		t.Fatalf("reading document: %v", err)
	}
	if name != "" {
		t.Errorf("document repeats the name %q in one object: %q", name, doc)
	}
}

// duplicateName returns the first name found twice in one object of doc, compared after
// decoding, or "".
func duplicateName(doc []byte) (string, error) {
	type frame struct {
		names    map[string]struct{} // nil for an array
		wantName bool
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].wantName = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{names: map[string]struct{}{}, wantName: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantName {
				if _, ok := stack[n-1].names[v]; ok {
					return v, nil
				}
				stack[n-1].names[v] = struct{}{}
				stack[n-1].wantName = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// decodeDocument decodes doc with numbers kept as json.Number, so 1 and 1.0 stay apart.
func decodeDocument(t testing.TB, doc []byte) map[string]any {
	t.Helper()
	checkDocument(t, doc)
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding %q: %v", doc, err)
	}
	return m
}

func checkDoc(t *testing.T, got []byte, want string) {
	t.Helper()
	checkDocument(t, got)
	if string(got) != want {
		t.Errorf("document\n got %s\nwant %s", got, want)
	}
}

// newTestEncoder returns an Encoder with the given resource and scope set.
func newTestEncoder(res pcommon.Resource, scope pcommon.InstrumentationScope) *Encoder {
	var e Encoder
	e.SetResource(res, "")
	e.SetScope(scope, "")
	return &e
}

// modeEncoder returns an Encoder in mode m with res and scope set.
func modeEncoder(m Mode, res pcommon.Resource, scope pcommon.InstrumentationScope) *Encoder {
	var e Encoder
	e.SetMode(m)
	e.SetResource(res, "")
	e.SetScope(scope, "")
	return &e
}

// encodeLog writes rec with an empty resource and scope and no data stream.
func encodeLog(t testing.TB, rec plog.LogRecord) []byte {
	t.Helper()
	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	doc := e.AppendLog(nil, rec, DataStream{})
	checkDocument(t, doc)
	return doc
}

// encodeSpan writes span with an empty resource and scope and no data stream.
func encodeSpan(t testing.TB, span ptrace.Span) []byte {
	t.Helper()
	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	doc := e.AppendSpan(nil, span, DataStream{})
	checkDocument(t, doc)
	return doc
}

// logRecordFromJSON reads one OTLP JSON log record, given as the record's object.
func logRecordFromJSON(t testing.TB, record string) plog.LogRecord {
	t.Helper()
	ld := logsFromJSON(t, `{"resourceLogs":[{"scopeLogs":[{"logRecords":[`+record+`]}]}]}`)
	return ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
}

// logsFromJSON reads OTLP JSON. Unlike the pdata setters, it keeps repeated attribute keys.
func logsFromJSON(t testing.TB, s string) plog.Logs {
	t.Helper()
	ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs([]byte(s))
	if err != nil {
		t.Fatalf("UnmarshalLogs: %v", err)
	}
	return ld
}

// JSON numbers: the cases of the writer's tests and fuzzers (its strings are internal/jsonstr's).

var floatTests = []struct {
	name string
	in   float64
	want string
}{
	{name: "zero", in: 0, want: "0.0"},
	// Negative zero keeps its sign; -0.0 is valid JSON and parses back to -0.
	{name: "negative zero", in: math.Copysign(0, -1), want: "-0.0"},
	{name: "one", in: 1, want: "1.0"},
	{name: "minus one and a half", in: -1.5, want: "-1.5"},
	{name: "pi", in: math.Pi, want: "3.141592653589793"},
	{name: "tenth", in: 0.1, want: "0.1"},
	{name: "1e20", in: 1e20, want: "100000000000000000000.0"},
	{name: "1e21", in: 1e21, want: "1e+21"},
	{name: "-1e21", in: -1e21, want: "-1e+21"},
	{name: "1e-6", in: 1e-6, want: "0.000001"},
	{name: "1e-7", in: 1e-7, want: "1e-7"},
	{name: "-1e-7", in: -1e-7, want: "-1e-7"},
	{name: "1.5e-10", in: 1.5e-10, want: "1.5e-10"},
	{name: "123456789", in: 123456789.0, want: "123456789.0"},
	{name: "1e6 has no exponent", in: 1e6, want: "1000000.0"},
	{name: "2^53", in: 1 << 53, want: "9007199254740992.0"},
	{name: "max float64", in: math.MaxFloat64, want: "1.7976931348623157e+308"},
	{name: "-max float64", in: -math.MaxFloat64, want: "-1.7976931348623157e+308"},
	{name: "smallest normal", in: 0x1p-1022, want: "2.2250738585072014e-308"},
	{name: "smallest denormal", in: math.SmallestNonzeroFloat64, want: "5e-324"},
	{name: "NaN", in: math.NaN(), want: "null"},
	{name: "+Inf", in: math.Inf(1), want: "null"},
	{name: "-Inf", in: math.Inf(-1), want: "null"},

	// RFC 8785 appendix B bit patterns. The RFC writes integral values without a fraction;
	// we add ".0" so that Elasticsearch maps the field as a floating-point type.
	{name: "rfc8785 0000000000000000", in: math.Float64frombits(0x0000000000000000), want: "0.0"},
	{name: "rfc8785 8000000000000000", in: math.Float64frombits(0x8000000000000000), want: "-0.0"},
	{name: "rfc8785 0000000000000001", in: math.Float64frombits(0x0000000000000001), want: "5e-324"},
	{name: "rfc8785 8000000000000001", in: math.Float64frombits(0x8000000000000001), want: "-5e-324"},
	{name: "rfc8785 7fefffffffffffff", in: math.Float64frombits(0x7fefffffffffffff), want: "1.7976931348623157e+308"},
	{name: "rfc8785 ffefffffffffffff", in: math.Float64frombits(0xffefffffffffffff), want: "-1.7976931348623157e+308"},
	{name: "rfc8785 4340000000000000", in: math.Float64frombits(0x4340000000000000), want: "9007199254740992.0"},
	{name: "rfc8785 c340000000000000", in: math.Float64frombits(0xc340000000000000), want: "-9007199254740992.0"},
	{name: "rfc8785 4430000000000000", in: math.Float64frombits(0x4430000000000000), want: "295147905179352830000.0"},
	{name: "rfc8785 44b52d02c7e14af5", in: math.Float64frombits(0x44b52d02c7e14af5), want: "9.999999999999997e+22"},
	{name: "rfc8785 44b52d02c7e14af6", in: math.Float64frombits(0x44b52d02c7e14af6), want: "1e+23"},
	{name: "rfc8785 44b52d02c7e14af7", in: math.Float64frombits(0x44b52d02c7e14af7), want: "1.0000000000000001e+23"},
	{name: "rfc8785 444b1ae4d6e2ef4e", in: math.Float64frombits(0x444b1ae4d6e2ef4e), want: "999999999999999700000.0"},
	{name: "rfc8785 444b1ae4d6e2ef4f", in: math.Float64frombits(0x444b1ae4d6e2ef4f), want: "999999999999999900000.0"},
	{name: "rfc8785 444b1ae4d6e2ef50", in: math.Float64frombits(0x444b1ae4d6e2ef50), want: "1e+21"},
	{name: "rfc8785 3eb0c6f7a0b5ed8c", in: math.Float64frombits(0x3eb0c6f7a0b5ed8c), want: "9.999999999999997e-7"},
	{name: "rfc8785 3eb0c6f7a0b5ed8d", in: math.Float64frombits(0x3eb0c6f7a0b5ed8d), want: "0.000001"},
	{name: "rfc8785 41b3de4355555553", in: math.Float64frombits(0x41b3de4355555553), want: "333333333.3333332"},
	{name: "rfc8785 41b3de4355555554", in: math.Float64frombits(0x41b3de4355555554), want: "333333333.33333325"},
	{name: "rfc8785 41b3de4355555555", in: math.Float64frombits(0x41b3de4355555555), want: "333333333.3333333"},
	{name: "rfc8785 41b3de4355555556", in: math.Float64frombits(0x41b3de4355555556), want: "333333333.3333334"},
	{name: "rfc8785 41b3de4355555557", in: math.Float64frombits(0x41b3de4355555557), want: "333333333.33333343"},
	{name: "rfc8785 becbf647612f3696", in: math.Float64frombits(0xbecbf647612f3696), want: "-0.0000033333333333333333"},
	{name: "rfc8785 43143ff3c1cb0959", in: math.Float64frombits(0x43143ff3c1cb0959), want: "1424953923781206.2"},
	{name: "rfc8785 NaN bits", in: math.Float64frombits(0x7fffffffffffffff), want: "null"},
	{name: "rfc8785 +Inf bits", in: math.Float64frombits(0x7ff0000000000000), want: "null"},
}

// Depth: maps and slices nested beyond the limit, and what Elasticsearch takes.

// nestMaps nests n maps below m under the key k, the innermost holding k: "leaf".
func nestMaps(m pcommon.Map, k string, n int) {
	for range n {
		m = m.PutEmptyMap(k)
	}
	m.PutStr(k, "leaf")
}

// esDepth is the depth Elasticsearch gives the deepest field of v, a decoded document, with
// dots in names expanded into objects, as index.mapping.depth.limit counts it: a field of the
// root is at depth 1, and an object at a path of s names is at depth s+1. With dots false, a
// name counts as one name whatever it holds.
func esDepth(v map[string]any, segments int, dots bool) int {
	deepest := 0
	var visit func(val any, s int)
	visit = func(val any, s int) {
		switch val := val.(type) {
		case map[string]any:
			if len(val) == 0 {
				deepest = max(deepest, s+1)
				return
			}
			deepest = max(deepest, esDepth(val, s, dots))
		case []any:
			for _, el := range val {
				visit(el, s)
			}
		default:
			deepest = max(deepest, s)
		}
	}
	for k, val := range v {
		s := segments + 1
		if dots {
			s += strings.Count(k, ".")
		}
		visit(val, s)
	}
	return deepest
}

// checkObjectDepth fails if doc nests objects deeper than 20, names holding dots counted as
// one name (fuzzed names hold any dots).
func checkObjectDepth(t *testing.T, doc []byte) {
	t.Helper()
	if d := esDepth(decodeDocument(t, doc), 0, false); d > 20 {
		t.Fatalf("document nests objects %d deep, beyond 20: %q", d, doc)
	}
}

// repairSink records the encoder's repair of each metric document as the document is handed
// over, and with buf set the document too.
type repairSink struct {
	e       *Encoder
	repairs []Repair
	buf     *[]byte
	docs    [][]byte
}

func (s *repairSink) AddMetricsDocument(start int, _ string, _ DataStream, _ []DynamicTemplate) {
	s.repairs = append(s.repairs, s.e.Repair())
	if s.buf != nil {
		s.docs = append(s.docs, bytes.Clone((*s.buf)[start:]))
	}
}

// Metrics: routes, sinks and the documents of a push, and the metrics the tests build.

var metricsStream = DataStream{Type: "metrics", Dataset: "generic.otel", Namespace: "default"}

// ecsStream is the data stream the exporter routes an ecs metric to by default.
var ecsStream = DataStream{Type: "metrics", Dataset: "generic", Namespace: "default"}

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

func ecsRoute(_, _, _ pcommon.Map, _ string, _ pcommon.Timestamp) (string, DataStream, error) {
	return "metrics-generic-default", ecsStream, nil
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

// countingSink counts documents without allocating.
type countingSink struct{ docs, templates int }

func (s *countingSink) AddMetricsDocument(_ int, _ string, _ DataStream, templates []DynamicTemplate) {
	s.docs++
	s.templates += len(templates)
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

// encodeECS encodes md in ecs mode and checks that every document is valid JSON with no name
// repeated in any object.
func encodeECS(t *testing.T, md pmetric.Metrics) ([]metricDoc, MetricsReport) {
	t.Helper()
	var e Encoder
	e.SetMode(ModeECS)
	var buf []byte
	sink := &recordingSink{buf: &buf, t: t}
	rep := encodeMetricsPush(&e, &buf, md, ecsRoute, sink)
	require.Len(t, buf, sink.end, "the buffer holds more than the documents")
	for _, d := range sink.docs {
		checkDocument(t, d.raw)
		checkMetricShapes(t, ModeECS, d.raw, d.templates)
	}
	return sink.docs, rep
}

func allValidUTF8(tpls []DynamicTemplate) bool {
	for _, t := range tpls {
		if !utf8.ValidString(t.Path) {
			return false
		}
	}
	return true
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

// The Elasticsearch archive the integration suite runs has no histogram or
// aggregate_metric_double field types, so the shape of what the serializer writes for them is
// checked here, on every metric document of the tests, of FuzzEncodeMetrics and of the golden
// files: what Elasticsearch's OTel templates (metrics-otel@mappings and the dynamic templates
// the bulk items name) index without dropping it as malformed.

// checkMetricShapes checks a metric document of the given mode and its dynamic templates:
// every template names a value the document holds; every histogram value (template histogram,
// or histogram_metrics in ecs mode) has counts and values of the same length, the values
// finite and strictly increasing, the counts non-negative longs; every summary value
// (summary, summary_metrics: summaries and the aggregate_metric_double hint) has exactly a
// finite sum and a non-negative long value_count; every gauge or counter is a finite number,
// a long for the _long templates. In otel mode also: no field at the root but otelRootFields,
// and no null and no number beyond float64 anywhere in metrics.
func checkMetricShapes(t testing.TB, mode Mode, doc []byte, templates []DynamicTemplate) {
	t.Helper()
	if err := metricShapeError(mode, doc, templates); err != nil {
		t.Errorf("%v: %s", err, doc)
	}
}

func metricShapeError(mode Mode, doc []byte, templates []DynamicTemplate) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if mode != ModeECS {
		for k := range root {
			if !otelRootFields[k] {
				return fmt.Errorf("field %q at the root, which Elasticsearch's OTel templates do not index", k)
			}
		}
		if err := finiteTree("metrics", root["metrics"]); err != nil {
			return err
		}
	}
	for _, tpl := range templates {
		v, ok := lookupPath(root, tpl.Path)
		if !ok {
			return fmt.Errorf("dynamic template for %q, which the document does not hold", tpl.Path)
		}
		var err error
		switch tpl.Template {
		case "histogram", "histogram_metrics":
			err = histogramShape(v)
		case "summary", "summary_metrics":
			err = summaryShape(v)
		case "counter_long", "gauge_long", "long_metrics":
			_, err = longValue(v)
		default:
			_, err = finiteNumber(v)
		}
		if err != nil {
			return fmt.Errorf("%s (%s): %w", tpl.Path, tpl.Template, err)
		}
	}
	return nil
}

// otelRootFields are the only fields an otel metric document holds at its root: the root of
// Elasticsearch's OTel templates is dynamic: false, so any other field would be kept in
// _source but not indexed.
var otelRootFields = map[string]bool{
	"@timestamp": true, "start_timestamp": true, "unit": true, "data_stream": true, "attributes": true,
	"resource": true, "scope": true, "metrics": true, "_doc_count": true, "_metric_names_hash": true,
}

// lookupPath finds the value at a dotted path whose names may hold dots themselves.
func lookupPath(obj map[string]any, path string) (any, bool) {
	if v, ok := obj[path]; ok {
		return v, true
	}
	for k, v := range obj {
		if rest, ok := strings.CutPrefix(path, k+"."); ok {
			if inner, isObj := v.(map[string]any); isObj {
				if found, ok := lookupPath(inner, rest); ok {
					return found, true
				}
			}
		}
	}
	return nil, false
}

// finiteTree fails on a null or a number beyond float64 at any depth of v.
func finiteTree(path string, v any) error {
	switch v := v.(type) {
	case nil:
		return fmt.Errorf("%s is null", path)
	case json.Number:
		_, err := finiteNumber(v)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case map[string]any:
		for k, e := range v {
			if err := finiteTree(path+"."+k, e); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := finiteTree(path+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	}
	return nil
}

func finiteNumber(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s is not a finite double", n)
	}
	return f, nil
}

// longValue returns v when it is an integer a long holds.
func longValue(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a long", n)
	}
	return i, nil
}

func histogramShape(v any) error {
	h, ok := v.(map[string]any)
	if !ok || len(h) != 2 {
		return fmt.Errorf("%v is not {counts, values}", v)
	}
	counts, okc := h["counts"].([]any)
	values, okv := h["values"].([]any)
	if !okc || !okv {
		return fmt.Errorf("%v is not {counts, values} with two arrays", v)
	}
	if len(counts) != len(values) {
		return fmt.Errorf("%d counts for %d values", len(counts), len(values))
	}
	prev := math.Inf(-1)
	for i := range values {
		c, err := longValue(counts[i])
		if err != nil || c < 0 {
			return fmt.Errorf("count %d: %v is not a non-negative long", i, counts[i])
		}
		f, err := finiteNumber(values[i])
		if err != nil {
			return fmt.Errorf("value %d: %w", i, err)
		}
		if i > 0 && !(f > prev) {
			return fmt.Errorf("value %d: %v does not follow %v upward", i, f, prev)
		}
		prev = f
	}
	return nil
}

func summaryShape(v any) error {
	s, ok := v.(map[string]any)
	if !ok || len(s) != 2 {
		return fmt.Errorf("%v is not {sum, value_count}", v)
	}
	if _, err := finiteNumber(s["sum"]); err != nil {
		return fmt.Errorf("sum: %w", err)
	}
	if n, err := longValue(s["value_count"]); err != nil || n < 0 {
		return fmt.Errorf("value_count %v is not a non-negative long", s["value_count"])
	}
	return nil
}

// The inputs of the benchmarks, and their CPU time.

const benchStart = 1_700_000_000_000_000_000

func benchTraceID(i int) pcommon.TraceID {
	return pcommon.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}
}

func benchSpanID(i int) pcommon.SpanID {
	return pcommon.SpanID{0xeb, 0xa1, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i), 0x7a, 0x01}
}

func benchResource(r pcommon.Resource) {
	a := r.Attributes()
	a.PutStr("service.name", "checkout")
	a.PutStr("service.version", "1.4.2")
	a.PutStr("host.name", "ip-10-0-1-23.ec2.internal")
	a.PutStr("deployment.environment.name", "production")
}

func benchScope(s pcommon.InstrumentationScope) {
	s.SetName("github.com/acme/checkout/internal/payment")
	s.SetVersion("1.4.2")
}

// benchLogs returns n small log records of one service, as an application logger sends them.
func benchLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	benchResource(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	benchScope(sl.Scope())
	recs := sl.LogRecords()
	recs.EnsureCapacity(n)
	for i := range n {
		r := recs.AppendEmpty()
		ts := pcommon.Timestamp(benchStart + i*1_000_123)
		r.SetTimestamp(ts)
		r.SetObservedTimestamp(ts + 250_000)
		if i%10 == 9 {
			r.SetSeverityText("ERROR")
			r.SetSeverityNumber(plog.SeverityNumberError)
		} else {
			r.SetSeverityText("INFO")
			r.SetSeverityNumber(plog.SeverityNumberInfo)
		}
		r.SetTraceID(benchTraceID(i))
		r.SetSpanID(benchSpanID(i))
		a := r.Attributes()
		a.PutStr("http.request.method", "POST")
		a.PutStr("http.route", "/api/v1/orders/{id}/payment")
		a.PutInt("http.response.status_code", 200)
		a.PutStr("user.id", "u-"+strconv.Itoa(48213+i%100))
		if i%3 == 0 {
			a.PutBool("retry", true)
		}
		r.Body().SetStr(fmt.Sprintf("payment authorized for order %06d in %dms via provider stripe", i, 20+i%80))
	}
	return ld
}

// benchTraces returns n spans of one service, with an event on every fourth span.
func benchTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	benchResource(rs.Resource())
	ss := rs.ScopeSpans().AppendEmpty()
	benchScope(ss.Scope())
	spans := ss.Spans()
	spans.EnsureCapacity(n)
	for i := range n {
		s := spans.AppendEmpty()
		start := pcommon.Timestamp(benchStart + i*1_000_123)
		s.SetStartTimestamp(start)
		s.SetEndTimestamp(start + pcommon.Timestamp(1_500_000+i%1000*1000))
		s.SetTraceID(benchTraceID(i / 4))
		s.SetSpanID(benchSpanID(i))
		if i%4 != 0 {
			s.SetParentSpanID(benchSpanID(i - i%4))
		}
		a := s.Attributes()
		if i%2 == 0 {
			s.SetName("POST /api/v1/orders/{id}/payment")
			s.SetKind(ptrace.SpanKindServer)
			a.PutStr("http.request.method", "POST")
			a.PutStr("http.route", "/api/v1/orders/{id}/payment")
			a.PutInt("http.response.status_code", 200)
			a.PutStr("server.address", "checkout.internal")
			a.PutStr("network.protocol.version", "1.1")
		} else {
			s.SetName("SELECT orders")
			s.SetKind(ptrace.SpanKindClient)
			a.PutStr("db.system.name", "postgresql")
			a.PutStr("db.namespace", "orders")
			a.PutStr("db.operation.name", "SELECT")
			a.PutStr("server.address", "db-1.internal")
			a.PutInt("server.port", 5432)
		}
		if i%4 == 3 {
			ev := s.Events().AppendEmpty()
			ev.SetTimestamp(start + 500_000)
			ev.SetName("cache.miss")
			ev.Attributes().PutStr("cache.key", "order:"+strconv.Itoa(i))
			ev.Attributes().PutInt("cache.ttl_seconds", 300)
		}
		if i%10 == 0 {
			s.Status().SetCode(ptrace.StatusCodeOk)
		}
	}
	return td
}

// appendLogs writes every log record of ld as NDJSON, the way the exporter fills a bulk body
// (without the action lines).
func appendLogs(e *Encoder, dst []byte, ld plog.Logs) []byte {
	for _, rl := range ld.ResourceLogs().All() {
		e.SetResource(rl.Resource(), rl.SchemaUrl())
		for _, sl := range rl.ScopeLogs().All() {
			e.SetScope(sl.Scope(), sl.SchemaUrl())
			for _, r := range sl.LogRecords().All() {
				dst = e.AppendLog(dst, r, logsStream)
				dst = append(dst, '\n')
			}
		}
	}
	return dst
}

// appendTraces writes every span of td, each followed by its events, as NDJSON.
func appendTraces(e *Encoder, dst []byte, td ptrace.Traces) []byte {
	return appendSpans(e, dst, td, true)
}

// appendSpans writes every span of td as NDJSON, each followed by its events when events is
// true.
func appendSpans(e *Encoder, dst []byte, td ptrace.Traces, events bool) []byte {
	for _, rs := range td.ResourceSpans().All() {
		e.SetResource(rs.Resource(), rs.SchemaUrl())
		for _, ss := range rs.ScopeSpans().All() {
			e.SetScope(ss.Scope(), ss.SchemaUrl())
			for _, s := range ss.Spans().All() {
				dst = e.AppendSpan(dst, s, tracesStream)
				dst = append(dst, '\n')
				if !events {
					continue
				}
				for _, ev := range s.Events().All() {
					dst = e.AppendSpanEvent(dst, s, ev, logsStream)
					dst = append(dst, '\n')
				}
			}
		}
	}
	return dst
}

var benchSink []byte

// wideLogs returns records that take every path of the attribute writer: more keys than the
// linear key scan handles, nested maps and arrays, bytes, doubles, geo pairs, control
// attributes and a map body.
func wideLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	benchResource(rl.Resource())
	rl.Resource().Attributes().PutStr("data_stream.namespace", "prod")
	sl := rl.ScopeLogs().AppendEmpty()
	benchScope(sl.Scope())
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(benchStart + i))
		a := r.Attributes()
		for k := range 2 * linearMax {
			a.PutInt("attribute.number."+strconv.Itoa(k), int64(k))
		}
		a.PutDouble("ratio", 0.5)
		a.PutEmptyBytes("raw").FromRaw([]byte{1, 2, 3})
		a.PutStr("data_stream.dataset", "wide")
		a.PutDouble("client.geo.location.lat", 52.52)
		a.PutDouble("client.geo.location.lon", 13.40)
		a.PutDouble("a.rather.long.attribute.prefix.for.the.destination.geo.location.lat", 48.85)
		a.PutDouble("a.rather.long.attribute.prefix.for.the.destination.geo.location.lon", 2.35)
		m := a.PutEmptyMap("nested")
		m.PutStr("k", "v\t\"quoted\"")
		m.PutEmptySlice("list").AppendEmpty().SetEmptyMap().PutBool("ok", true)
		b := r.Body().SetEmptyMap()
		for k := range 20 {
			b.PutStr("field"+strconv.Itoa(k), "value")
		}
		r.SetEventName("wide.event")
	}
	return ld
}

// realisticLines are the lines that realisticLogs builds its bodies from, in the shapes of
// production logs: mostly ASCII, with quotes and JSON, accented Latin, CJK and emoji now and
// then, as users' names, addresses and messages put them into log lines.
var realisticLines = []string{
	`2026-11-30T00:00:01.123Z  INFO 1 --- [http-nio-8080-exec-17] c.e.shop.web.OrderController : GET /api/v1/orders/4821337 completed with status 200 in 12.431 ms (user=u-1288123, items=3, total=42.17 EUR)`,
	`{"level":"info","ts":1764460801.123456,"caller":"server/handler.go:214","msg":"request completed","method":"POST","path":"/api/v2/carts/771234/items","status":201,"duration":0.013271,"request_id":"0b6e1c1d-55a3-4c7f-9a51-3f0c2b9e7d11"}`,
	`10.42.3.17 - u-48213 [30/Nov/2026:00:00:01 +0000] "GET /api/v1/products/31337?lang=de HTTP/1.1" 200 18231 "https://shop.example.com/" "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" 0.012 0.011`,
	`Zahlung für Bestellung Nr. 4821337 fehlgeschlagen: Zeitüberschreitung beim Zahlungsdienstleister (Kunde: Jürgen Müller, Straße: Königsallee 12, Düsseldorf)`,
	`Échec de la réservation du stock pour l'article « Crème brûlée à la vanille » : quantité demandée supérieure à la quantité disponible (entrepôt Évry)`,
	`注文 4821337 の支払いに失敗しました。カード会社からの応答がタイムアウトしました（顧客：山田太郎、東京都渋谷区）`,
	`用户 u-1288123 下单成功，订单号 4821337，金额 ¥328.00，配送地址：上海市浦东新区世纪大道 100 号`,
	`order 4821337 shipped 🚚 to customer 😀 rating ⭐⭐⭐⭐⭐ "fast delivery, great packaging 👍" — thanks! ✅`,
	`2026-11-30 00:00:01,123 WARNING [payments.worker] charge declined id=ch_3PqLk2eZvKYlo2C1 amount=4217 currency=eur customer=cus_Q8x7 reason="insufficient_funds"`,
	`2026-11-30 00:00:01.123 UTC [28131] app@shop LOG:  duration: 31.207 ms  statement: SELECT o.id, o.status, o.total FROM orders o WHERE o.customer_id = $1 ORDER BY o.created_at DESC LIMIT 20`,
}

// realisticTrace is a Java stack trace as a log body ends with one: tabs, newlines and quotes.
const realisticTrace = "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"sku\" is null\n" +
	"\tat com.example.shop.service.CartService.addItem(CartService.java:217)\n" +
	"\tat com.example.shop.web.CartController.add(CartController.java:88)\n" +
	"\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)\n" +
	"\tat jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)\n" +
	"\tat org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:195)\n" +
	"\tat org.springframework.web.filter.OncePerRequestFilter.doFilter(OncePerRequestFilter.java:116)\n" +
	"\tat io.opentelemetry.javaagent.instrumentation.servlet.v5_0.Servlet5Advice.onEnter(Servlet5Advice.java:41)\n" +
	"\tat org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)\n" +
	"\tat java.base/java.lang.Thread.run(Thread.java:1583)\n"

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

// reportCPUTime reports the process CPU time used since start per op, when the system tells
// it (ok is start's).
func reportCPUTime(b *testing.B, start time.Duration, ok bool) {
	b.Helper()
	if now, nowOK := processCPUTime(); ok && nowOK {
		b.ReportMetric(float64(now-start)/float64(b.N), "cpu-ns/op")
	}
}

// The metric tests drive the encoder as the pipeline does (internal/pipeline/metrics.go): walk
// the resources, scopes, metrics and data points, skip a point with the _noindex hint, route
// each point (the tests' own routing functions stand in for internal/routing; a point without
// routing attributes takes the route of the scope's last such point at its timestamp), add it,
// then append every document, and count what was not written in a MetricsReport.

// MetricRouteFunc resolves the index of a data point from its attributes, its scope's and its
// resource's. ds is the zero DataStream for a plain index.
type MetricRouteFunc func(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (index string, ds DataStream, err error)

// MetricsSink receives each metric document after it is appended to the buffer.
type MetricsSink interface {
	// AddMetricsDocument records the document written at the end of the buffer from start on.
	// templates is only valid during the call.
	AddMetricsDocument(start int, index string, ds DataStream, templates []DynamicTemplate)
}

// RejectInvalidIndexName is the reason of the data points that the routing functions of the
// tests refuse (internal/routing's error.type).
const RejectInvalidIndexName = "invalid_index_name"

const numRejectReasons = 8

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken, RejectBoundsNotIncreasing, RejectInvalidMetricName,
}

func rejectIndex(reason string) int { return slices.Index(rejectReasons[:], reason) }

// MetricsReport is what encodeMetricsPush could not write of a push.
type MetricsReport struct {
	// rejected counts data points not written, by reason, with the name of the first metric
	// rejected for each reason.
	rejected      [numRejectReasons]int
	rejectedNames [numRejectReasons]string
	NonFinite     int
	NonFiniteName string
	NoIndex       int
	// FirstError is the first routing error of the data points rejected with
	// RejectInvalidIndexName.
	FirstError error
}

func (r *MetricsReport) reject(reason int, name string) { r.rejectN(reason, name, 1) }

func (r *MetricsReport) rejectN(reason int, name string, n int) {
	if n == 0 {
		return
	}
	if r.rejected[reason] == 0 {
		r.rejectedNames[reason] = name
	}
	r.rejected[reason] += n
}

func (r *MetricsReport) rejectRoute(err error, name string) {
	r.reject(rejectIndex(RejectInvalidIndexName), name)
	if r.FirstError == nil {
		r.FirstError = err
	}
}

// document counts what AppendMetricsDocument reported of one document.
func (r *MetricsReport) document(d *MetricsDocument) {
	for _, rj := range d.Rejected {
		r.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
	}
	if d.NonFinite > 0 {
		if r.NonFinite == 0 {
			r.NonFiniteName = d.NonFiniteName
		}
		r.NonFinite += d.NonFinite
	}
}

// routeMemo is the route of the last data point of a scope without routing attributes, which
// the points of the scope without any at its timestamp take, as the pipeline's metricRoute.
type routeMemo struct {
	valid  bool
	ts     pcommon.Timestamp
	target MetricTarget
	err    error
}

// encodeMetricsPush writes the documents of md to *buf as the pipeline does, calling sink for
// each, and reports the data points it could not write.
func encodeMetricsPush(e *Encoder, buf *[]byte, md pmetric.Metrics, route MetricRouteFunc, sink MetricsSink) MetricsReport {
	var rep MetricsReport
	e.BeginMetrics()
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		e.AddMetricsResource(rm)
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			e.AddMetricsScope(sm)
			scope := sm.Scope()
			var memo routeMemo
			ms := sm.Metrics()
			for k := range ms.Len() {
				n, rj := e.AddMetric(ms.At(k))
				if rj.Reason != "" {
					rep.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
					continue
				}
				for pi := range n {
					p := e.MetricPoint(pi)
					if p.NoIndex {
						rep.NoIndex++
						continue
					}
					target, err := memo.target, memo.err
					if p.Routes || !memo.valid || memo.ts != p.Timestamp {
						var index string
						var ds DataStream
						index, ds, err = route(p.Attrs, scope.Attributes(), rm.Resource().Attributes(), scope.Name(), p.Timestamp)
						if err == nil {
							target = e.MetricTarget(index, ds)
						}
						if !p.Routes {
							memo = routeMemo{valid: true, ts: p.Timestamp, target: target, err: err}
						}
					}
					if err != nil {
						rep.rejectRoute(err, ms.At(k).Name())
						continue
					}
					e.AddMetricPoint(target)
				}
			}
		}
	}
	e.GroupMetrics()
	for {
		start := len(*buf)
		var d *MetricsDocument
		var more bool
		*buf, d, more = e.AppendMetricsDocument(*buf)
		if !more {
			return rep
		}
		rep.document(d)
		if d.Written {
			sink.AddMetricsDocument(start, d.Index, d.DataStream, d.Templates)
		}
	}
}

// The profile tests drive the encoder as the pipeline does (internal/pipeline/profiles.go):
// begin the profile, then append each document it names, skipping the content-addressed ones
// already written.

// profileDoc is one document a test sink received: where says which of its kind's indices it
// goes to (profileWhere).
type profileDoc struct {
	kind      ProfileDoc
	where, id string
	doc       string
	repair    Repair
}

// testSink drives the encoder's documents of a profile as the pipeline does: it appends every
// event and each content-addressed document its seen map has not had, and records them.
type testSink struct {
	enc  *Encoder
	buf  *[]byte
	docs []profileDoc
	seen map[string]bool
}

// encode begins profile p and appends its documents to s.buf; the encoder's Rejection says
// whether p was rejected.
func (s *testSink) encode(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	e := s.enc
	e.BeginProfile(dict, p)
	if e.Rejection().Reason != "" {
		return
	}
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return
		}
		if d.Kind != ProfileEvent {
			k := d.Kind.String() + "/" + d.ID
			if s.seen[k] {
				continue
			}
			s.seen[k] = true
		}
		start := len(*s.buf)
		*s.buf = e.AppendProfileDocument(*s.buf)
		s.docs = append(s.docs, profileDoc{d.Kind, profileWhere(d), strings.Clone(d.ID), string((*s.buf)[start:]), e.Repair()})
	}
}

// profileWhere names the index of its kind that a document goes to: for a symbolization queue
// entry, the queue (executables or leafframes); for an ecs-mode event's downsampled copy, the
// level (5pow01 for level 1); else "".
func profileWhere(d ProfileDocument) string {
	switch {
	case d.Kind == ProfileSymbolizationQueue && d.Executable:
		return "executables"
	case d.Kind == ProfileSymbolizationQueue:
		return "leafframes"
	case d.Level > 0:
		return fmt.Sprintf("5pow%02d", d.Level)
	}
	return ""
}

// testProfile builds a profile of two samples on one stack of two frames, leaf first: a
// native frame of libc with a build id, and a symbolized Go frame; the resource has host.id.
func testProfile() (pprofile.Profiles, pprofile.ProfilesDictionary, pprofile.Profile) {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	strs := dict.StringTable()
	for _, s := range []string{
		"", "samples", "count", "cpu", "nanoseconds", "/usr/lib/libc.so.6",
		"process.executable.build_id.htlhash", "profile.frame.type", "native", "go", "main.work", "main.go", "thread.name", "worker",
	} {
		strs.Append(s)
	}
	attrs := dict.AttributeTable()
	attrs.AppendEmpty() // 0: none
	kv := attrs.AppendEmpty()
	kv.SetKeyStrindex(6)
	kv.Value().SetStr("600dcafe600dcafe600dcafe600dcafe")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("native")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("go")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(12)
	kv.Value().SetStr("worker")
	dict.MappingTable().AppendEmpty()
	m := dict.MappingTable().AppendEmpty()
	m.SetFilenameStrindex(5)
	m.AttributeIndices().Append(1)
	dict.FunctionTable().AppendEmpty()
	fn := dict.FunctionTable().AppendEmpty()
	fn.SetNameStrindex(10)
	fn.SetFilenameStrindex(11)
	dict.LocationTable().AppendEmpty()
	loc := dict.LocationTable().AppendEmpty() // 1: native, libc
	loc.SetMappingIndex(1)
	loc.SetAddress(0x1234)
	loc.AttributeIndices().Append(2)
	loc = dict.LocationTable().AppendEmpty() // 2: go, symbolized
	loc.AttributeIndices().Append(3)
	line := loc.Lines().AppendEmpty()
	line.SetFunctionIndex(1)
	line.SetLine(42)
	dict.StackTable().AppendEmpty()
	dict.StackTable().AppendEmpty().LocationIndices().Append(1, 2)

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("host.id", "h-1")
	rp.Resource().Attributes().PutStr("service.name", "svc")
	p := rp.ScopeProfiles().AppendEmpty().Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(1)
	p.SampleType().SetUnitStrindex(2)
	p.PeriodType().SetTypeStrindex(3)
	p.PeriodType().SetUnitStrindex(4)
	p.SetPeriod(50_000_000) // 20 Hz
	p.SetTime(pcommon.Timestamp(1_700_000_000_123_456_789))
	s := p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.AttributeIndices().Append(4)
	s.TimestampsUnixNano().Append(1_700_000_000_000_000_001, 1_700_000_000_500_000_000)
	s = p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.Values().Append(3)
	return pd, dict, p
}

func encodeProfile(t *testing.T, e *Encoder, sink *testSink, pd pprofile.Profiles, p pprofile.Profile) {
	t.Helper()
	var buf []byte
	sink.enc, sink.buf = e, &buf
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	sink.encode(pd.Dictionary(), p)
	require.Empty(t, e.Rejection().Reason)
	for _, d := range sink.docs {
		require.True(t, json.Valid([]byte(d.doc)), d.doc)
	}
}

// appendProfileDocs appends the documents of profile p as the pipeline does, taking every
// content-addressed document as written already when allSeen (only the events are appended),
// else as never written, and returns the buffer and the number of documents appended.
func appendProfileDocs(e *Encoder, buf []byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, allSeen bool) ([]byte, int) {
	e.BeginProfile(dict, p)
	docs := 0
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return buf, docs
		}
		if allSeen && d.Kind != ProfileEvent {
			continue
		}
		buf = e.AppendProfileDocument(buf)
		docs++
	}
}
