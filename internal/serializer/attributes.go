// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
)

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
	// A map of one key repeats none: it takes no key set, so a chain of such maps, however
	// deep, costs no state per level.
	track := top || extra != "" || m.Len() > 1
	if track {
		for len(e.seen) <= depth {
			e.seen = append(e.seen, keySet{})
		}
		e.seen[depth].reset()
	}
	if extra != "" {
		e.seen[depth].add(extra)
	}
	e.w.byte('{')
	first := true
	for k, v := range m.All() {
		if top && controlattr.Is(k) {
			continue
		}
		// A plain key, as most are, is valid UTF-8 and is written as it is: it is scanned once.
		plain := jsonstr.Plain(k)
		if !plain && !utf8.ValidString(k) {
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
		if track && !e.seen[depth].add(k) {
			continue
		}
		if !first {
			e.w.byte(',')
		}
		first = false
		e.writeKey(k, plain)
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

// writeValue writes any pdata value, at the given level (see maxDepth). Bytes are lower-case
// hex; NaN and ±Inf are null; a map or a slice above maxDepth is a JSON string.
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
			e.w.set(append(e.w.buf, jsonstr.HexDigits[c>>4], jsonstr.HexDigits[c&0xf]))
		}
		e.w.byte('"')
	case pcommon.ValueTypeMap:
		if e.flatMaps {
			e.writeMapString(v, depth)
			return
		}
		if depth > maxDepth {
			e.writeDeep(v)
			return
		}
		e.writeObject(v.Map(), depth, false, "")
	case pcommon.ValueTypeSlice:
		if depth > maxDepth {
			e.writeDeep(v)
			return
		}
		e.writeSlice(v.Slice(), depth)
	default:
		e.w.raw("null")
	}
}

// writeSlice writes s, a slice at the given level, as an array of its elements, one level
// below it.
func (e *Encoder) writeSlice(s pcommon.Slice, depth int) {
	e.w.byte('[')
	for i := range s.Len() {
		if i > 0 {
			e.w.byte(',')
		}
		e.writeValue(s.At(i), depth+1)
	}
	e.w.byte(']')
}

// writeMapString writes v, a map at the given level, as the JSON string that flat dimensions
// take: pdata's AsString (sorted keys, the last of a repeated key, bytes as base64) when the
// maps and slices in it nest no deeper than maxDepth, and otherwise writeDeep's string, which
// is written without recursion where AsString's would recurse once per level.
func (e *Encoder) writeMapString(v pcommon.Value, depth int) {
	if pvalue.Deeper(v, maxDepth-depth+1) {
		e.writeDeep(v)
		return
	}
	e.w.str(v.AsString()) // allocates; map-valued dimensions are rare
}
