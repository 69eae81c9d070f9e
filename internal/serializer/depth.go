// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// maxDepth is how deep maps and slices nest as JSON objects and arrays, in every mode. The root
// map (an attribute map, or a map or slice body) is at level 0, and a value held by a map or a
// slice at level n is at level n+1: a map-valued attribute is at level 1, a map inside it at
// level 2, a slice-valued attribute at level 1 and a map in that slice at level 2. A map or a
// slice at a level above maxDepth is not written as an object or an array but as a JSON string
// holding it (writeDeep); so is everything below it, inside that string.
//
// Elasticsearch refuses an object field that is deeper than index.mapping.depth.limit (20 by
// default), counted from the document root: a field of the root is at depth 1, a field inside
// one object at depth 2; arrays take no depth there. The deepest place a mode puts a root map is
// two objects below the document root (resource.attributes, scope.attributes, body.structured
// and links[].attributes in otel mode; Events.<name> in none mode), so a map at level 17 is an
// object at depth 20 at most, within the limit in every mode. Dots inside keys are not counted:
// Elasticsearch expands them into objects too (outside otel's passthrough attributes, which do
// not create objects), so dotted keys can still take a document past the limit. Counting slices
// too bounds the nesting of the JSON text itself, which parsers limit (Go's encoding/json refuses
// text nested beyond 10,000 levels, and Elasticsearch's parser has a limit of its own), and the
// depth of every recursive walk of a value.
//
// The cap also bounds the work of the flat modes, which build each key as its dotted path.
const maxDepth = 17

// deepItem is a value writeDeep has yet to write: a member of an object or an element of an
// array, inside the open containers it was queued in.
type deepItem struct {
	key    string
	val    pcommon.Value
	open   int  // the number of containers open around it
	member bool // a member of an object: written as key:value
	comma  bool // not the first of its container
}

// deepKeep is how many items of scratch writeDeep keeps between values, so that only a value of
// very many members gives its scratch back.
const deepKeep = 1024

// writeDeep writes v, a map or a slice at a level above maxDepth, as a JSON string of the object
// or the array that the otel mode writes for it: keys in their order, a repeated key once (the
// first wins), bytes as hex, NaN and ±Inf as null, invalid UTF-8 repaired; the maps and slices
// inside it nest in that text at any depth. It walks v without recursion, so the goroutine
// stack stays the same however deep v nests, and counts v in the writer's deepValues.
func (e *Encoder) writeDeep(v pcommon.Value) {
	start := len(e.w.buf)
	e.writeNested(v)
	end := len(e.w.buf)
	// The text is escaped into a string after itself, then moved down over it. The string
	// views the text's bytes, which stay where they are (or in the old array) meanwhile.
	e.w.buf, _ = jsonstr.Append(e.w.buf, arenaString(e.w.buf[start:end]))
	e.w.buf = e.w.buf[:start+copy(e.w.buf[start:], e.w.buf[end:])]
	e.w.deepValues++
}

// writeNested writes v as JSON, maps as objects and slices as arrays at any depth, with a queue
// of the values still to write and a stack of the closing brackets still to write in place of
// the goroutine stack.
func (e *Encoder) writeNested(v pcommon.Value) {
	todo := e.deepTodo[:0]
	todo = append(todo, deepItem{val: v})
	closers := e.deepClosers[:0]
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for len(closers) > it.open {
			e.w.byte(closers[len(closers)-1])
			closers = closers[:len(closers)-1]
		}
		if it.comma {
			e.w.byte(',')
		}
		if it.member {
			e.w.str(it.key)
			e.w.byte(':')
		}
		base := len(todo)
		switch it.val.Type() {
		case pcommon.ValueTypeMap:
			m := it.val.Map()
			e.w.byte('{')
			closers = append(closers, '}')
			// A map of one key repeats none, as in writeObject.
			track := m.Len() > 1
			if track {
				e.deepSeen.reset()
			}
			for k, el := range m.All() {
				if !utf8.ValidString(k) {
					k = repairUTF8(k)
					e.w.invalidUTF8++
				}
				if track && !e.deepSeen.add(k) {
					continue
				}
				todo = append(todo, deepItem{key: k, val: el, open: len(closers), member: true, comma: len(todo) > base})
			}
		case pcommon.ValueTypeSlice:
			e.w.byte('[')
			closers = append(closers, ']')
			for _, el := range it.val.Slice().All() {
				todo = append(todo, deepItem{val: el, open: len(closers), comma: len(todo) > base})
			}
		default:
			e.writeValue(it.val, 0) // a scalar: writes nothing nested
		}
		slices.Reverse(todo[base:]) // the first member or element is written first
	}
	for _, c := range slices.Backward(closers) {
		e.w.byte(c)
	}
	// The queue views the pdata values it held: they are let go.
	clear(todo[:cap(todo)])
	if cap(todo) > deepKeep {
		todo = nil
	}
	e.deepTodo, e.deepClosers = todo[:0], closers[:0]
}
