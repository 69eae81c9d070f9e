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
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var (
	testTraceID      = pcommon.TraceID{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	testSpanID       = pcommon.SpanID{0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33}
	testParentSpanID = pcommon.SpanID{0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08}

	logsStream   = DataStream{Type: "logs", Dataset: "generic.otel", Namespace: "default"}
	tracesStream = DataStream{Type: "traces", Dataset: "generic.otel", Namespace: "default"}
)

// The expected start of a document for a record with no timestamps and no data stream.
const (
	emptyLogPrefix   = `{"@timestamp":"0.0","observed_timestamp":"0.0"`
	emptyEnvelope    = `,"resource":{},"scope":{}`
	emptySpanPrefix  = `{"@timestamp":"0.0","kind":"Unspecified","duration":0`
	emptySpanSuffix  = `,"links":[],"status":{}` + emptyEnvelope + `}`
	emptyEventPrefix = `{"@timestamp":"0.0"`
)

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

// newTestEncoder returns an Encoder with the given resource and scope set.
func newTestEncoder(res pcommon.Resource, scope pcommon.InstrumentationScope) *Encoder {
	var e Encoder
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

// logsFromJSON reads OTLP JSON. Unlike the pdata setters, it keeps repeated attribute keys.
func logsFromJSON(t testing.TB, s string) plog.Logs {
	t.Helper()
	ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs([]byte(s))
	if err != nil {
		t.Fatalf("UnmarshalLogs: %v", err)
	}
	return ld
}

// logRecordFromJSON reads one OTLP JSON log record, given as the record's object.
func logRecordFromJSON(t testing.TB, record string) plog.LogRecord {
	t.Helper()
	ld := logsFromJSON(t, `{"resourceLogs":[{"scopeLogs":[{"logRecords":[`+record+`]}]}]}`)
	return ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
}

func TestAppendLogKeyOrder(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "checkout")
	res.Attributes().PutStr("data_stream.dataset", "routed") // control: left out
	res.SetDroppedAttributesCount(1)
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib")
	scope.SetVersion("1.2.3")
	scope.Attributes().PutStr("k", "v")
	scope.SetDroppedAttributesCount(2)

	rec := plog.NewLogRecord()
	rec.SetTimestamp(1_700_000_000_123_000_456)
	rec.SetObservedTimestamp(1_700_000_000_124_000_000)
	rec.SetSeverityText("INFO")
	rec.SetSeverityNumber(plog.SeverityNumberInfo)
	rec.SetTraceID(testTraceID)
	rec.SetSpanID(testSpanID)
	rec.Attributes().PutStr("http.method", "GET")
	rec.Attributes().PutStr("event.name", "order.placed")
	rec.Attributes().PutStr("elasticsearch.index", "x") // control: left out
	rec.SetDroppedAttributesCount(3)
	rec.Body().SetStr("hello")

	var e Encoder
	e.SetResource(res, "https://opentelemetry.io/schemas/1.26.0")
	e.SetScope(scope, "scope-schema")
	got := e.AppendLog(nil, rec, logsStream)
	checkDocument(t, got)

	want := `{"@timestamp":"1700000000123.000456","observed_timestamp":"1700000000124.0",` +
		`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
		`"severity_text":"INFO","severity_number":9,` +
		`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
		`"attributes":{"http.method":"GET","event.name":"order.placed"},"dropped_attributes_count":3,` +
		`"event_name":"order.placed",` +
		`"resource":{"schema_url":"https://opentelemetry.io/schemas/1.26.0","attributes":{"service.name":"checkout"},"dropped_attributes_count":1},` +
		`"scope":{"schema_url":"scope-schema","name":"lib","version":"1.2.3","attributes":{"k":"v"},"dropped_attributes_count":2},` +
		`"body":{"text":"hello"}}`
	if string(got) != want {
		t.Errorf("AppendLog() =\n%s\nwant\n%s", got, want)
	}
	if r := e.Repair(); r != RepairNone {
		t.Errorf("Repair() = %q, want %q", r, RepairNone)
	}
}

func TestAppendLogEmptyRecord(t *testing.T) {
	got := encodeLog(t, plog.NewLogRecord())
	if want := emptyLogPrefix + emptyEnvelope + `}`; string(got) != want {
		t.Errorf("AppendLog(empty) = %s, want %s", got, want)
	}
}

func TestAppendLogTimestamps(t *testing.T) {
	tests := []struct {
		name               string
		timestamp, observe pcommon.Timestamp
		want               string
	}{
		{name: "both", timestamp: 1_000_000_001, observe: 2_000_000_000, want: `{"@timestamp":"1000.000001","observed_timestamp":"2000.0"`},
		{name: "falls back to observed", timestamp: 0, observe: 2_000_000_007, want: `{"@timestamp":"2000.000007","observed_timestamp":"2000.000007"`},
		{name: "observed always present", timestamp: 3_000_000_000, observe: 0, want: `{"@timestamp":"3000.0","observed_timestamp":"0.0"`},
		{name: "neither", want: emptyLogPrefix},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			rec.SetTimestamp(tt.timestamp)
			rec.SetObservedTimestamp(tt.observe)
			got := encodeLog(t, rec)
			if want := tt.want + emptyEnvelope + `}`; string(got) != want {
				t.Errorf("AppendLog() = %s, want %s", got, want)
			}
		})
	}
}

func TestAppendLogBody(t *testing.T) {
	tests := []struct {
		name string
		set  func(pcommon.Value)
		want string // the body member, or "" for none
	}{
		{name: "empty", set: func(pcommon.Value) {}, want: ""},
		{name: "string", set: func(v pcommon.Value) { v.SetStr("hello") }, want: `,"body":{"text":"hello"}`},
		{name: "empty string", set: func(v pcommon.Value) { v.SetStr("") }, want: `,"body":{"text":""}`},
		{name: "string with escapes", set: func(v pcommon.Value) { v.SetStr("a\n\"b\"") }, want: `,"body":{"text":"a\n\"b\""}`},
		{name: "int", set: func(v pcommon.Value) { v.SetInt(-42) }, want: `,"body":{"text":-42}`},
		{name: "integral double", set: func(v pcommon.Value) { v.SetDouble(42) }, want: `,"body":{"text":42.0}`},
		{name: "double", set: func(v pcommon.Value) { v.SetDouble(0.25) }, want: `,"body":{"text":0.25}`},
		{name: "NaN", set: func(v pcommon.Value) { v.SetDouble(math.NaN()) }, want: `,"body":{"text":null}`},
		{name: "bool", set: func(v pcommon.Value) { v.SetBool(false) }, want: `,"body":{"text":false}`},
		{name: "bytes", set: func(v pcommon.Value) { v.SetEmptyBytes().FromRaw([]byte{0xde, 0xad, 0xbe, 0xef}) }, want: `,"body":{"text":"deadbeef"}`},
		{name: "empty bytes", set: func(v pcommon.Value) { v.SetEmptyBytes() }, want: `,"body":{"text":""}`},
		{
			name: "map",
			set: func(v pcommon.Value) {
				m := v.SetEmptyMap()
				m.PutStr("a", "b")
				n := m.PutEmptyMap("nested")
				n.PutInt("i", 1)
				n.PutEmptyBytes("raw").FromRaw([]byte{0x0a})
				m.PutDouble("d", 2)
			},
			want: `,"body":{"structured":{"a":"b","nested":{"i":1,"raw":"0a"},"d":2.0}}`,
		},
		{name: "empty map", set: func(v pcommon.Value) { v.SetEmptyMap() }, want: `,"body":{"structured":{}}`},
		{
			// Only record attributes are routing input; a map body is written as it came.
			name: "map keeps control and geo keys",
			set: func(v pcommon.Value) {
				m := v.SetEmptyMap()
				m.PutStr("data_stream.dataset", "x")
				m.PutDouble("geo.location.lat", 1)
				m.PutDouble("geo.location.lon", 2)
			},
			want: `,"body":{"structured":{"data_stream.dataset":"x","geo.location.lat":1.0,"geo.location.lon":2.0}}`,
		},
		{
			name: "array of maps",
			set: func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetEmptyMap().PutInt("a", 1)
				s.AppendEmpty().SetEmptyMap().PutStr("b", "c")
				s.AppendEmpty().SetEmptyMap()
			},
			want: `,"body":{"structured":[{"a":1},{"b":"c"},{}]}`,
		},
		{name: "empty array", set: func(v pcommon.Value) { v.SetEmptySlice() }, want: `,"body":{"structured":[]}`},
		{
			name: "mixed array",
			set: func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetEmptyMap().PutInt("a", 1)
				s.AppendEmpty().SetStr("x")
				s.AppendEmpty().SetInt(2)
			},
			want: `,"body":{"structured":{"value":[{"a":1},"x",2]}}`,
		},
		{
			name: "array of scalars",
			set: func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetDouble(1)
				s.AppendEmpty().SetDouble(math.Inf(-1))
				s.AppendEmpty().SetEmptyBytes().FromRaw([]byte{0xff})
				s.AppendEmpty() // an empty value
			},
			want: `,"body":{"structured":{"value":[1.0,null,"ff",null]}}`,
		},
		{
			name: "nested arrays",
			set: func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetEmptySlice().AppendEmpty().SetEmptySlice()
			},
			want: `,"body":{"structured":{"value":[[[]]]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.set(rec.Body())
			got := encodeLog(t, rec)
			if want := emptyLogPrefix + emptyEnvelope + tt.want + `}`; string(got) != want {
				t.Errorf("AppendLog() = %s, want %s", got, want)
			}
		})
	}
}

func TestAppendLogAttributes(t *testing.T) {
	tests := []struct {
		name string
		set  func(pcommon.Map)
		want string // the attributes member, or "" for none
	}{
		{name: "none", set: func(pcommon.Map) {}, want: ""},
		{
			name: "all control attributes",
			set: func(m pcommon.Map) {
				for _, k := range []string{
					"data_stream.type", "data_stream.dataset", "data_stream.namespace",
					"elasticsearch.index", "elasticsearch.document_id", "elasticsearch.ingest_pipeline",
					"elasticsearch.document_pipeline", "elastic.mapping.mode",
				} {
					m.PutStr(k, "x")
				}
				m.PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_doc_count")
			},
			want: `,"attributes":{}`,
		},
		{
			name: "control attributes between others",
			set: func(m pcommon.Map) {
				m.PutStr("data_stream.dataset", "x")
				m.PutStr("a", "1")
				m.PutStr("elasticsearch.document_id", "id")
				m.PutStr("b", "2")
			},
			want: `,"attributes":{"a":"1","b":"2"}`,
		},
		{
			name: "control keys stay in nested maps",
			set:  func(m pcommon.Map) { m.PutEmptyMap("n").PutStr("data_stream.dataset", "x") },
			want: `,"attributes":{"n":{"data_stream.dataset":"x"}}`,
		},
		{
			name: "every value type",
			set: func(m pcommon.Map) {
				m.PutStr("s", "str")
				m.PutInt("i", math.MinInt64)
				m.PutDouble("d", 1)
				m.PutBool("b", true)
				m.PutEmptyBytes("bytes").FromRaw([]byte{0x00, 0xff})
				m.PutEmptyMap("m").PutEmptyMap("n").PutStr("deep", "x")
				s := m.PutEmptySlice("arr")
				s.AppendEmpty().SetInt(1)
				s.AppendEmpty().SetEmptyBytes().FromRaw([]byte{0xab})
				s.AppendEmpty().SetEmptyMap().PutBool("t", true)
				m.PutEmpty("empty")
			},
			want: `,"attributes":{"s":"str","i":-9223372036854775808,"d":1.0,"b":true,"bytes":"00ff",` +
				`"m":{"n":{"deep":"x"}},"arr":[1,"ab",{"t":true}],"empty":null}`,
		},
		{
			name: "NaN and infinities",
			set: func(m pcommon.Map) {
				m.PutDouble("nan", math.NaN())
				m.PutDouble("inf", math.Inf(1))
				m.PutEmptyMap("n").PutDouble("ninf", math.Inf(-1))
				m.PutEmptySlice("arr").AppendEmpty().SetDouble(math.NaN())
			},
			want: `,"attributes":{"nan":null,"inf":null,"n":{"ninf":null},"arr":[null]}`,
		},
		{
			name: "dotted keys are not expanded",
			set:  func(m pcommon.Map) { m.PutStr("a.b.c", "x") },
			want: `,"attributes":{"a.b.c":"x"}`,
		},
		{
			name: "geo pair",
			set: func(m pcommon.Map) {
				m.PutStr("before", "x")
				m.PutDouble("geo.location.lat", 52.5)
				m.PutStr("between", "y")
				m.PutDouble("geo.location.lon", 13.25)
				m.PutStr("after", "z")
			},
			want: `,"attributes":{"before":"x","geo.location":[13.25,52.5],"between":"y","after":"z"}`,
		},
		{
			name: "geo pair lon first",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lon", 13)
				m.PutDouble("geo.location.lat", 52)
			},
			want: `,"attributes":{"geo.location":[13.0,52.0]}`,
		},
		{
			name: "prefixed geo pairs",
			set: func(m pcommon.Map) {
				m.PutDouble("client.geo.location.lat", 1.5)
				m.PutDouble("server.geo.location.lat", 3.5)
				m.PutDouble("client.geo.location.lon", 2.5)
				m.PutDouble("server.geo.location.lon", 4.5)
			},
			want: `,"attributes":{"client.geo.location":[2.5,1.5],"server.geo.location":[4.5,3.5]}`,
		},
		{
			name: "geo lat without lon",
			set:  func(m pcommon.Map) { m.PutDouble("geo.location.lat", 1) },
			want: `,"attributes":{"geo.location.lat":1.0}`,
		},
		{
			name: "geo lon without lat",
			set: func(m pcommon.Map) {
				m.PutDouble("client.geo.location.lon", 1)
				m.PutDouble("server.geo.location.lat", 2)
			},
			want: `,"attributes":{"client.geo.location.lon":1.0,"server.geo.location.lat":2.0}`,
		},
		{
			name: "geo lon not a double",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lat", 1)
				m.PutStr("geo.location.lon", "2")
			},
			want: `,"attributes":{"geo.location.lat":1.0,"geo.location.lon":"2"}`,
		},
		{
			name: "geo int is not a double",
			set: func(m pcommon.Map) {
				m.PutInt("geo.location.lat", 1)
				m.PutInt("geo.location.lon", 2)
			},
			want: `,"attributes":{"geo.location.lat":1,"geo.location.lon":2}`,
		},
		{
			name: "geo pair in a nested map is left alone",
			set: func(m pcommon.Map) {
				n := m.PutEmptyMap("client")
				n.PutDouble("geo.location.lat", 1)
				n.PutDouble("geo.location.lon", 2)
			},
			want: `,"attributes":{"client":{"geo.location.lat":1.0,"geo.location.lon":2.0}}`,
		},
		{
			name: "geo key taken by an earlier attribute",
			set: func(m pcommon.Map) {
				m.PutStr("geo.location", "first")
				m.PutDouble("geo.location.lat", 1)
				m.PutDouble("geo.location.lon", 2)
			},
			want: `,"attributes":{"geo.location":"first"}`,
		},
		{
			name: "geo key repeated after the pair",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lat", 1)
				m.PutDouble("geo.location.lon", 2)
				m.PutStr("geo.location", "later")
			},
			want: `,"attributes":{"geo.location":[2.0,1.0]}`,
		},
		{
			// DOCUMENTS.md: geo.location.lat/lon or <prefix>.geo.location.lat/lon. A name that
			// merely ends in "geo.location.lat" is an ordinary attribute, as in contrib.
			name: "geo suffix without a dot before it",
			set: func(m pcommon.Map) {
				m.PutDouble("nogeo.location.lat", 1)
				m.PutDouble("nogeo.location.lon", 2)
			},
			want: `,"attributes":{"nogeo.location.lat":1.0,"nogeo.location.lon":2.0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.set(rec.Attributes())
			got := encodeLog(t, rec)
			if want := emptyLogPrefix + tt.want + emptyEnvelope + `}`; string(got) != want {
				t.Errorf("AppendLog() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestAppendLogEventName(t *testing.T) {
	tests := []struct {
		name      string
		eventName string
		set       func(pcommon.Map)
		want      string // from "attributes" on, up to the envelope
	}{
		{name: "none", set: func(pcommon.Map) {}, want: ""},
		{name: "from EventName", eventName: "login", set: func(pcommon.Map) {}, want: `,"event_name":"login"`},
		{
			name: "from attribute, which stays",
			set:  func(m pcommon.Map) { m.PutStr("event.name", "logout") },
			want: `,"attributes":{"event.name":"logout"},"event_name":"logout"`,
		},
		{
			name:      "EventName wins over the attribute",
			eventName: "login",
			set:       func(m pcommon.Map) { m.PutStr("event.name", "logout") },
			want:      `,"attributes":{"event.name":"logout"},"event_name":"login"`,
		},
		{
			name: "attribute that is not a string",
			set:  func(m pcommon.Map) { m.PutInt("event.name", 1) },
			want: `,"attributes":{"event.name":1}`,
		},
		{
			name: "empty attribute",
			set:  func(m pcommon.Map) { m.PutStr("event.name", "") },
			want: `,"attributes":{"event.name":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			rec.SetEventName(tt.eventName)
			tt.set(rec.Attributes())
			got := encodeLog(t, rec)
			if want := emptyLogPrefix + tt.want + emptyEnvelope + `}`; string(got) != want {
				t.Errorf("AppendLog() = %s, want %s", got, want)
			}
		})
	}
}

func TestAppendLogEventNameFromRepeatedAttribute(t *testing.T) {
	rec := logRecordFromJSON(t, `{"attributes":[
		{"key":"event.name","value":{"stringValue":"first"}},
		{"key":"event.name","value":{"stringValue":"second"}}]}`)
	got := encodeLog(t, rec)
	want := emptyLogPrefix + `,"attributes":{"event.name":"first"},"event_name":"first"` + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendLog() = %s, want %s", got, want)
	}
}

func TestAppendLogDuplicateKeysFirstWins(t *testing.T) {
	tests := []struct {
		name   string
		record string // OTLP JSON
		want   string // from "attributes" on
	}{
		{
			name: "top level",
			record: `{"attributes":[
				{"key":"a","value":{"stringValue":"first"}},
				{"key":"b","value":{"intValue":"1"}},
				{"key":"a","value":{"stringValue":"second"}},
				{"key":"a","value":{"intValue":"3"}}]}`,
			want: `,"attributes":{"a":"first","b":1}` + emptyEnvelope + `}`,
		},
		{
			name: "nested",
			record: `{"attributes":[{"key":"m","value":{"kvlistValue":{"values":[
				{"key":"x","value":{"intValue":"1"}},
				{"key":"x","value":{"intValue":"2"}},
				{"key":"n","value":{"kvlistValue":{"values":[
					{"key":"y","value":{"boolValue":true}},
					{"key":"y","value":{"boolValue":false}}]}}}]}}}]}`,
			want: `,"attributes":{"m":{"x":1,"n":{"y":true}}}` + emptyEnvelope + `}`,
		},
		{
			name: "sibling maps do not share keys",
			record: `{"attributes":[
				{"key":"m1","value":{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"1"}}]}}},
				{"key":"m2","value":{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"2"}}]}}}]}`,
			want: `,"attributes":{"m1":{"x":1},"m2":{"x":2}}` + emptyEnvelope + `}`,
		},
		{
			name: "maps in an array",
			record: `{"attributes":[{"key":"arr","value":{"arrayValue":{"values":[
				{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"1"}},{"key":"x","value":{"intValue":"2"}}]}},
				{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"3"}}]}}]}}}]}`,
			want: `,"attributes":{"arr":[{"x":1},{"x":3}]}` + emptyEnvelope + `}`,
		},
		{
			name: "map body",
			record: `{"body":{"kvlistValue":{"values":[
				{"key":"y","value":{"doubleValue":1}},
				{"key":"z","value":{"kvlistValue":{"values":[
					{"key":"w","value":{"stringValue":"a"}},
					{"key":"w","value":{"stringValue":"b"}}]}}},
				{"key":"y","value":{"doubleValue":2}}]}}}`,
			want: emptyEnvelope + `,"body":{"structured":{"y":1.0,"z":{"w":"a"}}}}`,
		},
		{
			name: "array body of maps",
			record: `{"body":{"arrayValue":{"values":[
				{"kvlistValue":{"values":[{"key":"k","value":{"intValue":"1"}},{"key":"k","value":{"intValue":"2"}}]}}]}}}`,
			want: emptyEnvelope + `,"body":{"structured":[{"k":1}]}}`,
		},
		{
			name: "control attribute repeated",
			record: `{"attributes":[
				{"key":"data_stream.dataset","value":{"stringValue":"a"}},
				{"key":"data_stream.dataset","value":{"stringValue":"b"}}]}`,
			want: `,"attributes":{}` + emptyEnvelope + `}`,
		},
		{
			// The pair is written from the first lat and lon; a later repeat of either is
			// dropped like any repeated key.
			name: "geo key repeated with another type",
			record: `{"attributes":[
				{"key":"geo.location.lat","value":{"doubleValue":1}},
				{"key":"geo.location.lon","value":{"doubleValue":2}},
				{"key":"geo.location.lat","value":{"stringValue":"again"}}]}`,
			want: `,"attributes":{"geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encodeLog(t, logRecordFromJSON(t, tt.record))
			if want := emptyLogPrefix + tt.want; string(got) != want {
				t.Errorf("AppendLog() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestInvalidUTF8KeysStayDistinct covers keys that are different in pdata but the same once
// their invalid bytes are replaced by U+FFFD: the document must still not repeat a name, and
// the first key wins.
func TestInvalidUTF8KeysStayDistinct(t *testing.T) {
	const r = "\ufffd"
	tests := []struct {
		name string
		set  func(plog.LogRecord)
		want string // from "attributes" on
	}{
		{
			name: "two invalid bytes",
			set: func(rec plog.LogRecord) {
				rec.Attributes().PutInt("k\xff", 0)
				rec.Attributes().PutInt("k\xfe", 1)
			},
			want: `,"attributes":{"k` + r + `":0}` + emptyEnvelope + `}`,
		},
		{
			name: "invalid byte and U+FFFD",
			set: func(rec plog.LogRecord) {
				rec.Attributes().PutInt("k\ufffd", 0)
				rec.Attributes().PutInt("k\x80", 1)
			},
			want: `,"attributes":{"k` + r + `":0}` + emptyEnvelope + `}`,
		},
		{
			name: "nested map",
			set: func(rec plog.LogRecord) {
				m := rec.Attributes().PutEmptyMap("m")
				m.PutInt("\xc0", 0)
				m.PutInt("\xc1", 1)
			},
			want: `,"attributes":{"m":{"` + r + `":0}}` + emptyEnvelope + `}`,
		},
		{
			name: "map body",
			set: func(rec plog.LogRecord) {
				m := rec.Body().SetEmptyMap()
				m.PutInt("b\xff", 0)
				m.PutInt("b\xfe", 1)
			},
			want: emptyEnvelope + `,"body":{"structured":{"b` + r + `":0}}}`,
		},
		{
			name: "geo prefixes",
			set: func(rec plog.LogRecord) {
				a := rec.Attributes()
				a.PutDouble("a\xff.geo.location.lat", 1)
				a.PutDouble("a\xff.geo.location.lon", 2)
				a.PutDouble("a\xfe.geo.location.lat", 3)
				a.PutDouble("a\xfe.geo.location.lon", 4)
			},
			want: `,"attributes":{"a` + r + `.geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
		{
			name: "geo prefix and a plain key",
			set: func(rec plog.LogRecord) {
				a := rec.Attributes()
				a.PutDouble("a\xff.geo.location.lat", 1)
				a.PutDouble("a\xff.geo.location.lon", 2)
				a.PutStr("a\ufffd.geo.location", "later")
			},
			want: `,"attributes":{"a` + r + `.geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.set(rec)
			e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
			got := e.AppendLog(nil, rec, DataStream{})
			checkDocument(t, got) // reports a repeated name
			if want := emptyLogPrefix + tt.want; string(got) != want {
				t.Errorf("AppendLog() = %q, want %q", got, want)
			}
			if rep := e.Repair(); rep != RepairInvalidUTF8 {
				t.Errorf("Repair() = %q, want %q", rep, RepairInvalidUTF8)
			}
		})
	}
}

func TestInvalidUTF8KeysInResource(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("k\xff", "first")
	res.Attributes().PutStr("k\xfe", "second")
	var e Encoder
	e.SetResource(res, "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	checkDocument(t, got)
	want := emptyLogPrefix + `,"resource":{"attributes":{"k` + "\ufffd" + `":"first"}},"scope":{}}`
	if string(got) != want {
		t.Errorf("AppendLog() = %q, want %q", got, want)
	}
	if r := e.Repair(); r != RepairInvalidUTF8 {
		t.Errorf("Repair() = %q, want %q", r, RepairInvalidUTF8)
	}
}

func TestEnvelope(t *testing.T) {
	tests := []struct {
		name              string
		build             func(pcommon.Resource, pcommon.InstrumentationScope)
		resURL, scopeURL  string
		wantRes, wantScop string
	}{
		{name: "empty", build: func(pcommon.Resource, pcommon.InstrumentationScope) {}, wantRes: `{}`, wantScop: `{}`},
		{
			name: "only control attributes",
			build: func(r pcommon.Resource, s pcommon.InstrumentationScope) {
				r.Attributes().PutStr("data_stream.namespace", "prod")
				s.Attributes().PutStr("elasticsearch.index", "idx")
			},
			wantRes: `{"attributes":{}}`, wantScop: `{"attributes":{}}`,
		},
		{
			name: "schema urls only",
			build: func(pcommon.Resource, pcommon.InstrumentationScope) {
			},
			resURL: "r", scopeURL: "s",
			wantRes: `{"schema_url":"r"}`, wantScop: `{"schema_url":"s"}`,
		},
		{
			name: "version without name",
			build: func(_ pcommon.Resource, s pcommon.InstrumentationScope) {
				s.SetVersion("v1")
			},
			wantRes: `{}`, wantScop: `{"version":"v1"}`,
		},
		{
			name: "dropped counts only",
			build: func(r pcommon.Resource, s pcommon.InstrumentationScope) {
				r.SetDroppedAttributesCount(4)
				s.SetDroppedAttributesCount(5)
			},
			wantRes: `{"dropped_attributes_count":4}`, wantScop: `{"dropped_attributes_count":5}`,
		},
		{
			name: "geo pair in the resource",
			build: func(r pcommon.Resource, _ pcommon.InstrumentationScope) {
				r.Attributes().PutDouble("host.geo.location.lat", 1)
				r.Attributes().PutDouble("host.geo.location.lon", 2)
			},
			wantRes: `{"attributes":{"host.geo.location":[2.0,1.0]}}`, wantScop: `{}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, scope := pcommon.NewResource(), pcommon.NewInstrumentationScope()
			tt.build(res, scope)
			var e Encoder
			e.SetResource(res, tt.resURL)
			e.SetScope(scope, tt.scopeURL)
			got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
			checkDocument(t, got)
			want := emptyLogPrefix + `,"resource":` + tt.wantRes + `,"scope":` + tt.wantScop + `}`
			if string(got) != want {
				t.Errorf("AppendLog() = %s, want %s", got, want)
			}
		})
	}
}

func TestSetResourceReplacesPrevious(t *testing.T) {
	var e Encoder
	r1 := pcommon.NewResource()
	r1.Attributes().PutStr("service.name", "a-long-service-name")
	e.SetResource(r1, "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	buf := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	r2 := pcommon.NewResource()
	r2.Attributes().PutStr("service.name", "b")
	e.SetResource(r2, "")
	start := len(buf)
	buf = e.AppendLog(buf, plog.NewLogRecord(), DataStream{})
	first, second := buf[:start], buf[start:]
	checkDocument(t, first)
	checkDocument(t, second)
	if want := emptyLogPrefix + `,"resource":{"attributes":{"service.name":"a-long-service-name"}},"scope":{}}`; string(first) != want {
		t.Errorf("first document = %s, want %s", first, want)
	}
	if want := emptyLogPrefix + `,"resource":{"attributes":{"service.name":"b"}},"scope":{}}`; string(second) != want {
		t.Errorf("second document = %s, want %s", second, want)
	}
}

func TestAppendLogDataStream(t *testing.T) {
	var e Encoder
	e.SetResource(pcommon.NewResource(), "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{Type: "logs", Dataset: `a"b`, Namespace: "c\xff"})
	checkDocument(t, got)
	want := emptyLogPrefix + `,"data_stream":{"type":"logs","dataset":"a\"b","namespace":"c` + "\ufffd" + `"}` + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendLog() = %q, want %q", got, want)
	}
	if r := e.Repair(); r != RepairInvalidUTF8 {
		t.Errorf("Repair() = %q, want %q", r, RepairInvalidUTF8)
	}
}

func TestAppendLogSemantic(t *testing.T) {
	rec := plog.NewLogRecord()
	rec.SetSeverityNumber(plog.SeverityNumberError)
	rec.Attributes().PutDouble("ratio", 3)
	rec.Attributes().PutInt("count", 3)
	rec.Body().SetEmptyMap().PutDouble("v", 1e21)
	doc := decodeDocument(t, encodeLog(t, rec))

	attrs := doc["attributes"].(map[string]any)
	if got := attrs["ratio"]; got != json.Number("3.0") {
		t.Errorf("attributes.ratio = %v, want 3.0", got)
	}
	if got := attrs["count"]; got != json.Number("3") {
		t.Errorf("attributes.count = %v, want 3", got)
	}
	if got := doc["severity_number"]; got != json.Number("17") {
		t.Errorf("severity_number = %v, want 17", got)
	}
	body := doc["body"].(map[string]any)["structured"].(map[string]any)
	if got := body["v"]; got != json.Number("1e+21") {
		t.Errorf("body.structured.v = %v, want 1e+21", got)
	}
}

func TestAppendLogAppendsToDst(t *testing.T) {
	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	dst := []byte(`{"create":{}}` + "\n")
	got := e.AppendLog(dst, plog.NewLogRecord(), DataStream{})
	want := `{"create":{}}` + "\n" + emptyLogPrefix + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendLog(dst) = %s, want %s", got, want)
	}
}

func TestAppendSpanKeyOrder(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "checkout")
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib")

	span := ptrace.NewSpan()
	span.SetStartTimestamp(1_700_000_000_000_000_000)
	span.SetEndTimestamp(1_700_000_000_001_500_000)
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	span.TraceState().FromRaw("k=v")
	span.SetParentSpanID(testParentSpanID)
	span.SetName("GET /orders")
	span.SetKind(ptrace.SpanKindServer)
	span.Attributes().PutStr("http.request.method", "GET")
	span.Attributes().PutStr("data_stream.namespace", "x") // control: left out
	span.SetDroppedAttributesCount(1)
	span.SetDroppedEventsCount(2)
	link := span.Links().AppendEmpty()
	link.SetTraceID(testTraceID)
	link.SetSpanID(testParentSpanID)
	link.TraceState().FromRaw("a=b")
	link.Attributes().PutInt("l", 1)
	link.SetDroppedAttributesCount(3)
	span.Links().AppendEmpty()
	span.SetDroppedLinksCount(4)
	span.Status().SetCode(ptrace.StatusCodeError)
	span.Status().SetMessage("boom")

	var e Encoder
	e.SetResource(res, "")
	e.SetScope(scope, "")
	got := e.AppendSpan(nil, span, tracesStream)
	checkDocument(t, got)
	want := `{"@timestamp":"1700000000000.0",` +
		`"data_stream":{"type":"traces","dataset":"generic.otel","namespace":"default"},` +
		`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233","trace_state":"k=v",` +
		`"parent_span_id":"0f0e0d0c0b0a0908","name":"GET /orders","kind":"Server","duration":1500000,` +
		`"attributes":{"http.request.method":"GET"},"dropped_attributes_count":1,"dropped_events_count":2,` +
		`"links":[{"trace_id":"0123456789abcdeffedcba9876543210","span_id":"0f0e0d0c0b0a0908","trace_state":"a=b","attributes":{"l":1},"dropped_attributes_count":3},{}],` +
		`"dropped_links_count":4,"status":{"message":"boom","code":"Error"},` +
		`"resource":{"attributes":{"service.name":"checkout"}},"scope":{"name":"lib"}}`
	if string(got) != want {
		t.Errorf("AppendSpan() =\n%s\nwant\n%s", got, want)
	}
	if r := e.Repair(); r != RepairNone {
		t.Errorf("Repair() = %q, want %q", r, RepairNone)
	}
}

func TestAppendSpanEmpty(t *testing.T) {
	got := encodeSpan(t, ptrace.NewSpan())
	if want := emptySpanPrefix + emptySpanSuffix; string(got) != want {
		t.Errorf("AppendSpan(empty) = %s, want %s", got, want)
	}
}

func TestAppendSpanKind(t *testing.T) {
	tests := []struct {
		kind ptrace.SpanKind
		want string
	}{
		{ptrace.SpanKindUnspecified, "Unspecified"},
		{ptrace.SpanKindInternal, "Internal"},
		{ptrace.SpanKindServer, "Server"},
		{ptrace.SpanKindClient, "Client"},
		{ptrace.SpanKindProducer, "Producer"},
		{ptrace.SpanKindConsumer, "Consumer"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			span := ptrace.NewSpan()
			span.SetKind(tt.kind)
			got := encodeSpan(t, span)
			if want := `"kind":"` + tt.want + `"`; !bytes.Contains(got, []byte(want)) {
				t.Errorf("AppendSpan(kind %d) = %s, want it to contain %s", tt.kind, got, want)
			}
		})
	}
}

func TestAppendSpanDuration(t *testing.T) {
	tests := []struct {
		name       string
		start, end pcommon.Timestamp
		want       string
		wantRepair Repair
	}{
		{name: "zero", want: `,"duration":0`},
		{name: "positive", start: 1_000, end: 2_500, want: `,"duration":1500`},
		{name: "end only", end: 1_700_000_000_000_000_000, want: `,"duration":1700000000000000000`},
		{name: "full range", start: 0, end: math.MaxUint64, want: `,"duration":18446744073709551615`},
		{name: "negative", start: 2_000, end: 1_000, want: `,"duration":0`, wantRepair: RepairNegativeDuration},
		{name: "end missing", start: 1_700_000_000_000_000_000, end: 0, want: `,"duration":0`, wantRepair: RepairNegativeDuration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span := ptrace.NewSpan()
			span.SetStartTimestamp(tt.start)
			span.SetEndTimestamp(tt.end)
			e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
			got := e.AppendSpan(nil, span, DataStream{})
			checkDocument(t, got)
			if !bytes.Contains(got, []byte(tt.want)) {
				t.Errorf("AppendSpan(start %d, end %d) = %s, want it to contain %s", tt.start, tt.end, got, tt.want)
			}
			if r := e.Repair(); r != tt.wantRepair {
				t.Errorf("Repair() = %q, want %q", r, tt.wantRepair)
			}
			// The repair belongs to one document only.
			checkDocument(t, e.AppendSpan(nil, ptrace.NewSpan(), DataStream{}))
			if r := e.Repair(); r != RepairNone {
				t.Errorf("Repair() after a clean span = %q, want %q", r, RepairNone)
			}
		})
	}
}

func TestAppendSpanStatus(t *testing.T) {
	tests := []struct {
		name    string
		code    ptrace.StatusCode
		message string
		want    string
	}{
		{name: "unset", want: `,"status":{}`},
		{name: "unset with message", message: "m", want: `,"status":{"message":"m"}`},
		{name: "ok", code: ptrace.StatusCodeOk, want: `,"status":{"code":"Ok"}`},
		{name: "error", code: ptrace.StatusCodeError, want: `,"status":{"code":"Error"}`},
		{name: "error with message", code: ptrace.StatusCodeError, message: "connection \"reset\"", want: `,"status":{"message":"connection \"reset\"","code":"Error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span := ptrace.NewSpan()
			span.Status().SetCode(tt.code)
			span.Status().SetMessage(tt.message)
			got := encodeSpan(t, span)
			want := emptySpanPrefix + `,"links":[]` + tt.want + emptyEnvelope + `}`
			if string(got) != want {
				t.Errorf("AppendSpan() = %s, want %s", got, want)
			}
		})
	}
}

func TestAppendSpanLinks(t *testing.T) {
	span := ptrace.NewSpan()
	l1 := span.Links().AppendEmpty()
	l1.SetSpanID(testSpanID)
	l1.Attributes().PutStr("a", "b")
	l2 := span.Links().AppendEmpty()
	l2.SetDroppedAttributesCount(1)
	got := encodeSpan(t, span)
	want := emptySpanPrefix + `,"links":[{"span_id":"aabbccdd00112233","attributes":{"a":"b"}},{"dropped_attributes_count":1}],"status":{}` + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendSpan() = %s, want %s", got, want)
	}
}

// TestAppendSpanLinkAttributes covers link attributes, which are written like every other
// attributes object: control attributes left out, geo pairs merged, first key wins.
func TestAppendSpanLinkAttributes(t *testing.T) {
	span := ptrace.NewSpan()
	a := span.Links().AppendEmpty().Attributes()
	a.PutStr("data_stream.dataset", "x")
	a.PutStr("elasticsearch.index", "idx")
	a.PutStr("k", "v")
	a.PutDouble("geo.location.lat", 1)
	a.PutDouble("geo.location.lon", 2)
	got := encodeSpan(t, span)
	want := emptySpanPrefix + `,"links":[{"attributes":{"k":"v","geo.location":[2.0,1.0]}}],"status":{}` + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendSpan() =\n%s\nwant\n%s", got, want)
	}
}

func TestAppendSpanEvent(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "checkout")
	span := ptrace.NewSpan()
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	span.SetParentSpanID(testParentSpanID)

	tests := []struct {
		name  string
		build func(ptrace.SpanEvent)
		want  string
	}{
		{
			name: "full",
			build: func(ev ptrace.SpanEvent) {
				ev.SetTimestamp(1_700_000_000_000_000_001)
				ev.SetName("exception")
				ev.Attributes().PutStr("exception.type", "IOError")
				ev.Attributes().PutStr("data_stream.dataset", "x") // control: left out
				ev.SetDroppedAttributesCount(2)
			},
			want: `{"@timestamp":"1700000000000.000001",` +
				`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
				`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
				`"dropped_attributes_count":2,"event_name":"exception",` +
				`"attributes":{"exception.type":"IOError","event.name":"exception"},` +
				`"resource":{"attributes":{"service.name":"checkout"}},"scope":{}}`,
		},
		{
			name: "name wins over the attribute",
			build: func(ev ptrace.SpanEvent) {
				ev.SetName("real")
				ev.Attributes().PutStr("before", "x")
				ev.Attributes().PutStr("event.name", "attribute")
				ev.Attributes().PutStr("after", "y")
			},
			want: `{"@timestamp":"0.0",` +
				`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
				`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
				`"event_name":"real","attributes":{"before":"x","after":"y","event.name":"real"},` +
				`"resource":{"attributes":{"service.name":"checkout"}},"scope":{}}`,
		},
		{
			name:  "no name, no attributes",
			build: func(ptrace.SpanEvent) {},
			want: `{"@timestamp":"0.0",` +
				`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
				`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
				`"resource":{"attributes":{"service.name":"checkout"}},"scope":{}}`,
		},
		{
			name: "only control attributes",
			build: func(ev ptrace.SpanEvent) {
				ev.SetName("e")
				ev.Attributes().PutStr("elasticsearch.index", "idx")
			},
			want: `{"@timestamp":"0.0",` +
				`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
				`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
				`"event_name":"e","attributes":{"event.name":"e"},` +
				`"resource":{"attributes":{"service.name":"checkout"}},"scope":{}}`,
		},
		{
			name: "geo pair",
			build: func(ev ptrace.SpanEvent) {
				ev.SetName("e")
				ev.Attributes().PutDouble("geo.location.lat", 1)
				ev.Attributes().PutDouble("geo.location.lon", 2)
			},
			want: `{"@timestamp":"0.0",` +
				`"data_stream":{"type":"logs","dataset":"generic.otel","namespace":"default"},` +
				`"trace_id":"0123456789abcdeffedcba9876543210","span_id":"aabbccdd00112233",` +
				`"event_name":"e","attributes":{"geo.location":[2.0,1.0],"event.name":"e"},` +
				`"resource":{"attributes":{"service.name":"checkout"}},"scope":{}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ptrace.NewSpanEvent()
			tt.build(ev)
			var e Encoder
			e.SetResource(res, "")
			e.SetScope(pcommon.NewInstrumentationScope(), "")
			got := e.AppendSpanEvent(nil, span, ev, logsStream)
			checkDocument(t, got)
			if string(got) != tt.want {
				t.Errorf("AppendSpanEvent() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSpanEventNameWinsOverRepeatedAttribute(t *testing.T) {
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"events":[{"name":"real","attributes":[
		{"key":"event.name","value":{"stringValue":"a"}},
		{"key":"x","value":{"intValue":"1"}},
		{"key":"event.name","value":{"stringValue":"b"}},
		{"key":"x","value":{"intValue":"2"}}]}]}]}]}]}`))
	if err != nil {
		t.Fatalf("UnmarshalTraces: %v", err)
	}
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	got := e.AppendSpanEvent(nil, span, span.Events().At(0), DataStream{})
	checkDocument(t, got)
	want := emptyEventPrefix + `,"event_name":"real","attributes":{"x":1,"event.name":"real"}` + emptyEnvelope + `}`
	if string(got) != want {
		t.Errorf("AppendSpanEvent() = %s, want %s", got, want)
	}
}

func TestRepairInvalidUTF8(t *testing.T) {
	bad := pcommon.NewResource()
	bad.Attributes().PutStr("service.name", "svc\xff")
	good := pcommon.NewResource()
	good.Attributes().PutStr("service.name", "svc")
	span := ptrace.NewSpan()
	ev := ptrace.NewSpanEvent()

	var e Encoder
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	e.SetResource(bad, "")
	docs := []struct {
		name   string
		encode func() []byte
	}{
		{name: "log", encode: func() []byte { return e.AppendLog(nil, plog.NewLogRecord(), DataStream{}) }},
		{name: "span", encode: func() []byte { return e.AppendSpan(nil, span, DataStream{}) }},
		{name: "span event", encode: func() []byte { return e.AppendSpanEvent(nil, span, ev, DataStream{}) }},
		{name: "second log", encode: func() []byte { return e.AppendLog(nil, plog.NewLogRecord(), DataStream{}) }},
	}
	for _, d := range docs {
		doc := d.encode()
		checkDocument(t, doc)
		if !bytes.Contains(doc, []byte(`"service.name":"svc`+"\ufffd"+`"`)) {
			t.Errorf("%s: document = %q, want the replaced service.name", d.name, doc)
		}
		if r := e.Repair(); r != RepairInvalidUTF8 {
			t.Errorf("%s with invalid UTF-8 in the resource: Repair() = %q, want %q", d.name, r, RepairInvalidUTF8)
		}
	}

	e.SetResource(good, "")
	for _, d := range docs {
		checkDocument(t, d.encode())
		if r := e.Repair(); r != RepairNone {
			t.Errorf("%s with a clean resource: Repair() = %q, want %q", d.name, r, RepairNone)
		}
	}

	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib\xc3")
	e.SetScope(scope, "")
	checkDocument(t, e.AppendLog(nil, plog.NewLogRecord(), DataStream{}))
	if r := e.Repair(); r != RepairInvalidUTF8 {
		t.Errorf("log with invalid UTF-8 in the scope: Repair() = %q, want %q", r, RepairInvalidUTF8)
	}
	e.SetScope(pcommon.NewInstrumentationScope(), "")

	// In the record itself, anywhere.
	records := []struct {
		name string
		set  func(plog.LogRecord)
	}{
		{name: "body", set: func(r plog.LogRecord) { r.Body().SetStr("\x80") }},
		{name: "attribute key", set: func(r plog.LogRecord) { r.Attributes().PutStr("\xff", "v") }},
		{name: "nested value", set: func(r plog.LogRecord) { r.Attributes().PutEmptyMap("m").PutStr("k", "\xed\xa0\x80") }},
		{name: "severity text", set: func(r plog.LogRecord) { r.SetSeverityText("\xc0\xaf") }},
		{name: "event name", set: func(r plog.LogRecord) { r.SetEventName("\xfe") }},
	}
	for _, rr := range records {
		t.Run(rr.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			rr.set(rec)
			checkDocument(t, e.AppendLog(nil, rec, DataStream{}))
			if r := e.Repair(); r != RepairInvalidUTF8 {
				t.Errorf("Repair() = %q, want %q", r, RepairInvalidUTF8)
			}
		})
	}

	// A negative duration is reported even when a string was repaired too.
	neg := ptrace.NewSpan()
	neg.SetStartTimestamp(2)
	neg.SetEndTimestamp(1)
	neg.SetName("\xff")
	checkDocument(t, e.AppendSpan(nil, neg, DataStream{}))
	if r := e.Repair(); r != RepairNegativeDuration {
		t.Errorf("span with a negative duration and invalid UTF-8: Repair() = %q, want %q", r, RepairNegativeDuration)
	}
}

func TestDeeplyNestedMaps(t *testing.T) {
	const depth = 1000
	rec := plog.NewLogRecord()
	m := rec.Attributes().PutEmptyMap("n")
	body := rec.Body().SetEmptyMap()
	for i := range depth - 1 {
		m.PutInt("i", int64(i))
		m = m.PutEmptyMap("n")
		body.PutStr("s", "x")
		body = body.PutEmptySlice("a").AppendEmpty().SetEmptyMap()
	}
	doc := encodeLog(t, rec)
	got := decodeDocument(t, doc)
	n := got["attributes"].(map[string]any)
	levels := 0
	for {
		next, ok := n["n"].(map[string]any)
		if !ok {
			break
		}
		n = next
		levels++
	}
	if levels != depth {
		t.Errorf("attributes nest %d maps, want %d", levels, depth)
	}
}

func TestDeeplyNestedDuplicateKeys(t *testing.T) {
	const depth = 200
	var sb strings.Builder
	for range depth {
		sb.WriteString(`{"key":"k","value":{"kvlistValue":{"values":[{"key":"d","value":{"intValue":"1"}},{"key":"d","value":{"intValue":"2"}},`)
	}
	sb.WriteString(`{"key":"leaf","value":{"boolValue":true}}`)
	for range depth {
		sb.WriteString(`]}}}`)
	}
	rec := logRecordFromJSON(t, `{"attributes":[`+sb.String()+`]}`)
	doc := encodeLog(t, rec)
	if n := bytes.Count(doc, []byte(`"d":1`)); n != depth {
		t.Errorf("found %d first values, want %d", n, depth)
	}
	if bytes.Contains(doc, []byte(`"d":2`)) {
		t.Errorf("a repeated key was written: %.200s...", doc)
	}
}

func TestManyKeysWithDuplicates(t *testing.T) {
	const keys = 10_000
	var sb strings.Builder
	sb.WriteString(`{"attributes":[`)
	for i := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		// Every fourth entry repeats the key written three entries before it.
		k := i
		if i%4 == 3 {
			k = i - 3
		}
		fmt.Fprintf(&sb, `{"key":"key.%d","value":{"intValue":"%d"}}`, k, i)
	}
	sb.WriteString(`],"body":{"kvlistValue":{"values":[`)
	for i := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"key":"b%d","value":{"intValue":"%d"}}`, i%(keys/2), i)
	}
	sb.WriteString(`]}}}`)
	rec := logRecordFromJSON(t, sb.String())

	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	// Twice, so the reused key index is exercised after a reset.
	for range 2 {
		doc := e.AppendLog(nil, rec, DataStream{})
		got := decodeDocument(t, doc)
		attrs := got["attributes"].(map[string]any)
		if want := keys - keys/4; len(attrs) != want {
			t.Errorf("attributes has %d keys, want %d", len(attrs), want)
		}
		for i := 0; i < keys; i += 4 {
			if v := attrs["key."+strconv.Itoa(i)]; v != json.Number(strconv.Itoa(i)) {
				t.Fatalf("attributes[key.%d] = %v, want the first value %d", i, v, i)
			}
		}
		body := got["body"].(map[string]any)["structured"].(map[string]any)
		if len(body) != keys/2 {
			t.Errorf("body has %d keys, want %d", len(body), keys/2)
		}
		if v := body["b7"]; v != json.Number("7") {
			t.Errorf("body.b7 = %v, want the first value 7", v)
		}
	}
}

// TestZeroEncoder covers an Encoder used before SetResource and SetScope: the document must
// still be valid, with the empty objects.
func TestZeroEncoder(t *testing.T) {
	var e Encoder
	got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	if want := emptyLogPrefix + emptyEnvelope + `}`; string(got) != want {
		t.Errorf("AppendLog() on a zero Encoder = %s, want %s", got, want)
	}
	var e2 Encoder
	got = e2.AppendSpan(nil, ptrace.NewSpan(), DataStream{})
	if want := emptySpanPrefix + emptySpanSuffix; string(got) != want {
		t.Errorf("AppendSpan() on a zero Encoder = %s, want %s", got, want)
	}
}

func TestNonFiniteGeoStaysPlain(t *testing.T) {
	var e Encoder
	rec := plog.NewLogRecord()
	rec.Attributes().PutDouble("geo.location.lat", math.NaN())
	rec.Attributes().PutDouble("geo.location.lon", 2)
	got := string(e.AppendLog(nil, rec, DataStream{}))
	want := `{"@timestamp":"0.0","observed_timestamp":"0.0","attributes":{"geo.location.lat":null,"geo.location.lon":2.0},"resource":{},"scope":{}}`
	if got != want {
		t.Errorf("AppendLog() = %s, want %s", got, want)
	}
}

func TestUnknownSpanKindIsLeftOut(t *testing.T) {
	var e Encoder
	span := ptrace.NewSpan()
	span.SetKind(ptrace.SpanKind(42))
	got := string(e.AppendSpan(nil, span, DataStream{}))
	want := `{"@timestamp":"0.0","duration":0,"links":[],"status":{},"resource":{},"scope":{}}`
	if got != want {
		t.Errorf("AppendSpan() = %s, want %s", got, want)
	}
}
