// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// beginFlat starts a document of the ecs, none or raw mode at the end of dst, and returns the
// flatDoc that collects the record's own entries.
func (e *Encoder) beginFlat(dst []byte) *flatDoc {
	e.begin(dst)
	return e.flatDocAt(0)
}

// endFlat merges the record's entries with the resource's and the scope's, normalizes them and
// writes the document: de-dotted in ecs mode, flat in none and raw.
func (e *Encoder) endFlat(d *flatDoc) []byte {
	e.w.invalidUTF8 += d.invalid
	e.merged = d.mergeSorted(e.merged[:0], e.env)
	if e.mode == ModeECS {
		e.merged = d.normalize(e.merged, false, ecsProtected)
		e.writeDedot(e.merged, 0)
	} else {
		e.merged = d.normalize(e.merged, false, nil)
		e.writeFlat(e.merged, 0, false)
	}
	e.span = ptrace.Span{}
	return e.done()
}

// writeFlat writes the normalized entries es as one object with their keys as they are.
func (e *Encoder) writeFlat(es []entry, depth int, nested bool) {
	e.w.byte('{')
	for i := range es {
		if i > 0 {
			e.w.byte(',')
		}
		e.writeKey(es[i].key, es[i].plain)
		e.w.byte(':')
		e.writeEntry(&es[i], depth, nested)
	}
	e.w.byte('}')
}

// writeDedot writes the normalized entries es as nested objects: "a.b" and "a.c" become
// {"a":{"b":..,"c":..}}. Since es is sorted by path segment and no key is both a value and
// an object, each object's keys come together and no name repeats.
func (e *Encoder) writeDedot(es []entry, depth int) {
	e.w.byte('{')
	open := "" // the path of the innermost open object, with its trailing '.'
	first := true
	for i := range es {
		k := es[i].key
		for open != "" && !strings.HasPrefix(k, open) {
			e.w.byte('}')
			open = open[:strings.LastIndexByte(open[:len(open)-1], '.')+1]
			first = false
		}
		for {
			rest := k[len(open):]
			dot := strings.IndexByte(rest, '.')
			if dot < 0 {
				break
			}
			if !first {
				e.w.byte(',')
			}
			e.writeKey(rest[:dot], es[i].plain)
			e.w.raw(":{")
			open = k[:len(open)+dot+1]
			first = true
		}
		if !first {
			e.w.byte(',')
		}
		e.writeKey(k[len(open):], es[i].plain)
		e.w.byte(':')
		e.writeEntry(&es[i], depth, false)
		first = false
	}
	for ; open != ""; open = open[:strings.LastIndexByte(open[:len(open)-1], '.')+1] {
		e.w.byte('}')
	}
	e.w.byte('}')
}

// writeKey writes a key, or a part of one, as a JSON string; plain says it needs no escaping.
func (e *Encoder) writeKey(k string, plain bool) {
	if plain {
		e.w.set(append(append(append(e.w.buf, '"'), k...), '"'))
		return
	}
	e.w.str(k)
}

func (e *Encoder) writeEntry(en *entry, depth int, nested bool) {
	switch en.kind {
	case kindStr:
		e.w.str(en.s)
	case kindInt:
		e.w.int(en.n)
	case kindTime:
		e.w.rfc3339Nano(en.n)
	case kindECSLinks:
		e.writeECSLinks()
	case kindLinksJSON:
		e.writeLinksJSON()
	case kindJSON:
		e.w.raw(en.s)
	default:
		e.writeFlatValue(en.val, depth, nested, int(en.level))
	}
}

// writeFlatValue writes a value of a flattened document, at the given level (see maxDepth). An
// object inside an array is a document of its own, flattened, normalized and de-dotted; with
// nested set it keeps its keys as they are instead, sorted, the last of a repeated key winning,
// and empty values are null. A slice above maxDepth is a JSON string, and so is a map above
// maxDepth unless it is empty.
func (e *Encoder) writeFlatValue(v pcommon.Value, depth int, nested bool, level int) {
	switch v.Type() {
	case pcommon.ValueTypeSlice:
		if level > maxDepth {
			e.writeDeep(v)
			return
		}
		e.w.byte('[')
		for i, el := range v.Slice().All() {
			if i > 0 {
				e.w.byte(',')
			}
			e.writeFlatValue(el, depth, nested, level+1)
		}
		e.w.byte(']')
	case pcommon.ValueTypeMap:
		if level > maxDepth && v.Map().Len() > 0 { // an empty one creates no object
			e.writeDeep(v)
			return
		}
		e.writeFlatObject(v.Map(), depth+1, nested, level)
	default:
		e.writeValue(v, depth) // scalars, and null for an empty value
	}
}

// writeFlatObject writes m, a map at the given level, as an object of its own, at the given
// depth of scratch state.
func (e *Encoder) writeFlatObject(m pcommon.Map, depth int, nested bool, level int) {
	d := e.flatDocAt(depth)
	if nested {
		d.addMapNested(m, level)
	} else {
		d.addMapAt("", m, level, false)
	}
	e.w.invalidUTF8 += d.invalid
	sortEntries(d.entries)
	d.entries = d.normalize(d.entries, nested, nil)
	switch {
	case nested:
		e.writeFlat(d.entries, depth, true)
	case len(d.entries) == 0:
		e.w.raw("null") // an object with nothing to write, as contrib writes it
	default:
		e.writeDedot(d.entries, depth)
	}
}
