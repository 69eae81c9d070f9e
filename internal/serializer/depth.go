// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// maxMapDepth is how deep maps nest as objects, in every mode: a map that holds a value sits at
// that value's level plus one. The root map (an attribute map, or a map body) is at level 0, a
// map-valued attribute at level 1, a map inside it at level 2, and so on. A slice takes no level
// of its own: the maps in it sit at the level the slice sits at. A map at a level above
// maxMapDepth is not written as an object but as a JSON string holding it (writeDeep); so are
// all the maps below it, inside that string.
//
// Elasticsearch refuses an object field that is deeper than index.mapping.depth.limit (20 by
// default), counted from the document root: a field of the root is at depth 1, a field inside
// one object at depth 2. The deepest place a mode puts a root map is two objects below the
// document root (resource.attributes, scope.attributes, body.structured and links[].attributes
// in otel mode; Events.<name> in none mode), so a map at level 17 is an object at depth 20,
// within the limit in every mode. Dots inside keys are not counted: Elasticsearch expands them
// into objects too (outside otel's passthrough attributes, which do not create objects), so
// dotted keys can still take a document past the limit.
//
// The cap also bounds the work of the flat modes, which build each key as its dotted path.
const maxMapDepth = 17

// seenKeep is how many levels of e.seen are kept after a deep map was written: the levels a
// document uses in the steady state, with room to spare, so that only a map nested far beyond
// maxMapDepth gives its scratch back.
const seenKeep = 64

// writeDeep writes m, a map at the given level above maxMapDepth, as a JSON string of the object
// that the otel mode writes for it: its keys in their order, a repeated key once (the first
// wins), bytes as hex, NaN and ±Inf as null, invalid UTF-8 repaired; the maps inside it nest in
// that object at any depth. It counts the map in the writer's deepMaps.
func (e *Encoder) writeDeep(m pcommon.Map, level int) {
	start := len(e.w.buf)
	e.inDeep = true
	e.writeObject(m, level, false, "")
	e.inDeep = false
	end := len(e.w.buf)
	// The object is escaped into a string after itself, then moved down over it. The string
	// views the object's bytes, which stay where they are (or in the old array) meanwhile.
	e.w.buf, _ = appendString(e.w.buf, arenaString(e.w.buf[start:end]))
	e.w.buf = e.w.buf[:start+copy(e.w.buf[start:], e.w.buf[end:])]
	e.w.deepMaps++
	if len(e.seen) > seenKeep {
		e.seen = slices.Clone(e.seen[:seenKeep])
	}
}
