// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// AppendLog appends the document of one log record, in the encoder's mode, to dst and returns
// the extended buffer. The resource and scope set last are written into it. In bodymap mode, a
// record whose body is not a map is rejected: dst comes back unchanged and Rejection says why.
func (e *Encoder) AppendLog(dst []byte, rec plog.LogRecord, ds DataStream) []byte {
	switch e.mode {
	case ModeECS:
		return e.appendLogECS(dst, rec, ds)
	case ModeNone, ModeRaw:
		return e.appendLogLegacy(dst, rec, ds)
	case ModeBodyMap:
		return e.appendLogBodyMap(dst, rec)
	}
	return e.appendLogOTel(dst, rec, ds)
}

func (e *Encoder) appendLogOTel(dst []byte, rec plog.LogRecord, ds DataStream) []byte {
	e.begin(dst)
	ts := rec.Timestamp()
	if ts == 0 {
		ts = rec.ObservedTimestamp()
	}
	e.w.raw(`{"@timestamp":`)
	e.w.dateNanos(uint64(ts))
	e.w.raw(`,"observed_timestamp":`)
	e.w.dateNanos(uint64(rec.ObservedTimestamp()))
	e.writeDataStream(ds)
	if s := rec.SeverityText(); s != "" {
		e.w.raw(`,"severity_text":`)
		e.w.str(s)
	}
	if n := rec.SeverityNumber(); n != plog.SeverityNumberUnspecified {
		e.w.raw(`,"severity_number":`)
		e.w.int(int64(n))
	}
	e.writeTraceIDs(rec.TraceID(), rec.SpanID())
	attrs := rec.Attributes()
	if attrs.Len() > 0 {
		e.w.raw(`,"attributes":`)
		e.writeAttributes(attrs, "")
	}
	if n := rec.DroppedAttributesCount(); n > 0 {
		e.w.raw(`,"dropped_attributes_count":`)
		e.w.uint(uint64(n))
	}
	eventName := rec.EventName()
	if eventName == "" {
		if v, ok := attrs.Get("event.name"); ok && v.Type() == pcommon.ValueTypeStr {
			eventName = v.Str()
		}
	}
	if eventName != "" {
		e.w.raw(`,"event_name":`)
		e.w.str(eventName)
	}
	e.writeResourceScope()
	e.writeBody(rec.Body())
	return e.finish()
}

// writeBody writes the body of a log record: a scalar as {"text": v}, a map as
// {"structured": {...}}, an array of maps (or an empty array) as {"structured": [...]}, and any
// other array as {"structured": {"value": [...]}}, since Elasticsearch cannot index arrays of
// mixed types. An empty body writes nothing.
func (e *Encoder) writeBody(body pcommon.Value) {
	switch body.Type() {
	case pcommon.ValueTypeEmpty:
		return
	case pcommon.ValueTypeMap:
		e.w.raw(`,"body":{"structured":`)
		e.writeObject(body.Map(), 0, false, "")
		e.w.byte('}')
	case pcommon.ValueTypeSlice:
		s := body.Slice()
		if allMaps(s) {
			e.w.raw(`,"body":{"structured":`)
			e.writeSlice(s, 0)
			e.w.byte('}')
			return
		}
		e.w.raw(`,"body":{"structured":{"value":`)
		e.writeSlice(s, 0)
		e.w.raw(`}}`)
	default:
		e.w.raw(`,"body":{"text":`)
		e.writeValue(body, 0)
		e.w.byte('}')
	}
}

func allMaps(s pcommon.Slice) bool {
	for i := range s.Len() {
		if s.At(i).Type() != pcommon.ValueTypeMap {
			return false
		}
	}
	return true
}

// appendLogECS writes the ECS document of a log record: the converted resource, scope and
// record attributes, the data stream, the agent, @timestamp (falling back to the observed
// time), the ids, the severity and, for a string body only, message. The record's event name,
// when set, is event.action and wins over an event.name attribute.
func (e *Encoder) appendLogECS(dst []byte, rec plog.LogRecord, ds DataStream) []byte {
	ts := rec.Timestamp()
	if ts == 0 {
		ts = rec.ObservedTimestamp()
	}
	traceID, spanID := rec.TraceID(), rec.SpanID()
	d := e.beginECSLog(dst, rec.Attributes(), ds, ts, traceID[:], spanID[:])
	if n := rec.SeverityNumber(); n != plog.SeverityNumberUnspecified {
		d.addInt("event.severity", int64(n))
	}
	d.addStr("log.level", rec.SeverityText())
	d.addStr("event.action", rec.EventName())
	if body := rec.Body(); body.Type() == pcommon.ValueTypeStr {
		d.add(entry{key: "message", kind: kindValue, val: body})
	}
	return e.endFlat(d)
}

// beginECSLog starts an ECS log document, of a log record or of a span event, with the fields
// the two share.
func (e *Encoder) beginECSLog(dst []byte, attrs pcommon.Map, ds DataStream, ts pcommon.Timestamp, traceID, spanID []byte) *flatDoc {
	return e.beginECSLogRule(dst, attrs, ecsLogRule, ds, ts, traceID, spanID)
}

// beginECSLogRule is beginECSLog with the record's attributes converted by rule.
func (e *Encoder) beginECSLogRule(dst []byte, attrs pcommon.Map, rule func(string) (string, ecsRule), ds DataStream, ts pcommon.Timestamp, traceID, spanID []byte) *flatDoc {
	d := e.beginFlat(dst)
	d.layer(layerRecord)
	d.addECS(attrs, rule)
	d.layer(layerFields)
	e.addECSFields(d, ds, true)
	d.addTime("@timestamp", ts)
	d.addID("trace.id", traceID)
	d.addID("span.id", spanID)
	return d
}

// addECSFields adds the data stream, and the fields derived from the resource: agent.name and
// agent.version (log documents only) and host.os.type.
func (e *Encoder) addECSFields(d *flatDoc, ds DataStream, agent bool) {
	d.addDataStream(ds)
	if agent {
		d.addStr("agent.name", e.agent.name)
		d.addStr("agent.version", e.agent.version)
	}
	d.addStr("host.os.type", e.agent.hostOSType)
}

// appendLogLegacy writes the flat document of the none and raw modes: @timestamp (falling back
// to the observed time), TraceId, SpanId, TraceFlags, SeverityText, SeverityNumber, Body (a map
// body flattened below Body.), Resource.*, Scope.* and the record's attributes.
func (e *Encoder) appendLogLegacy(dst []byte, rec plog.LogRecord, ds DataStream) []byte {
	d := e.beginFlat(dst)
	d.layer(layerHead)
	ts := rec.Timestamp()
	if ts == 0 {
		ts = rec.ObservedTimestamp()
	}
	d.addTime("@timestamp", ts)
	traceID, spanID := rec.TraceID(), rec.SpanID()
	d.addID("TraceId", traceID[:])
	d.addID("SpanId", spanID[:])
	d.addInt("TraceFlags", int64(rec.Flags()))
	d.addStr("SeverityText", rec.SeverityText())
	d.addInt("SeverityNumber", int64(rec.SeverityNumber()))
	d.addValue("Body", rec.Body(), 0) // a map body is a root map
	e.addLegacyAttributes(d, rec.Attributes(), ds)
	return e.endFlat(d)
}

// addLegacyAttributes adds a record's attributes and its data stream, below "Attributes." in
// none mode and at the top level in raw mode.
func (e *Encoder) addLegacyAttributes(d *flatDoc, attrs pcommon.Map, ds DataStream) {
	d.layer(layerRecord)
	if e.mode == ModeRaw {
		d.addMap("", attrs, true)
		if ds.Type != "" {
			d.addStr("data_stream.type", ds.Type)
			d.addStr("data_stream.dataset", ds.Dataset)
			d.addStr("data_stream.namespace", ds.Namespace)
		}
		return
	}
	d.addMap("Attributes", attrs, true)
	if ds.Type != "" {
		d.addStr("Attributes.data_stream.type", ds.Type)
		d.addStr("Attributes.data_stream.dataset", ds.Dataset)
		d.addStr("Attributes.data_stream.namespace", ds.Namespace)
	}
}

// appendLogBodyMap writes the map body of a log record as the whole document, nested as it is,
// with the writer's rules for values (bytes as hex, floats with a radix point, NaN and ±Inf as
// null, invalid UTF-8 repaired) and a repeated key written once (the first wins), since
// Elasticsearch rejects a document that repeats one. Any other body is rejected.
func (e *Encoder) appendLogBodyMap(dst []byte, rec plog.LogRecord) []byte {
	body := rec.Body()
	if body.Type() != pcommon.ValueTypeMap {
		return e.reject(dst, RejectionBodyNotAMap)
	}
	e.begin(dst)
	e.writeObject(body.Map(), 0, false, "")
	switch {
	case e.w.deepValues > 0:
		e.repair = RepairDepthLimit
	case e.w.invalidUTF8 > 0:
		e.repair = RepairInvalidUTF8
	}
	out := e.w.buf
	e.w.buf = nil
	return out
}
