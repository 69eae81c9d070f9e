// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Repair names what the encoder changed in a document to make it valid. The exporter counts
// documents by repair; a document with more than one is counted under the first of
// negative_duration, depth_limit and invalid_utf8.
type Repair string

const (
	// RepairNone means the document was written as it came.
	RepairNone Repair = ""
	// RepairInvalidUTF8 means bytes of invalid UTF-8 were replaced by U+FFFD.
	RepairInvalidUTF8 Repair = "invalid_utf8"
	// RepairNegativeDuration means a span ended before it started; its duration was written as 0.
	RepairNegativeDuration Repair = "negative_duration"
	// RepairDepthLimit means maps or slices nested deeper than maxDepth were written as JSON
	// strings.
	RepairDepthLimit Repair = "depth_limit"
)

// DataStream is the resolved data stream of a document. The zero value means the document
// goes to a plain index and carries no data_stream object.
type DataStream struct {
	Type, Dataset, Namespace string
}

// Reasons an Append method wrote nothing, as Rejection reports them.
const (
	// RejectBodyNotAMap: in bodymap mode, a log record whose body is not a map.
	RejectBodyNotAMap = "bodymap_body_not_a_map"
	// RejectUnsupported: the mode does not write this kind of document (spans in bodymap
	// mode; span event documents in none and raw, which write events inside the span).
	RejectUnsupported = "unsupported_by_mode"
)

// Encoder writes the documents of every signal (AppendLog, AppendSpan, AppendSpanEvent,
// AppendMetricsDocument, AppendProfileDocument), one resource and scope at a time. It holds the encoded resource
// and scope of the records being written, and scratch state that is reused from one document to the next, so
// that the steady state does not allocate. An Encoder is not safe for concurrent use.
type Encoder struct {
	w writer

	resource, scope             []byte // encoded "resource" and "scope" objects
	resourceRepair, scopeRepair bool   // invalid UTF-8 seen in the resource or the scope
	resourceDeep, scopeDeep     bool   // otel mode: a map of the resource or the scope cut at maxDepth
	envelopeDeep                bool   // a map of the envelope encoded last was cut at maxDepth
	repair                      Repair // repair of the last document written
	seen                        []keySet

	// writeDeep's scratch: the values still to write, the closing brackets still to write and
	// the keys written in the map being queued.
	deepTodo    []deepItem
	deepClosers []byte
	deepSeen    keySet

	// flatMaps writes map-valued attributes as JSON strings (pdata's AsString form), as metric
	// documents need so that dimensions stay flat.
	flatMaps bool
	metrics  metricsState

	mode      Mode
	rejection string // why the last Append wrote nothing, or ""

	// The ecs, none and raw modes (flat.go): the resource's and the scope's entries in the
	// mode's layout, each sorted once per SetResource / SetScope, and the two merged (env).
	res, sc flatDoc
	env     []entry
	agent   ecsAgent    // fields the ecs mode derives from the resource
	flat    []*flatDoc  // scratch per depth: the document, then objects inside arrays
	merged  []entry     // the document's entries merged with env
	links   []byte      // scratch for the none and raw modes' Link string
	span    ptrace.Span // the span being written, for its links

	// resourceAttrs is the attribute map of the resource set last, which profile documents
	// merge with the profile's and the sample's attributes.
	resourceAttrs pcommon.Map
	prof          profileState // the profile being written (BeginProfile) and its scratch
}

// SetMode selects the layout of the documents written from now on. Call it before SetResource
// and SetScope; the zero value of an Encoder writes ModeOTel.
func (e *Encoder) SetMode(m Mode) { e.mode = m }

// Rejection is the serializer's one report, for every signal, of a record it could not write:
// that record alone is rejected, nothing of it is written, and the rest goes on. Reason is the
// error.type under which the pipeline counts it; Records is how many records that is (1 for a
// log record, a span, a span event, a profile or a data point; the data points of a metric
// that cannot be written at all); Name is the name of the metric, for data points, else "".
// The zero Rejection means nothing was rejected.
//
// Logs, spans, span events and profiles report it per record (Encoder.Rejection, after each
// Append; for a profile, after BeginProfile). Metrics, whose data points are grouped into
// documents, report it per metric (AddMetric) and per data point of each document
// (MetricsDocument.Rejected).
type Rejection struct {
	Reason  string
	Records int
	Name    string
}

// Rejection returns the zero Rejection when the last Append (or BeginProfile) wrote its
// record's documents (readied them), or why it wrote nothing (RejectBodyNotAMap,
// RejectUnsupported, the RejectProfile* of profiles), for one record, in which case it left the
// buffer unchanged.
func (e *Encoder) Rejection() Rejection {
	if e.rejection == "" {
		return Rejection{}
	}
	return Rejection{Reason: e.rejection, Records: 1}
}

// Repair returns what was repaired in the last document written, or RepairNone.
func (e *Encoder) Repair() Repair { return e.repair }

// begin starts a document at the end of dst.
func (e *Encoder) begin(dst []byte) {
	e.rejection = ""
	e.w.buf = dst
	e.w.invalidUTF8 = 0
	e.w.deepValues = 0
	e.repair = RepairNone
}

// finish closes a document and records its repair.
func (e *Encoder) finish() []byte {
	e.w.byte('}')
	return e.done()
}

// done records the repair of the document written and returns the buffer.
func (e *Encoder) done() []byte {
	if e.repair == RepairNone {
		switch {
		case e.w.deepValues > 0 || e.resourceDeep || e.scopeDeep:
			e.repair = RepairDepthLimit
		case e.w.invalidUTF8 > 0 || e.resourceRepair || e.scopeRepair:
			e.repair = RepairInvalidUTF8
		}
	}
	out := e.w.buf
	e.w.buf = nil
	return out
}

// reject records why an Append wrote nothing and returns dst unchanged.
func (e *Encoder) reject(dst []byte, reason string) []byte {
	e.rejection = reason
	e.repair = RepairNone
	return dst
}

// writeTraceIDs writes trace_id and span_id as lower-case hex, each only when it is set.
func (e *Encoder) writeTraceIDs(traceID pcommon.TraceID, spanID pcommon.SpanID) {
	if !traceID.IsEmpty() {
		e.w.raw(`,"trace_id":`)
		e.w.hex(traceID[:])
	}
	if !spanID.IsEmpty() {
		e.w.raw(`,"span_id":`)
		e.w.hex(spanID[:])
	}
}

func (e *Encoder) writeDataStream(ds DataStream) {
	if ds.Type == "" {
		return
	}
	e.w.raw(`,"data_stream":{"type":`)
	e.w.str(ds.Type)
	e.w.raw(`,"dataset":`)
	e.w.str(ds.Dataset)
	e.w.raw(`,"namespace":`)
	e.w.str(ds.Namespace)
	e.w.byte('}')
}
