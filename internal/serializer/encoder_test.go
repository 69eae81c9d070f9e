// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
