// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"math"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

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
