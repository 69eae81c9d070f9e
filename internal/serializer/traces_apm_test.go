// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// apmErrorStream and apmAppStream are the data streams the pipeline routes span events to with
// mapping::ecs_span_events_to_logs.
var (
	apmErrorStream = DataStream{Type: "logs", Dataset: "apm.error", Namespace: "prod"}
	apmAppStream   = DataStream{Type: "logs", Dataset: "apm.app.svc", Namespace: "prod"}
)

func TestIsSpanEventException(t *testing.T) {
	tests := []struct {
		name  string
		event string
		attrs map[string]any
		want  bool
	}{
		{name: "type", event: "exception", attrs: map[string]any{"exception.type": "E"}, want: true},
		{name: "message", event: "exception", attrs: map[string]any{"exception.message": "m"}, want: true},
		{name: "stacktrace only", event: "exception", attrs: map[string]any{"exception.stacktrace": "at x"}},
		{name: "no attributes", event: "exception"},
		{name: "another name", event: "Exception", attrs: map[string]any{"exception.type": "E"}},
		{name: "log", event: "cache miss", attrs: map[string]any{"exception.type": "E"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ptrace.NewSpanEvent()
			ev.SetName(tt.event)
			if err := ev.Attributes().FromRaw(tt.attrs); err != nil {
				t.Fatal(err)
			}
			if got := IsSpanEventException(ev); got != tt.want {
				t.Errorf("IsSpanEventException = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestECSSpanEventAPM checks the documents of span events bound for Elastic APM's data streams:
// the ECS log document of TestECSSpanEvent with the data stream of the route, and, for an
// exception, without error.grouping_name.
func TestECSSpanEventAPM(t *testing.T) {
	res := pcommon.NewResource()
	ra := res.Attributes()
	ra.PutStr("service.name", "svc")
	ra.PutStr("telemetry.sdk.name", "opentelemetry")
	ra.PutStr("telemetry.sdk.language", "java")
	span := ptrace.NewSpan()
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	head := `{"@timestamp":"2023-11-14T22:13:20.000000500Z","agent":{"name":"opentelemetry/java"},`
	tail := `"service":{"language":{"name":"java"},"name":"svc"},` +
		`"span":{"id":"` + testSpanHex + `"},` +
		`"trace":{"id":"` + testTraceHex + `"}}`

	tests := []struct {
		name  string
		event string
		attrs map[string]any
		ds    DataStream
		want  string
	}{
		{
			name:  "exception",
			event: "exception",
			attrs: map[string]any{
				"exception.type": "E", "exception.message": "m", "exception.stacktrace": "at x",
				"error.grouping_name": "computed by the template", "error.grouping_key": "k",
			},
			ds: apmErrorStream,
			want: head + `"data_stream":{"dataset":"apm.error","namespace":"prod","type":"logs"},` +
				`"error":{"grouping_key":"k","message":"m","stacktrace":"at x","type":"E"},` +
				`"event":{"action":"exception"},` + tail,
		},
		{
			name:  "log event keeps error.grouping_name",
			event: "cache miss",
			attrs: map[string]any{"key": "cart:1", "error.grouping_name": "g"},
			ds:    apmAppStream,
			want: head + `"data_stream":{"dataset":"apm.app.svc","namespace":"prod","type":"logs"},` +
				`"error":{"grouping_name":"g"},"event":{"action":"cache miss"},"key":"cart:1",` + tail,
		},
		{
			name:  "exception without type or message",
			event: "exception",
			attrs: map[string]any{"exception.stacktrace": "at x", "error.grouping_name": "g"},
			ds:    apmAppStream,
			want: head + `"data_stream":{"dataset":"apm.app.svc","namespace":"prod","type":"logs"},` +
				`"error":{"grouping_name":"g","stacktrace":"at x"},"event":{"action":"exception"},` + tail,
		},
		{
			name:  "a static index",
			event: "exception",
			attrs: map[string]any{"exception.type": "E", "error.grouping_name": "g"},
			want:  head + `"error":{"type":"E"},"event":{"action":"exception"},` + tail,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := span.Events().AppendEmpty()
			ev.SetTimestamp(1_700_000_000_000_000_500)
			ev.SetName(tt.event)
			if err := ev.Attributes().FromRaw(tt.attrs); err != nil {
				t.Fatal(err)
			}
			got := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope()).AppendSpanEventAPM(nil, span, ev, tt.ds)
			checkDoc(t, got, tt.want)
		})
	}
}

// Only the ecs mode writes span events for Elastic APM's data streams.
func TestAppendSpanEventAPMOtherModes(t *testing.T) {
	span := ptrace.NewSpan()
	ev := span.Events().AppendEmpty()
	ev.SetName("exception")
	ev.Attributes().PutStr("exception.type", "E")
	for _, m := range []Mode{ModeOTel, ModeNone, ModeRaw, ModeBodyMap} {
		e := modeEncoder(m, pcommon.NewResource(), pcommon.NewInstrumentationScope())
		if got := e.AppendSpanEventAPM([]byte("x"), span, ev, apmErrorStream); string(got) != "x" || e.Rejection().Reason != RejectionUnsupported {
			t.Errorf("%v: AppendSpanEventAPM = %q, Rejection() = %q, want dst unchanged and %q", m, got, e.Rejection().Reason, RejectionUnsupported)
		}
	}
}
