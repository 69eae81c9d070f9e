// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
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
