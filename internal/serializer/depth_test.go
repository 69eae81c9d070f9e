// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The expected documents below are built from the rule stated at maxDepth, not by the code:
// a map at level n (the root map at 0) is an object while n <= 17 and a JSON string beyond.

// jsonString returns s as a JSON string.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chainObject is the JSON of the map at the given level of a chain of maps, each holding only
// k, down to the map at level n, which holds k: "leaf". capped writes the maps beyond 17 as a
// JSON string.
func chainObject(t *testing.T, k string, level, n int, capped bool) string {
	t.Helper()
	if capped && level > 17 {
		return jsonString(t, chainObject(t, k, level, n, false))
	}
	inner := `"leaf"`
	if level < n {
		inner = chainObject(t, k, level+1, n, capped)
	}
	return `{"` + k + `":` + inner + `}`
}

// chainMember is the member "k": <the chain below the root map>, as the otel and ecs modes write
// it for a root map holding a chain of n maps.
func chainMember(t *testing.T, k string, n int) string {
	t.Helper()
	return `"` + k + `":` + chainObject(t, k, 1, n, true)
}

// chainFlat is the member the none and raw modes write for a root map below prefix holding a
// chain of n maps: the dotted path to the leaf, or to the map at level 18 and that map as a
// JSON string.
func chainFlat(t *testing.T, prefix, k string, n int) string {
	t.Helper()
	keys := min(n, 17) + 1
	value := `"leaf"`
	if n > 17 {
		value = jsonString(t, chainObject(t, k, 18, n, false))
	}
	return `"` + prefix + strings.Repeat(k+".", keys-1) + k + `":` + value
}

// checkESDepth fails unless Elasticsearch's default index.mapping.depth.limit of 20 takes doc.
func checkESDepth(t *testing.T, m Mode, doc []byte) {
	t.Helper()
	if d := esDepth(decodeDocument(t, doc), 0, true); d > 20 {
		t.Errorf("%v: document has a field at depth %d, beyond 20: %s", m, d, doc)
	}
}

// TestMapDepthLimitLogs writes a log record whose attributes, map body, resource and scope each
// hold a chain of 17 maps (the limit: all objects) and of 18 (the 18th is a JSON string), in
// every mode.
func TestMapDepthLimitLogs(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		res := pcommon.NewResource()
		nestMaps(res.Attributes(), "r", n)
		scope := pcommon.NewInstrumentationScope()
		nestMaps(scope.Attributes(), "s", n)
		rec := plog.NewLogRecord()
		nestMaps(rec.Attributes(), "a", n)
		nestMaps(rec.Body().SetEmptyMap(), "b", n)
		wantRepair := RepairNone
		if n > maxDepth {
			wantRepair = RepairDepthLimit
		}
		want := map[Mode][]string{
			ModeOTel: {
				`"attributes":{` + chainMember(t, "a", n) + `}`,
				`"resource":{"attributes":{` + chainMember(t, "r", n) + `}}`,
				`"scope":{"attributes":{` + chainMember(t, "s", n) + `}}`,
				`"body":{"structured":{` + chainMember(t, "b", n) + `}}`,
			},
			ModeECS: {chainMember(t, "a", n), chainMember(t, "r", n), chainMember(t, "s", n)},
			ModeNone: {
				chainFlat(t, "Attributes.", "a", n), chainFlat(t, "Body.", "b", n),
				chainFlat(t, "Resource.", "r", n), chainFlat(t, "Scope.", "s", n),
			},
			ModeRaw: {
				chainFlat(t, "", "a", n), chainFlat(t, "Body.", "b", n),
				chainFlat(t, "Resource.", "r", n), chainFlat(t, "Scope.", "s", n),
			},
			ModeBodyMap: {`{` + chainMember(t, "b", n) + `}`},
		}
		for _, m := range []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw, ModeBodyMap} {
			doc := modeEncoder(m, res, scope).AppendLog(nil, rec, DataStream{})
			checkDocument(t, doc)
			for _, w := range want[m] {
				if !strings.Contains(string(doc), w) {
					t.Errorf("%v, %d maps: document\n%s\nlacks\n%s", m, n, doc, w)
				}
			}
			if m == ModeBodyMap && string(doc) != want[m][0] {
				t.Errorf("bodymap, %d maps: document\n%s\nwant\n%s", n, doc, want[m][0])
			}
			checkESDepth(t, m, doc)
			e := modeEncoder(m, res, scope)
			e.AppendLog(nil, rec, DataStream{})
			if got := e.Repair(); got != wantRepair {
				t.Errorf("%v, %d maps: Repair() = %q, want %q", m, n, got, wantRepair)
			}
		}
	}
}

// TestMapDepthLimitSpans is TestMapDepthLimitLogs for a span's attributes, an event's
// attributes and a link's attributes, and for span event documents.
func TestMapDepthLimitSpans(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		span := ptrace.NewSpan()
		nestMaps(span.Attributes(), "a", n)
		ev := span.Events().AppendEmpty()
		ev.SetName("ev")
		nestMaps(ev.Attributes(), "e", n)
		nestMaps(span.Links().AppendEmpty().Attributes(), "l", n)
		wantRepair := RepairNone
		if n > maxDepth {
			wantRepair = RepairDepthLimit
		}
		link := `"Link":` + jsonString(t, `[{"attribute":{`+chainMember(t, "l", n)+`},"spanID":"","traceID":""}]`)
		want := map[Mode][]string{
			ModeOTel: {
				`"attributes":{` + chainMember(t, "a", n) + `}`,
				`"links":[{"attributes":{` + chainMember(t, "l", n) + `}}]`,
			},
			ModeECS:  {chainMember(t, "a", n)},
			ModeNone: {chainFlat(t, "Attributes.", "a", n), chainFlat(t, "Events.ev.", "e", n), link},
			ModeRaw:  {chainFlat(t, "", "a", n), chainFlat(t, "ev.", "e", n), link},
		}
		wantEvent := map[Mode]string{
			ModeOTel: `"attributes":{` + chainMember(t, "e", n) + `,"event.name":"ev"}`,
			ModeECS:  chainMember(t, "e", n),
		}
		for _, m := range []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw} {
			e := modeEncoder(m, pcommon.NewResource(), pcommon.NewInstrumentationScope())
			doc := e.AppendSpan(nil, span, DataStream{})
			checkDocument(t, doc)
			for _, w := range want[m] {
				if !strings.Contains(string(doc), w) {
					t.Errorf("%v, %d maps: span document\n%s\nlacks\n%s", m, n, doc, w)
				}
			}
			checkESDepth(t, m, doc)
			if got := e.Repair(); got != wantRepair {
				t.Errorf("%v, %d maps: span Repair() = %q, want %q", m, n, got, wantRepair)
			}
			if !m.SeparateSpanEvents() {
				continue
			}
			doc = e.AppendSpanEvent(nil, span, ev, DataStream{})
			checkDocument(t, doc)
			if !strings.Contains(string(doc), wantEvent[m]) {
				t.Errorf("%v, %d maps: span event document\n%s\nlacks\n%s", m, n, doc, wantEvent[m])
			}
			checkESDepth(t, m, doc)
			if got := e.Repair(); got != wantRepair {
				t.Errorf("%v, %d maps: span event Repair() = %q, want %q", m, n, got, wantRepair)
			}
		}
	}
}

// TestMapDepthThroughSlices checks that slices take a level too: of 18 maps, each the only
// element of a slice in the map above, the slices sit at the odd levels and the maps at the even
// ones, so the 8 maps at levels 2 to 16 are objects and the 9th, at level 18, is a JSON string
// holding it and the 9 maps below it.
func TestMapDepthThroughSlices(t *testing.T) {
	rec := plog.NewLogRecord()
	m := rec.Attributes()
	for range 18 {
		m = m.PutEmptySlice("a").AppendEmpty().SetEmptyMap()
	}
	m.PutStr("a", "leaf")
	inner := `{"a":"leaf"}`
	for range 9 {
		inner = `{"a":[` + inner + `]}`
	}
	const objects = 8
	start := map[Mode]func(doc map[string]any) any{
		ModeOTel: func(doc map[string]any) any { return doc["attributes"].(map[string]any)["a"] },
		ModeECS:  func(doc map[string]any) any { return doc["a"] },
		ModeNone: func(doc map[string]any) any { return doc["Attributes.a"] },
		ModeRaw:  func(doc map[string]any) any { return doc["a"] },
	}
	for _, mode := range []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw} {
		e := modeEncoder(mode, pcommon.NewResource(), pcommon.NewInstrumentationScope())
		doc := e.AppendLog(nil, rec, DataStream{})
		checkESDepth(t, mode, doc)
		v := start[mode](decodeDocument(t, doc))
		n := 0
		for {
			s, ok := v.([]any)
			if !ok || len(s) != 1 {
				break
			}
			obj, ok := s[0].(map[string]any)
			if !ok {
				v = s[0]
				break
			}
			n++
			v = obj["a"]
		}
		want := jsonString(t, inner)
		if got, _ := json.Marshal(v); n != objects || string(got) != want {
			t.Errorf("%v: %d maps are objects, then %s; want %d, then %s: %s", mode, n, got, objects, want, doc)
		}
		if got := e.Repair(); got != RepairDepthLimit {
			t.Errorf("%v: Repair() = %q, want %q", mode, got, RepairDepthLimit)
		}
	}
}

// TestMapDepthLimitEdges covers an empty map beyond the limit (a string "{}" in otel mode; left
// out in the flat modes, as they leave out every empty map), which repair a document with more
// than one counts, and the key sets given back after a deep map.
func TestMapDepthLimitEdges(t *testing.T) {
	rec := plog.NewLogRecord()
	m := rec.Attributes()
	for range maxDepth {
		m = m.PutEmptyMap("a")
	}
	m.PutEmptyMap("a")
	m.PutStr("x", "y")
	doc := encodeLog(t, rec)
	if want := `{"a":"{}","x":"y"}`; !strings.Contains(string(doc), want) {
		t.Errorf("otel: document %s lacks %s", doc, want)
	}
	for _, mode := range []Mode{ModeECS, ModeNone, ModeRaw} {
		doc := modeEncoder(mode, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
		if strings.Contains(string(doc), `{}`) || !strings.Contains(string(doc), `"y"`) {
			t.Errorf("%v: document %s", mode, doc)
		}
	}

	// Invalid UTF-8 and a deep map: counted as depth_limit; a negative duration wins over both.
	rec.Attributes().PutStr("bad", "\xff")
	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	e.AppendLog(nil, rec, DataStream{})
	if got := e.Repair(); got != RepairDepthLimit {
		t.Errorf("Repair() = %q, want %q", got, RepairDepthLimit)
	}
	span := ptrace.NewSpan()
	nestMaps(span.Attributes(), "a", maxDepth+1)
	span.SetStartTimestamp(2)
	span.SetEndTimestamp(1)
	e.AppendSpan(nil, span, DataStream{})
	if got := e.Repair(); got != RepairNegativeDuration {
		t.Errorf("Repair() = %q, want %q", got, RepairNegativeDuration)
	}

	// Maps of two keys, 200 deep, take a key set per level written as objects, and none below:
	// the maps beyond maxDepth are queued by one key set.
	rec = plog.NewLogRecord()
	m = rec.Attributes()
	for range 200 {
		m.PutInt("i", 1)
		m = m.PutEmptyMap("a")
	}
	e.AppendLog(nil, rec, DataStream{})
	if len(e.seen) > maxDepth+1 {
		t.Errorf("the encoder keeps %d key sets, want at most %d", len(e.seen), maxDepth+1)
	}
}

// TestMapDepthLimitMetrics: an ecs metric document whose resource held a map beyond the limit is
// counted as repaired (depth_limit), one at the limit is not. otel metric documents write every
// map-valued attribute as a JSON string already (dimensions stay flat; one reaching beyond the
// limit is writeDeep's string rather than AsString's), and the repair of their resource and
// scope is not counted in the documents; ecs ones do not write the scope. So a deep map of the
// resource or the scope repairs nothing there.
func TestMapDepthLimitMetrics(t *testing.T) {
	for _, mode := range []Mode{ModeOTel, ModeECS} {
		for _, where := range []string{"resource", "scope"} {
			for _, n := range []int{maxDepth, maxDepth + 1} {
				md := pmetric.NewMetrics()
				rm := md.ResourceMetrics().AppendEmpty()
				sm := rm.ScopeMetrics().AppendEmpty()
				if where == "resource" {
					nestMaps(rm.Resource().Attributes(), "r", n)
				} else {
					nestMaps(sm.Scope().Attributes(), "s", n)
				}
				g := sm.Metrics().AppendEmpty()
				g.SetName("g")
				g.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)

				e := new(Encoder)
				e.SetMode(mode)
				route := testRoute
				if mode == ModeECS {
					route = ecsRoute
				}
				sink := &repairSink{e: e}
				var buf []byte
				encodeMetricsPush(e, &buf, md, route, sink)
				want := RepairNone
				if n > maxDepth && mode == ModeECS && where == "resource" {
					want = RepairDepthLimit
				}
				if len(sink.repairs) != 1 || sink.repairs[0] != want {
					t.Errorf("%v, %s with %d maps: repairs %q, want [%q]", mode, where, n, sink.repairs, want)
				}
			}
		}
	}
}
