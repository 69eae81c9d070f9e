// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// AppendSpan appends the document of one span to dst and returns the extended buffer. The
// span's events are separate documents (AppendSpanEvent).
func (e *Encoder) AppendSpan(dst []byte, span ptrace.Span, ds DataStream) []byte {
	e.begin(dst)
	start, end := span.StartTimestamp(), span.EndTimestamp()
	e.w.raw(`{"@timestamp":`)
	e.w.dateNanos(uint64(start))
	e.writeDataStream(ds)
	e.writeTraceIDs(span.TraceID(), span.SpanID())
	if s := span.TraceState().AsRaw(); s != "" {
		e.w.raw(`,"trace_state":`)
		e.w.str(s)
	}
	if id := span.ParentSpanID(); !id.IsEmpty() {
		e.w.raw(`,"parent_span_id":`)
		e.w.hex(id[:])
	}
	if s := span.Name(); s != "" {
		e.w.raw(`,"name":`)
		e.w.str(s)
	}
	if kind := span.Kind().String(); kind != "" { // empty for a kind unknown to pdata
		e.w.raw(`,"kind":`)
		e.w.str(kind)
	}
	// A span that ends before it starts gets a duration of 0 rather than a wrapped
	// unsigned difference of about 1.8e19.
	var duration uint64
	if end >= start {
		duration = uint64(end - start)
	} else {
		e.repair = RepairNegativeDuration
	}
	e.w.raw(`,"duration":`)
	e.w.uint(duration)
	if attrs := span.Attributes(); attrs.Len() > 0 {
		e.w.raw(`,"attributes":`)
		e.writeAttributes(attrs, "")
	}
	if n := span.DroppedAttributesCount(); n > 0 {
		e.w.raw(`,"dropped_attributes_count":`)
		e.w.uint(uint64(n))
	}
	if n := span.DroppedEventsCount(); n > 0 {
		e.w.raw(`,"dropped_events_count":`)
		e.w.uint(uint64(n))
	}
	e.w.raw(`,"links":[`)
	links := span.Links()
	for i := range links.Len() {
		if i > 0 {
			e.w.byte(',')
		}
		e.writeLink(links.At(i))
	}
	e.w.byte(']')
	if n := span.DroppedLinksCount(); n > 0 {
		e.w.raw(`,"dropped_links_count":`)
		e.w.uint(uint64(n))
	}
	e.writeStatus(span.Status())
	return e.end()
}

func (e *Encoder) writeLink(l ptrace.SpanLink) {
	e.w.byte('{')
	sep := ""
	if id := l.TraceID(); !id.IsEmpty() {
		e.w.raw(`"trace_id":`)
		e.w.hex(id[:])
		sep = ","
	}
	if id := l.SpanID(); !id.IsEmpty() {
		e.w.raw(sep + `"span_id":`)
		e.w.hex(id[:])
		sep = ","
	}
	if s := l.TraceState().AsRaw(); s != "" {
		e.w.raw(sep + `"trace_state":`)
		e.w.str(s)
		sep = ","
	}
	if attrs := l.Attributes(); attrs.Len() > 0 {
		e.w.raw(sep + `"attributes":`)
		e.writeAttributes(attrs, "")
		sep = ","
	}
	if n := l.DroppedAttributesCount(); n > 0 {
		e.w.raw(sep + `"dropped_attributes_count":`)
		e.w.uint(uint64(n))
	}
	e.w.byte('}')
}

// writeStatus writes the status object, always present: {} when the code is Unset and there
// is no message.
func (e *Encoder) writeStatus(s ptrace.Status) {
	e.w.raw(`,"status":{`)
	sep := ""
	if m := s.Message(); m != "" {
		e.w.raw(`"message":`)
		e.w.str(m)
		sep = ","
	}
	switch s.Code() {
	case ptrace.StatusCodeOk:
		e.w.raw(sep + `"code":"Ok"`)
	case ptrace.StatusCodeError:
		e.w.raw(sep + `"code":"Error"`)
	}
	e.w.byte('}')
}

// AppendSpanEvent appends the document of one span event to dst and returns the extended
// buffer. It is routed like a log record and carries the trace and span ids of its span.
func (e *Encoder) AppendSpanEvent(dst []byte, span ptrace.Span, ev ptrace.SpanEvent, ds DataStream) []byte {
	e.begin(dst)
	e.w.raw(`{"@timestamp":`)
	e.w.dateNanos(uint64(ev.Timestamp()))
	e.writeDataStream(ds)
	e.writeTraceIDs(span.TraceID(), span.SpanID())
	if n := ev.DroppedAttributesCount(); n > 0 {
		e.w.raw(`,"dropped_attributes_count":`)
		e.w.uint(uint64(n))
	}
	if s := ev.Name(); s != "" {
		e.w.raw(`,"event_name":`)
		e.w.str(s)
	}
	// A named event's name is written as the attribute event.name; it wins over an attribute
	// of that name.
	switch name, attrs := ev.Name(), ev.Attributes(); {
	case name != "":
		e.w.raw(`,"attributes":`)
		e.writeAttributes(attrs, "event.name")
		e.w.str(name)
		e.w.byte('}')
	case attrs.Len() > 0:
		e.w.raw(`,"attributes":`)
		e.writeAttributes(attrs, "")
	}
	return e.end()
}
