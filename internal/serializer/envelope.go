// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// Repair names what the encoder changed in a document to make it valid. The exporter counts
// documents by repair.
type Repair string

const (
	// RepairNone means the document was written as it came.
	RepairNone Repair = ""
	// RepairInvalidUTF8 means bytes of invalid UTF-8 were replaced by U+FFFD.
	RepairInvalidUTF8 Repair = "invalid_utf8"
	// RepairNegativeDuration means a span ended before it started; its duration was written as 0.
	RepairNegativeDuration Repair = "negative_duration"
)

// DataStream is the resolved data stream of a document. The zero value means the document
// goes to a plain index and carries no data_stream object.
type DataStream struct {
	Type, Dataset, Namespace string
}

// Mode is a mapping mode: the layout of the documents an Encoder writes. Every mode is written
// by the same writer; a mode differs only in the fields it emits.
type Mode uint8

const (
	// ModeOTel writes the documents of Elasticsearch's OTel-native data streams. The zero Mode.
	ModeOTel Mode = iota
	// ModeECS writes Elastic Common Schema fields, de-dotted into nested objects.
	ModeECS
	// ModeNone writes the legacy flat layout, record attributes below "Attributes.".
	ModeNone
	// ModeRaw writes the legacy flat layout, record attributes at the top level.
	ModeRaw
	// ModeBodyMap writes the map body of a log record as the whole document.
	ModeBodyMap
)

var modeNames = [...]string{ModeOTel: "otel", ModeECS: "ecs", ModeNone: "none", ModeRaw: "raw", ModeBodyMap: "bodymap"}

// ParseMode returns the mode of a lower-case name: otel, ecs, none (or its alias no), raw or
// bodymap.
func ParseMode(s string) (Mode, bool) {
	if s == "no" {
		return ModeNone, true
	}
	for m, name := range modeNames {
		if s == name {
			return Mode(m), true
		}
	}
	return ModeOTel, false
}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// SeparateSpanEvents reports whether span events are documents of their own (AppendSpanEvent),
// as in otel and ecs; none and raw write them inside the span's document.
func (m Mode) SeparateSpanEvents() bool { return m == ModeOTel || m == ModeECS }

// Supports reports whether the mode writes the signal "logs", "traces" or "metrics".
func (m Mode) Supports(signal string) bool {
	switch m {
	case ModeOTel, ModeECS:
		return signal == "logs" || signal == "traces" || signal == "metrics"
	case ModeNone, ModeRaw:
		return signal == "logs" || signal == "traces"
	case ModeBodyMap:
		return signal == "logs"
	}
	return false
}

// Reasons an Append method wrote nothing, as Rejection reports them.
const (
	// RejectionBodyNotAMap: in bodymap mode, a log record whose body is not a map.
	RejectionBodyNotAMap = "bodymap_body_not_a_map"
	// RejectionUnsupported: the mode does not write this kind of document (spans in bodymap
	// mode; span event documents in none and raw, which write events inside the span).
	RejectionUnsupported = "unsupported_by_mode"
)

// Encoder writes documents of one signal. It holds the encoded resource and scope of the
// records being written, and scratch state that is reused from one document to the next, so
// that the steady state does not allocate. An Encoder is not safe for concurrent use.
type Encoder struct {
	w writer

	resource, scope             []byte // encoded "resource" and "scope" objects
	resourceRepair, scopeRepair bool   // invalid UTF-8 seen in the resource or the scope
	repair                      Repair // repair of the last document written
	seen                        []keySet

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
}

// SetMode selects the layout of the documents written from now on. Call it before SetResource
// and SetScope; the zero value of an Encoder writes ModeOTel.
func (e *Encoder) SetMode(m Mode) { e.mode = m }

// Rejection returns "" when the last Append wrote a document, or the reason it wrote nothing
// (RejectionBodyNotAMap, RejectionUnsupported), in which case it returned dst unchanged.
func (e *Encoder) Rejection() string { return e.rejection }

// Repair returns what was repaired in the last document written, or RepairNone.
func (e *Encoder) Repair() Repair { return e.repair }

// SetResource encodes the resource once; its object is copied into every document written until
// the next call. In the ecs, none and raw modes, its entries are flattened, converted and
// sorted once instead, and merged into each document.
func (e *Encoder) SetResource(r pcommon.Resource, schemaURL string) {
	if e.mode != ModeOTel {
		e.setResourceFlat(r)
		return
	}
	e.resource, e.resourceRepair = e.encodeEnvelope(e.resource[:0], schemaURL, "", "", r.Attributes(), r.DroppedAttributesCount())
}

// SetScope encodes the instrumentation scope once; its object is copied into every document
// written until the next call.
func (e *Encoder) SetScope(s pcommon.InstrumentationScope, schemaURL string) {
	if e.mode != ModeOTel {
		e.setScopeFlat(s)
		return
	}
	e.scope, e.scopeRepair = e.encodeEnvelope(e.scope[:0], schemaURL, s.Name(), s.Version(), s.Attributes(), s.DroppedAttributesCount())
}

// encodeEnvelope writes the resource or scope object: {schema_url, name, version, attributes,
// dropped_attributes_count}, leaving out empty fields.
func (e *Encoder) encodeEnvelope(dst []byte, schemaURL, name, version string, attrs pcommon.Map, dropped uint32) ([]byte, bool) {
	saved := e.w
	e.w = writer{buf: dst}
	e.w.byte('{')
	sep := ""
	if schemaURL != "" {
		e.w.raw(`"schema_url":`)
		e.w.str(schemaURL)
		sep = ","
	}
	if name != "" {
		e.w.raw(sep + `"name":`)
		e.w.str(name)
		sep = ","
	}
	if version != "" {
		e.w.raw(sep + `"version":`)
		e.w.str(version)
		sep = ","
	}
	if attrs.Len() > 0 {
		e.w.raw(sep + `"attributes":`)
		e.writeAttributes(attrs, "")
		sep = ","
	}
	if dropped > 0 {
		e.w.raw(sep + `"dropped_attributes_count":`)
		e.w.uint(uint64(dropped))
	}
	e.w.byte('}')
	out, repaired := e.w.buf, e.w.invalidUTF8 > 0
	e.w = saved
	return out, repaired
}

// begin starts a document at the end of dst.
func (e *Encoder) begin(dst []byte) {
	e.rejection = ""
	e.w.buf = dst
	e.w.invalidUTF8 = 0
	e.repair = RepairNone
}

// end finishes a document with the resource and scope objects and returns the buffer.
func (e *Encoder) end() []byte {
	e.writeResourceScope()
	return e.finish()
}

// writeResourceScope writes the resource and scope objects set last, {} when none was set.
func (e *Encoder) writeResourceScope() {
	e.w.raw(`,"resource":`)
	e.writeFragment(e.resource)
	e.w.raw(`,"scope":`)
	e.writeFragment(e.scope)
}

func (e *Encoder) writeFragment(b []byte) {
	if len(b) == 0 {
		e.w.raw("{}")
		return
	}
	e.w.bytes(b)
}

// finish closes a document and records its repair.
func (e *Encoder) finish() []byte {
	e.w.byte('}')
	return e.done()
}

// done records the repair of the document written and returns the buffer.
func (e *Encoder) done() []byte {
	if e.repair == RepairNone && (e.w.invalidUTF8 > 0 || e.resourceRepair || e.scopeRepair) {
		e.repair = RepairInvalidUTF8
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

// writeAttributes writes a top-level attribute map: control attributes are left out, a
// repeated key is written once (the first wins), and a pair of double <prefix>geo.location.lat
// and <prefix>geo.location.lon becomes "<prefix>geo.location": [lon, lat]. extra, when not
// empty, is a key that a caller writes after the map itself; the map's own value for it is
// left out.
func (e *Encoder) writeAttributes(m pcommon.Map, extra string) {
	e.writeObject(m, 0, true, extra)
}

const (
	geoSuffix    = "geo.location"
	geoLatSuffix = geoSuffix + ".lat"
	geoLonSuffix = geoSuffix + ".lon"
)

// writeObject writes m as a JSON object without its closing brace when top is true and extra is
// set, so the caller can append more members; otherwise with it.
func (e *Encoder) writeObject(m pcommon.Map, depth int, top bool, extra string) {
	for len(e.seen) <= depth {
		e.seen = append(e.seen, keySet{})
	}
	e.seen[depth].reset()
	if extra != "" {
		e.seen[depth].add(extra)
	}
	e.w.byte('{')
	first := true
	for k, v := range m.All() {
		if top && controlattr.Is(k) {
			continue
		}
		if !utf8.ValidString(k) {
			// Keys that differ only in invalid bytes are the same key once repaired.
			k = repairUTF8(k)
			e.w.invalidUTF8++
		}
		if top && v.Type() == pcommon.ValueTypeDouble && isGeoKey(k) {
			if e.writeGeo(m, k, depth, first) {
				first = false
				continue
			}
		}
		if !e.seen[depth].add(k) {
			continue
		}
		if !first {
			e.w.byte(',')
		}
		first = false
		e.w.str(k)
		e.w.byte(':')
		e.writeValue(v, depth+1)
	}
	if extra != "" {
		if !first {
			e.w.byte(',')
		}
		e.w.str(extra)
		e.w.byte(':')
		return
	}
	e.w.byte('}')
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// isGeoKey reports whether k is geo.location.lat or .lon, alone or after a dotted prefix.
func isGeoKey(k string) bool {
	for _, suffix := range [...]string{geoLatSuffix, geoLonSuffix} {
		if k == suffix || (strings.HasSuffix(k, suffix) && k[len(k)-len(suffix)-1] == '.') {
			return true
		}
	}
	return false
}

// writeGeo writes "<prefix>geo.location": [lon, lat] for the key k ending in .lat or .lon when
// its partner is also a double in m, and reports whether the key is dealt with (written now,
// or already written with its partner). The first lat and the first lon of m are the pair.
// k, and the keys it is compared with, are in their repaired form.
func (e *Encoder) writeGeo(m pcommon.Map, k string, depth int, first bool) bool {
	base := k[:len(k)-len("lat")] // "<prefix>geo.location."
	var lat, lon pcommon.Value
	var latKey, lonKey string
	for key, v := range m.All() {
		if !utf8.ValidString(key) {
			key = repairUTF8(key)
		}
		if len(key) != len(k) || !strings.HasPrefix(key, base) {
			continue
		}
		switch key[len(base):] {
		case "lat":
			if latKey == "" {
				latKey, lat = key, v
			}
		case "lon":
			if lonKey == "" {
				lonKey, lon = key, v
			}
		}
	}
	if latKey == "" || lonKey == "" || lat.Type() != pcommon.ValueTypeDouble || lon.Type() != pcommon.ValueTypeDouble ||
		!finite(lat.Double()) || !finite(lon.Double()) {
		return false // not a point a geo_point field accepts; written as plain attributes
	}
	prefix := base[:len(base)-1]
	if !e.seen[depth].add(prefix) {
		return true // written with its partner, or the key is taken
	}
	// The pair is consumed: later keys of the same names are duplicates.
	e.seen[depth].add(latKey)
	e.seen[depth].add(lonKey)
	if !first {
		e.w.byte(',')
	}
	e.w.str(prefix)
	e.w.raw(":[")
	e.w.float(lon.Double())
	e.w.byte(',')
	e.w.float(lat.Double())
	e.w.byte(']')
	return true
}

// writeValue writes any pdata value. Bytes are lower-case hex; NaN and ±Inf are null.
func (e *Encoder) writeValue(v pcommon.Value, depth int) {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		e.w.str(v.Str())
	case pcommon.ValueTypeInt:
		e.w.int(v.Int())
	case pcommon.ValueTypeDouble:
		e.w.float(v.Double())
	case pcommon.ValueTypeBool:
		e.w.bool(v.Bool())
	case pcommon.ValueTypeBytes:
		b := v.Bytes()
		e.w.byte('"')
		for _, c := range b.All() {
			e.w.buf = append(e.w.buf, hexDigits[c>>4], hexDigits[c&0xf])
		}
		e.w.byte('"')
	case pcommon.ValueTypeMap:
		if e.flatMaps {
			e.w.str(v.AsString()) // allocates; map-valued dimensions are rare
			return
		}
		e.writeObject(v.Map(), depth, false, "")
	case pcommon.ValueTypeSlice:
		e.writeSlice(v.Slice(), depth)
	default:
		e.w.raw("null")
	}
}

func (e *Encoder) writeSlice(s pcommon.Slice, depth int) {
	e.w.byte('[')
	for i := range s.Len() {
		if i > 0 {
			e.w.byte(',')
		}
		e.writeValue(s.At(i), depth)
	}
	e.w.byte(']')
}

// keySet remembers the keys written in one object. Small objects are checked by a linear scan;
// from linearMax keys on, an index map is used. Both are reused between objects.
type keySet struct {
	keys  []string
	index map[string]struct{}
}

const linearMax = 16

func (s *keySet) reset() {
	s.keys = s.keys[:0]
	if len(s.index) > 0 {
		clear(s.index)
	}
}

// remove forgets k, the last key added.
func (s *keySet) remove(k string) {
	if n := len(s.keys); n > 0 && s.keys[n-1] == k {
		s.keys = s.keys[:n-1]
	}
	delete(s.index, k)
}

// add records k and reports whether it was new.
func (s *keySet) add(k string) bool {
	if len(s.keys) < linearMax {
		if slices.Contains(s.keys, k) {
			return false
		}
		s.keys = append(s.keys, k)
		return true
	}
	if s.index == nil {
		s.index = make(map[string]struct{}, 2*linearMax)
	}
	if len(s.index) == 0 {
		for _, seen := range s.keys {
			s.index[seen] = struct{}{}
		}
	}
	if _, ok := s.index[k]; ok {
		return false
	}
	s.index[k] = struct{}{}
	s.keys = append(s.keys, k)
	return true
}

// repairUTF8 returns s with each byte of invalid UTF-8 replaced by U+FFFD, as the writer
// writes it. It allocates, but only for strings that are not valid UTF-8.
func repairUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\ufffd")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
