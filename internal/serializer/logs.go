// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// AppendLog appends the document of one log record to dst and returns the extended buffer.
// The resource and scope set last are written into it.
func (e *Encoder) AppendLog(dst []byte, rec plog.LogRecord, ds DataStream) []byte {
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
