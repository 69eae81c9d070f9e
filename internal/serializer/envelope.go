// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import "go.opentelemetry.io/collector/pdata/pcommon"

// The envelope of a document is its resource and its scope. Each is worked out once per
// SetResource / SetScope, not once per document: in otel mode encoded as an object that every
// document copies as bytes, in the ecs, none and raw modes flattened into sorted entries that
// every document merges with its own (flat.go).

// SetResource encodes the resource once; its object is copied into every document written until
// the next call. In the ecs, none and raw modes, its entries are flattened, converted and
// sorted once instead, and merged into each document.
func (e *Encoder) SetResource(r pcommon.Resource, schemaURL string) {
	e.resourceAttrs = r.Attributes()
	if e.mode != ModeOTel {
		e.setResourceFlat(r)
		return
	}
	e.resource, e.resourceRepair = e.encodeEnvelope(e.resource[:0], schemaURL, "", "", r.Attributes(), r.DroppedAttributesCount())
	e.resourceDeep = e.envelopeDeep
}

// SetScope encodes the instrumentation scope once; its object is copied into every document
// written until the next call. In the ecs, none and raw modes, its entries are flattened,
// converted and sorted once instead, and merged with the resource's.
func (e *Encoder) SetScope(s pcommon.InstrumentationScope, schemaURL string) {
	if e.mode != ModeOTel {
		e.setScopeFlat(s)
		return
	}
	e.scope, e.scopeRepair = e.encodeEnvelope(e.scope[:0], schemaURL, s.Name(), s.Version(), s.Attributes(), s.DroppedAttributesCount())
	e.scopeDeep = e.envelopeDeep
}

// encodeEnvelope writes the resource or scope object: {schema_url, name, version, attributes,
// dropped_attributes_count}, leaving out empty fields. It reports whether invalid UTF-8 was
// repaired, and sets e.envelopeDeep to whether a map or a slice was written as a string (maxDepth).
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
	e.envelopeDeep = e.w.deepValues > 0
	e.w = saved
	return out, repaired
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

// writeFragment writes an encoded resource or scope object, {} when it is empty.
func (e *Encoder) writeFragment(b []byte) {
	if len(b) == 0 {
		e.w.raw("{}")
		return
	}
	e.w.bytes(b)
}

// setResourceFlat flattens the resource in the mode's layout, once per resource.
func (e *Encoder) setResourceFlat(r pcommon.Resource) {
	e.res.reset()
	e.res.layer(layerResource)
	switch e.mode {
	case ModeECS:
		e.res.addECS(r.Attributes(), ecsResourceRule)
		e.agent = deriveECSAgent(&e.res, r.Attributes())
	case ModeNone, ModeRaw:
		e.res.addMap("Resource", r.Attributes(), true)
	}
	sortEntries(e.res.entries)
	e.resourceRepair = e.res.invalid > 0
	e.resourceDeep = false // the flat modes cut maps when writing each document
	e.sc.reset()
	e.scopeRepair, e.scopeDeep = false, false
	e.env = append(e.env[:0], e.res.entries...)
}

// setScopeFlat flattens the scope in the mode's layout, once per scope, and merges it with the
// resource.
func (e *Encoder) setScopeFlat(s pcommon.InstrumentationScope) {
	e.sc.reset()
	e.sc.layer(layerScope)
	switch e.mode {
	case ModeECS:
		e.sc.addECS(s.Attributes(), ecsScopeRule)
	case ModeNone, ModeRaw:
		e.sc.addMap("Scope", s.Attributes(), true)
		// Written even when empty, and over attributes of these names, as contrib does.
		e.sc.add(entry{key: "Scope.name", kind: kindStr, s: s.Name()})
		e.sc.add(entry{key: "Scope.version", kind: kindStr, s: s.Version()})
	}
	sortEntries(e.sc.entries)
	e.scopeRepair = e.sc.invalid > 0
	e.scopeDeep = false
	e.env = mergeEntries(e.env[:0], e.res.entries, e.sc.entries)
}
