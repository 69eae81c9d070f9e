// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// AppendSpan appends the document of one span, in the encoder's mode, to dst and returns the
// extended buffer. In otel and ecs modes the span's events are separate documents
// (AppendSpanEvent); in none and raw modes they are written inside the span's document. In
// bodymap mode the span is rejected: dst comes back unchanged and Rejection says why.
func (e *Encoder) AppendSpan(dst []byte, span ptrace.Span, ds DataStream) []byte {
	switch e.mode {
	case ModeECS:
		return e.appendSpanECS(dst, span, ds)
	case ModeNone, ModeRaw:
		return e.appendSpanLegacy(dst, span, ds)
	case ModeBodyMap:
		return e.reject(dst, RejectionUnsupported)
	}
	return e.appendSpanOTel(dst, span, ds)
}

func (e *Encoder) appendSpanOTel(dst []byte, span ptrace.Span, ds DataStream) []byte {
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
// buffer. It is routed like a log record and carries the trace and span ids of its span. Only
// the otel and ecs modes write span event documents (Mode.SeparateSpanEvents); the others
// reject them: dst comes back unchanged and Rejection says why.
func (e *Encoder) AppendSpanEvent(dst []byte, span ptrace.Span, ev ptrace.SpanEvent, ds DataStream) []byte {
	switch e.mode {
	case ModeOTel:
		return e.appendSpanEventOTel(dst, span, ev, ds)
	case ModeECS:
		return e.appendSpanEventECS(dst, span, ev, ds, ecsLogRule)
	}
	return e.reject(dst, RejectionUnsupported)
}

func (e *Encoder) appendSpanEventOTel(dst []byte, span ptrace.Span, ev ptrace.SpanEvent, ds DataStream) []byte {
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

// appendSpanECS writes the ECS document of a span: the converted resource, scope and span
// attributes, host.os.type, the data stream, @timestamp (the start), the ids, span.name,
// parent.id, event.outcome, span.links and span.kind.
func (e *Encoder) appendSpanECS(dst []byte, span ptrace.Span, ds DataStream) []byte {
	d := e.beginFlat(dst)
	e.span = span
	d.layer(layerRecord)
	rule := ecsSpanRule
	if v, ok := span.Attributes().Get("processor.event"); ok && v.Str() == "transaction" {
		rule = ecsTransactionRule
	}
	d.addECS(span.Attributes(), rule)
	d.layer(layerFields)
	e.addECSFields(d, ds, false)
	d.addTime("@timestamp", span.StartTimestamp())
	traceID, spanID, parentID := span.TraceID(), span.SpanID(), span.ParentSpanID()
	d.addID("trace.id", traceID[:])
	d.addID("span.id", spanID[:])
	d.addStr("span.name", span.Name())
	d.addID("parent.id", parentID[:])
	switch span.Status().Code() {
	case ptrace.StatusCodeOk:
		d.addStr("event.outcome", "success")
	case ptrace.StatusCodeError:
		d.addStr("event.outcome", "failure")
	}
	if span.Links().Len() > 0 {
		d.add(entry{key: "span.links", kind: kindECSLinks})
	}
	d.addStr("span.kind", ecsSpanKind(span.Kind()))
	return e.endFlat(d)
}

// spanKinds holds each span kind as ECS (Elastic APM) writes it and as the none and raw modes
// write it.
var spanKinds = [...]struct{ ecs, legacy string }{
	ptrace.SpanKindUnspecified: {"", "SPAN_KIND_UNSPECIFIED"},
	ptrace.SpanKindInternal:    {"INTERNAL", "SPAN_KIND_INTERNAL"},
	ptrace.SpanKindServer:      {"SERVER", "SPAN_KIND_SERVER"},
	ptrace.SpanKindClient:      {"CLIENT", "SPAN_KIND_CLIENT"},
	ptrace.SpanKindProducer:    {"PRODUCER", "SPAN_KIND_PRODUCER"},
	ptrace.SpanKindConsumer:    {"CONSUMER", "SPAN_KIND_CONSUMER"},
}

// ecsSpanKind is the span kind as ECS writes it, or "" for an unspecified or unknown kind.
func ecsSpanKind(k ptrace.SpanKind) string {
	if k < 0 || int(k) >= len(spanKinds) {
		return ""
	}
	return spanKinds[k].ecs
}

// legacySpanKind is the span kind as the none and raw modes write it, e.g. SPAN_KIND_SERVER, or
// "" for an unknown kind.
func legacySpanKind(k ptrace.SpanKind) string {
	if k < 0 || int(k) >= len(spanKinds) {
		return ""
	}
	return spanKinds[k].legacy
}

// writeECSLinks writes the links of the span being written as [{"span":{"id":..},
// "trace":{"id":..}}], a link with neither id as null.
func (e *Encoder) writeECSLinks() {
	e.w.byte('[')
	for i, l := range e.span.Links().All() {
		if i > 0 {
			e.w.byte(',')
		}
		traceID, spanID := l.TraceID(), l.SpanID()
		if traceID.IsEmpty() && spanID.IsEmpty() {
			e.w.raw("null")
			continue
		}
		e.w.byte('{')
		if !spanID.IsEmpty() {
			e.w.raw(`"span":{"id":`)
			e.w.hex(spanID[:])
			e.w.byte('}')
			if !traceID.IsEmpty() {
				e.w.byte(',')
			}
		}
		if !traceID.IsEmpty() {
			e.w.raw(`"trace":{"id":`)
			e.w.hex(traceID[:])
			e.w.byte('}')
		}
		e.w.byte('}')
	}
	e.w.byte(']')
}

// appendSpanEventECS writes a span event as an ECS log document: the converted resource, scope
// and event attributes (the event's by rule), the data stream, the agent, @timestamp (the
// event's time), the span's ids and event.action (the event's name).
func (e *Encoder) appendSpanEventECS(dst []byte, span ptrace.Span, ev ptrace.SpanEvent, ds DataStream, rule func(string) (string, ecsRule)) []byte {
	traceID, spanID := span.TraceID(), span.SpanID()
	d := e.beginECSLogRule(dst, ev.Attributes(), rule, ds, ev.Timestamp(), traceID[:], spanID[:])
	d.addStr("event.action", ev.Name())
	return e.endFlat(d)
}

// appendSpanLegacy writes the flat document of the none and raw modes: @timestamp (the start),
// EndTimestamp, TraceId, SpanId, ParentSpanId, Name, Kind, TraceStatus, TraceStatusDescription,
// Link, Duration (µs), Resource.*, Scope.*, the span's attributes, and its events as
// Events.<name>.time and Events.<name>.<attribute> (without "Events." in raw mode).
func (e *Encoder) appendSpanLegacy(dst []byte, span ptrace.Span, ds DataStream) []byte {
	d := e.beginFlat(dst)
	e.span = span
	d.layer(layerHead)
	start, end := span.StartTimestamp(), span.EndTimestamp()
	d.addTime("@timestamp", start)
	d.addTime("EndTimestamp", end)
	traceID, spanID, parentID := span.TraceID(), span.SpanID(), span.ParentSpanID()
	d.addID("TraceId", traceID[:])
	d.addID("SpanId", spanID[:])
	d.addID("ParentSpanId", parentID[:])
	d.addStr("Name", span.Name())
	d.addStr("Kind", legacySpanKind(span.Kind()))
	d.addInt("TraceStatus", int64(span.Status().Code()))
	d.addStr("TraceStatusDescription", span.Status().Message())
	d.add(entry{key: "Link", kind: kindLinksJSON})
	// As in otel mode, a span that ends before it starts gets a duration of 0.
	var micros int64
	if end >= start {
		micros = int64((end - start) / 1000)
	} else {
		e.repair = RepairNegativeDuration
	}
	d.addInt("Duration", micros)
	e.addLegacyAttributes(d, span.Attributes(), ds)
	d.layer(layerEvents)
	prefix := "Events"
	if e.mode == ModeRaw {
		prefix = ""
	}
	for _, ev := range span.Events().All() {
		name := d.key(prefix, ev.Name())
		d.addTime(d.concat(name, ".time"), ev.Timestamp())
		d.addMap(name, ev.Attributes(), false)
	}
	return e.endFlat(d)
}

// writeLinksJSON writes the links of the span being written as the none and raw modes' Link
// field: a JSON string holding [{"attribute":{..},"spanID":"..","traceID":".."}], the
// attributes nested as they are with their keys sorted (the last of a repeated key wins), an
// empty id as "".
func (e *Encoder) writeLinksJSON() {
	saved := e.w
	e.w = writer{buf: e.links[:0]}
	e.w.byte('[')
	for i, l := range e.span.Links().All() {
		if i > 0 {
			e.w.byte(',')
		}
		e.w.raw(`{"attribute":`)
		e.writeFlatObject(l.Attributes(), 1, true, 0)
		e.w.raw(`,"spanID":`)
		if id := l.SpanID(); !id.IsEmpty() {
			e.w.hex(id[:])
		} else {
			e.w.raw(`""`)
		}
		e.w.raw(`,"traceID":`)
		if id := l.TraceID(); !id.IsEmpty() {
			e.w.hex(id[:])
		} else {
			e.w.raw(`""`)
		}
		e.w.byte('}')
	}
	e.w.byte(']')
	inner, invalid, deep := e.w.buf, e.w.invalidUTF8, e.w.deepValues
	e.links = inner
	e.w = saved
	e.w.invalidUTF8 += invalid
	e.w.deepValues += deep
	e.w.str(arenaString(inner))
}
