// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"math"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

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
