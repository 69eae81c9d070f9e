// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"math"
	"runtime/debug"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// deepStack is the goroutine stack the tests below allow an encode: a walk that recurses once
// per level of a value needs about 537 bytes a level (a million maps grew a 537 MB stack), so
// tens of megabytes at 100,000 levels, and the runtime aborts
// the test binary when a goroutine's stack would grow past it ("goroutine stack exceeds ...").
const deepStack = 8 << 20

// withStackLimit runs f in a goroutine of its own with the maximum goroutine stack lowered to
// deepStack, and restores it.
func withStackLimit(f func()) {
	old := debug.SetMaxStack(deepStack)
	defer debug.SetMaxStack(old)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// deepShape nests n values below v, the innermost a string.
type deepShape struct {
	name string
	n    int
	nest func(v pcommon.Value, n int)
}

func nestValues(v pcommon.Value, n int, mapAt func(i int) bool) {
	for i := range n {
		if mapAt(i) {
			v = v.SetEmptyMap().PutEmpty("k")
		} else {
			v = v.SetEmptySlice().AppendEmpty()
		}
	}
	v.SetStr("leaf")
}

var deepShapes = []deepShape{
	{"slices 10,010 deep", 10_010, func(v pcommon.Value, n int) { nestValues(v, n, func(int) bool { return false }) }},
	{"slices 100,000 deep", 100_000, func(v pcommon.Value, n int) { nestValues(v, n, func(int) bool { return false }) }},
	{"maps 200,000 deep", 200_000, func(v pcommon.Value, n int) { nestValues(v, n, func(int) bool { return true }) }},
	{"maps and slices by turns, 100,000 deep", 100_000, func(v pcommon.Value, n int) {
		nestValues(v, n, func(i int) bool { return i%2 == 0 })
	}},
}

// checkDeepDocument fails unless doc is JSON that encoding/json accepts (it refuses text nested
// beyond 10,000 levels), Elasticsearch's default depth limit takes it, and it was counted as
// repaired for depth.
func checkDeepDocument(t *testing.T, what string, doc []byte, repair Repair) {
	t.Helper()
	if !json.Valid(doc) {
		t.Errorf("%s: the document is not valid JSON (%d bytes, starting %.200s)", what, len(doc), doc)
		return
	}
	if d := esDepth(decodeDocument(t, doc), 0, true); d > 20 {
		t.Errorf("%s: document has a field at depth %d, beyond 20", what, d)
	}
	if repair != RepairDepthLimit {
		t.Errorf("%s: Repair() = %q, want %q", what, repair, RepairDepthLimit)
	}
}

// TestDeepValuesBounded writes log records whose attribute and body nest slices, maps, and both
// by turns, up to 200,000 levels deep (a walk that recursed once per level would need far
// more than deepStack at 100,000; deeper costs only time), in every mode, and metric documents whose resource and
// data point attributes do, in both metric modes, each on a goroutine whose stack may not grow
// past deepStack. Every document must be valid JSON.
func TestDeepValuesBounded(t *testing.T) {
	for _, shape := range deepShapes {
		rec := plog.NewLogRecord()
		rec.Attributes().PutStr("x", "y")
		shape.nest(rec.Attributes().PutEmpty("a"), shape.n)
		bodyMap := plog.NewLogRecord()
		shape.nest(bodyMap.Body().SetEmptyMap().PutEmpty("b"), shape.n)
		bodySlice := plog.NewLogRecord()
		shape.nest(bodySlice.Body(), shape.n)

		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		shape.nest(rm.Resource().Attributes().PutEmpty("r"), shape.n)
		g := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
		g.SetName("g")
		for i := range 2 { // equal deep attributes: one document
			dp := g.SetEmptyGauge().DataPoints().AppendEmpty()
			if i == 1 {
				dp = g.Gauge().DataPoints().AppendEmpty()
			}
			dp.SetIntValue(int64(i))
			shape.nest(dp.Attributes().PutEmpty("p"), shape.n)
		}

		withStackLimit(func() {
			for _, m := range []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw, ModeBodyMap} {
				e := modeEncoder(m, pcommon.NewResource(), pcommon.NewInstrumentationScope())
				var recs []plog.LogRecord
				switch m {
				case ModeBodyMap:
					recs = []plog.LogRecord{bodyMap}
				case ModeECS: // writes a string body only
					recs = []plog.LogRecord{rec}
				default:
					recs = []plog.LogRecord{rec, bodyMap, bodySlice}
				}
				for i, r := range recs {
					doc := e.AppendLog(nil, r, DataStream{})
					checkDeepDocument(t, shape.name+", "+m.String()+", record "+string(rune('0'+i)), doc, e.Repair())
				}
			}
			for _, m := range []Mode{ModeOTel, ModeECS} {
				e := new(Encoder)
				e.SetMode(m)
				route := testRoute
				if m == ModeECS {
					route = ecsRoute
				}
				var buf []byte
				sink := &repairSink{e: e, buf: &buf}
				encodeMetricsPush(e, &buf, md, route, sink)
				what := shape.name + ", " + m.String() + " metrics"
				if len(sink.docs) != 1 {
					t.Errorf("%s: %d documents, want 1 (the points' attributes are equal)", what, len(sink.docs))
				}
				for i, doc := range sink.docs {
					checkDeepDocument(t, what, doc, sink.repairs[i])
				}
			}
		})
	}
}

// TestEqualValueDeep: grouping's equality tells values apart by what they hold below maxDepth
// too, where the hash no longer looks, in maps and slices; NaN equals NaN there as above.
func TestEqualValueDeep(t *testing.T) {
	build := func(leaf func(v pcommon.Value), extra bool) pcommon.Value {
		root := pcommon.NewValueEmpty()
		v := root
		for i := range 1000 {
			if i%2 == 0 {
				m := v.SetEmptyMap()
				if extra && i == 900 {
					m.PutInt("extra", 1)
				}
				v = m.PutEmpty("k")
			} else {
				v = v.SetEmptySlice().AppendEmpty()
			}
		}
		leaf(v)
		return root
	}
	str := func(s string) func(pcommon.Value) { return func(v pcommon.Value) { v.SetStr(s) } }
	nan := func(v pcommon.Value) { v.SetDouble(math.NaN()) }
	a := build(str("x"), false)
	for _, c := range []struct {
		name string
		b    pcommon.Value
		want bool
	}{
		{"the same leaf", build(str("x"), false), true},
		{"another leaf", build(str("y"), false), false},
		{"a key more deep down", build(str("x"), true), false},
	} {
		if got := equalValue(a, c.b); got != c.want {
			t.Errorf("%s: equalValue = %v, want %v", c.name, got, c.want)
		}
		if c.want && hashValue(a) != hashValue(c.b) {
			t.Errorf("%s: equal values hash apart", c.name)
		}
	}
	if !equalValue(build(nan, false), build(nan, false)) {
		t.Error("NaN deep down: equalValue = false, want true")
	}
}
