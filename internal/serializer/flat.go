// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// The ecs, none and raw mapping modes write a document as a set of dotted keys: nested maps are
// flattened to "a.b.c", the keys are sorted, a repeated key keeps its last value, a scalar that
// collides with an object ("a" and "a.b") is renamed "a.value", and the ecs mode then de-dots
// the keys into nested objects. That is the contrib exporter's document model, kept here
// without building a document of copied values: a flatDoc is a reusable index of entries, each
// a key and a handle to its value (a pdata value, or a string or number of the record), and the
// writer walks the sorted index.
//
// This file holds the index and how entries are added to it; flat_sort.go orders and merges
// the entries, flat_normalize.go turns them into the document's fields, and flat_write.go
// writes them.
//
// Keys that are not a pdata key as it is (a prefixed or nested key, a key with invalid UTF-8, a
// renamed key) are built in the flatDoc's arena, which only grows while a document is built, so
// the strings that view it stay valid until the next reset. Flattening a map extends one path
// buffer by each key on the way down and cuts it back on the way up; only the keys of entries
// are copied into the arena, so a map nested n deep costs O(n) bytes there, not one prefix per
// level. Maps nest as objects down to maxDepth; below, a map is an entry of its own, written
// as a JSON string, as is a slice below maxDepth.

// entryKind says where an entry's value is.
type entryKind uint8

const (
	kindValue     entryKind = iota // val, a pdata value; never a map once flattened
	kindStr                        // s
	kindInt                        // n
	kindTime                       // n, nanoseconds since the epoch, written as RFC 3339
	kindECSLinks                   // the links of the span being written, as ECS objects
	kindLinksJSON                  // the links of the span being written, as a JSON string
	kindJSON                       // s, JSON text written as it is; n indexes its metric (ecs metrics)
	kindDead                       // dropped: a child of a protected ECS field
)

// entry is one key of a flattened document and a handle to its value.
type entry struct {
	key string
	s   string
	val pcommon.Value
	n   int64
	// seq orders the entries of one key by when they were added; the last one wins. Its high
	// bits are the layer the entry came from (resource, scope, record, ...).
	seq     uint32
	kind    entryKind
	renamed bool // renamed to key.value; loses to a key.value of the document
	plain   bool // key is written as it is between quotes: nothing in it needs escaping
	// level is the level of val (see maxDepth), at most maxDepth+1.
	level uint8
}

// layerShift puts the layer of an entry in the high bits of its seq.
const layerShift = 24

// flatDoc is the reusable index of one flattened object.
type flatDoc struct {
	entries []entry
	order   []sortRef // scratch of mergeSorted
	arena   []byte
	path    []byte // the dotted path of the map being flattened (walk)
	seq     uint32
	// invalid counts the bytes of invalid UTF-8 replaced in keys since the last reset.
	invalid int
}

func (d *flatDoc) reset() {
	d.entries = d.entries[:0]
	d.arena = d.arena[:0]
	d.seq = 0
	d.invalid = 0
}

// layer makes the entries added from now on win over those of lower layers.
func (d *flatDoc) layer(l uint32) { d.seq = l << layerShift }

// The layers of a flattened document. Of two entries with the same key, the one of the higher
// layer wins, and within a layer the one added last, as in the contrib exporter, which adds the
// fields in this order.
const (
	layerHead     = iota // none and raw: @timestamp, ids, severity, body, span fields
	layerResource        // resource attributes
	layerScope           // scope attributes (and, in none and raw, the scope's name and version)
	layerRecord          // the record's attributes (and, in none and raw, the data stream)
	layerMetrics         // ecs: the metric values of a metrics document
	layerFields          // ecs: data stream and the fields of the record
	layerEvents          // none and raw: the span's events
)

// arenaString views b as a string without copying. b must not change while the string is in
// use: arenas only grow until they are reset, and every entry that views an arena is dropped
// before that reset.
func arenaString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// key returns prefix.k, or k when prefix is empty, with invalid UTF-8 in k replaced by U+FFFD.
func (d *flatDoc) key(prefix, k string) string {
	valid := utf8.ValidString(k)
	if prefix == "" && valid {
		return k
	}
	start := len(d.arena)
	if prefix != "" {
		d.arena = append(append(d.arena, prefix...), '.')
	}
	if valid {
		d.arena = append(d.arena, k...)
	} else {
		d.arena = d.appendRepaired(d.arena, k)
	}
	return arenaString(d.arena[start:])
}

// concat returns a+b, built in the arena.
func (d *flatDoc) concat(a, b string) string {
	start := len(d.arena)
	d.arena = append(append(d.arena, a...), b...)
	return arenaString(d.arena[start:])
}

// hexString returns id as lower-case hex, built in the arena.
func (d *flatDoc) hexString(id []byte) string {
	start := len(d.arena)
	for _, c := range id {
		d.arena = append(d.arena, jsonstr.HexDigits[c>>4], jsonstr.HexDigits[c&0xf])
	}
	return arenaString(d.arena[start:])
}

// appendRepaired appends s with each byte of invalid UTF-8 replaced by U+FFFD, as the writer
// writes it, so that keys that differ only in invalid bytes are the same key.
func (d *flatDoc) appendRepaired(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\ufffd"...)
			d.invalid++
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

func (d *flatDoc) add(en entry) {
	d.seq++
	en.seq = d.seq
	en.plain = jsonstr.Plain(en.key)
	d.entries = append(d.entries, en)
}

func (d *flatDoc) addStr(key, s string) {
	if s != "" {
		d.add(entry{key: key, kind: kindStr, s: s})
	}
}

func (d *flatDoc) addInt(key string, n int64) { d.add(entry{key: key, kind: kindInt, n: n}) }

func (d *flatDoc) addTime(key string, ts pcommon.Timestamp) {
	d.add(entry{key: key, kind: kindTime, n: int64(ts)}) // signed, as pcommon.Timestamp.AsTime reads it
}

// addDataStream adds data_stream.type, .dataset and .namespace, unless ds is the zero value.
func (d *flatDoc) addDataStream(ds DataStream) {
	if ds.Type != "" {
		d.addStr("data_stream.type", ds.Type)
		d.addStr("data_stream.dataset", ds.Dataset)
		d.addStr("data_stream.namespace", ds.Namespace)
	}
}

func (d *flatDoc) addID(key string, id []byte) {
	for _, c := range id {
		if c != 0 {
			d.addStr(key, d.hexString(id))
			return
		}
	}
}

// addValue adds v, a value at the given level of maps, under key: a map is flattened below key
// down to maxDepth, an empty value is left out.
func (d *flatDoc) addValue(key string, v pcommon.Value, level int) {
	if v.Type() == pcommon.ValueTypeMap && level <= maxDepth {
		d.path = append(d.path[:0], key...)
		d.walk(v.Map(), level, false)
		return
	}
	if isEmptyValue(v) {
		return
	}
	d.add(entry{key: key, kind: kindValue, val: v, level: uint8(min(level, maxDepth+1))})
}

// isEmptyValue reports whether v adds nothing to a flattened document: an empty value, or an
// empty map (which has no keys to flatten).
func isEmptyValue(v pcommon.Value) bool {
	switch v.Type() {
	case pcommon.ValueTypeEmpty:
		return true
	case pcommon.ValueTypeMap:
		return v.Map().Len() == 0
	}
	return false
}

// addMap flattens m, a root map, below prefix. Control attributes are left out of a top-level
// attribute map.
func (d *flatDoc) addMap(prefix string, m pcommon.Map, attributes bool) {
	d.addMapAt(prefix, m, 0, attributes)
}

// addMapAt flattens m, a map at the given level, below prefix.
func (d *flatDoc) addMapAt(prefix string, m pcommon.Map, level int, attributes bool) {
	d.path = append(d.path[:0], prefix...)
	d.walk(m, level, attributes)
}

// walk flattens m, a map at the given level, below d.path, and leaves d.path as it found it.
// An empty path is no prefix: the keys of m are the keys of their entries, and only those
// that need repairing are copied.
func (d *flatDoc) walk(m pcommon.Map, level int, attributes bool) {
	base := len(d.path)
	for k, v := range m.All() {
		if attributes && controlattr.Is(k) {
			continue
		}
		valid := utf8.ValidString(k)
		d.path = d.path[:base]
		if base > 0 {
			d.path = append(d.path, '.')
		}
		if valid {
			d.path = append(d.path, k...)
		} else {
			d.path = d.appendRepaired(d.path, k)
		}
		if v.Type() == pcommon.ValueTypeMap && level < maxDepth {
			d.walk(v.Map(), level+1, false)
			continue
		}
		if isEmptyValue(v) {
			continue
		}
		key := k
		if base > 0 || !valid {
			start := len(d.arena)
			d.arena = append(d.arena, d.path...)
			key = arenaString(d.arena[start:])
		}
		d.add(entry{key: key, kind: kindValue, val: v, level: uint8(level + 1)})
	}
	d.path = d.path[:base]
}

// addMapNested adds the keys of m, a map at the given level, as they are, without flattening
// its maps; for objects written with their keys sorted but not de-dotted.
func (d *flatDoc) addMapNested(m pcommon.Map, level int) {
	for k, v := range m.All() {
		d.add(entry{key: d.key("", k), kind: kindValue, val: v, level: uint8(min(level+1, maxDepth+1))})
	}
}

// flatDocAt returns the scratch flatDoc for objects at the given nesting depth, reset. Depth 0
// is the document; objects inside arrays take the depths below it.
func (e *Encoder) flatDocAt(depth int) *flatDoc {
	for len(e.flat) <= depth {
		e.flat = append(e.flat, new(flatDoc))
	}
	d := e.flat[depth]
	d.reset()
	return d
}
