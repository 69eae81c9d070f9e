// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// FuzzAppendFloat checks every float64 bit pattern: valid JSON, a float form (radix point or
// exponent), an exact round trip for finite values, null for NaN and ±Inf, and the same bytes
// as strconv's formatting (appendFloatStrconv). Random bits seldom make the short decimals the
// fast path serves, so each input also checks one: an integer of up to 15 digits from the low
// bits, divided by a power of ten from the high bits.
func FuzzAppendFloat(f *testing.F) {
	for _, tt := range floatTests {
		f.Add(math.Float64bits(tt.in))
	}
	for _, x := range []float64{0.0075, 0.1 + 0.2, 1.5e-6, 123.456, 5e-7, 0x1p49, 0x1p49 - 0.5, 4503599627370495.5} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, u uint64) {
		checkAppendFloat(t, math.Float64frombits(u))
		short := float64(int64(u&(1<<50-1))%1e15) / exactPow10[(u>>50)%uint64(len(exactPow10))]
		if u>>63 != 0 {
			short = -short
		}
		checkAppendFloat(t, short)
	})
}

func checkAppendFloat(t *testing.T, x float64) {
	t.Helper()
	u := math.Float64bits(x)
	got := appendFloat(nil, x)
	if want := appendFloatStrconv(nil, x); !bytes.Equal(got, want) {
		t.Fatalf("appendFloat(%v) = %s, strconv's form is %s", x, got, want)
	}
	if !json.Valid(got) {
		t.Fatalf("appendFloat(%v) = %s, not valid JSON", x, got)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if string(got) != "null" {
			t.Fatalf("appendFloat(%v) = %s, want null", x, got)
		}
		return
	}
	if !bytes.ContainsAny(got, ".e") {
		t.Fatalf("appendFloat(%v) = %s, want a radix point or an exponent", x, got)
	}
	back, err := strconv.ParseFloat(string(got), 64)
	if err != nil || math.Float64bits(back) != u {
		t.Fatalf("appendFloat(%v) = %s, parses back to %v (%v), want bits %#x", x, got, back, err, u)
	}
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) != bytes.ContainsRune(got, 'e') {
		t.Fatalf("appendFloat(%v) = %s, exponent form only outside [1e-6, 1e21)", x, got)
	}
}

// fuzzLogs returns seeds for FuzzEncodeLogs.
func fuzzLogs() []plog.Logs {
	var seeds []plog.Logs

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	rl.Resource().Attributes().PutStr("service.name", "svc")
	rl.Resource().Attributes().PutStr("host.name", "h\xff")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("lib")
	sl.Scope().SetVersion("1.0")
	r := sl.LogRecords().AppendEmpty()
	r.SetTimestamp(1_700_000_000_123_000_456)
	r.SetSeverityText("INFO")
	r.SetSeverityNumber(plog.SeverityNumberInfo)
	r.SetTraceID(testTraceID)
	r.SetSpanID(testSpanID)
	r.Body().SetStr("hello \"world\"\n\x80")
	r.Attributes().PutDouble("nan", math.NaN())
	r.Attributes().PutDouble("inf", math.Inf(1))
	r.Attributes().PutEmptyBytes("bytes").FromRaw([]byte{0, 1, 0xff})
	r.Attributes().PutEmptyMap("m").PutEmptyMap("n").PutStr("k\xc0", "v\xed\xa0\x80")
	r.Attributes().PutDouble("geo.location.lat", 1)
	r.Attributes().PutDouble("geo.location.lon", 2)
	r.Attributes().PutStr("event.name", "e")
	r.Attributes().PutStr("data_stream.dataset", "x")
	sl.LogRecords().AppendEmpty() // an empty record
	r = sl.LogRecords().AppendEmpty()
	r.SetObservedTimestamp(1)
	s := r.Body().SetEmptySlice()
	s.AppendEmpty().SetEmptyMap().PutInt("a", 1)
	s.AppendEmpty().SetDouble(math.Inf(-1))
	s.AppendEmpty()
	r = sl.LogRecords().AppendEmpty()
	r.SetEventName("ev")
	r.Body().SetEmptyMap().PutEmptySlice("empty")
	r.Attributes().PutStr("", "")
	seeds = append(seeds, ld)

	ld = plog.NewLogs()
	rl = ld.ResourceLogs().AppendEmpty()
	sl = rl.ScopeLogs().AppendEmpty()
	r = sl.LogRecords().AppendEmpty()
	m := r.Body().SetEmptyMap()
	for range 25 { // pdata's proto decoder stops at a recursion depth of 100
		m = m.PutEmptyMap("n")
	}
	r = sl.LogRecords().AppendEmpty()
	r.Body().SetEmptyBytes()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty()
	seeds = append(seeds, ld, plog.NewLogs())
	return seeds
}

func FuzzEncodeLogs(f *testing.F) {
	for _, ld := range fuzzLogs() {
		b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in)
		if err != nil {
			t.Skip()
		}
		var e Encoder
		var buf []byte
		n := 0
		for _, rl := range ld.ResourceLogs().All() {
			e.SetResource(rl.Resource(), rl.SchemaUrl())
			for _, sl := range rl.ScopeLogs().All() {
				e.SetScope(sl.Scope(), sl.SchemaUrl())
				for _, rec := range sl.LogRecords().All() {
					var ds DataStream
					if n%2 == 0 {
						ds = logsStream
					}
					n++
					start := len(buf)
					buf = e.AppendLog(buf, rec, ds)
					checkFuzzDocument(t, buf[start:])
					checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit)
					buf = append(buf, '\n')
				}
			}
		}
	})
}

// fuzzTraces returns seeds for FuzzEncodeSpans.
func fuzzTraces() []ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc\xfe")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.SetSchemaUrl("s")
	ss.Scope().SetName("lib")
	sp := ss.Spans().AppendEmpty()
	sp.SetTraceID(testTraceID)
	sp.SetSpanID(testSpanID)
	sp.SetParentSpanID(testParentSpanID)
	sp.TraceState().FromRaw("k=v")
	sp.SetName("GET /\x80")
	sp.SetKind(ptrace.SpanKindServer)
	sp.SetStartTimestamp(2)
	sp.SetEndTimestamp(1)
	sp.Attributes().PutDouble("d", math.NaN())
	sp.Attributes().PutEmptyBytes("b").FromRaw([]byte{0xca, 0xfe})
	sp.Attributes().PutEmptyMap("m").PutEmptySlice("s").AppendEmpty().SetEmptyMap()
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage("boom\n")
	l := sp.Links().AppendEmpty()
	l.SetTraceID(testTraceID)
	l.Attributes().PutStr("k", "\xff")
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	ev.Attributes().PutStr("event.name", "other")
	ev.Attributes().PutDouble("x.geo.location.lat", 1)
	ev.Attributes().PutDouble("x.geo.location.lon", 2)
	sp.Events().AppendEmpty()
	ss.Spans().AppendEmpty() // empty
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	return []ptrace.Traces{td, ptrace.NewTraces()}
}

func FuzzEncodeSpans(f *testing.F) {
	for _, td := range fuzzTraces() {
		b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in)
		if err != nil {
			t.Skip()
		}
		var e Encoder
		var buf []byte
		for _, rs := range td.ResourceSpans().All() {
			e.SetResource(rs.Resource(), rs.SchemaUrl())
			for _, ss := range rs.ScopeSpans().All() {
				e.SetScope(ss.Scope(), ss.SchemaUrl())
				for i, span := range ss.Spans().All() {
					var ds DataStream
					if i%2 == 0 {
						ds = tracesStream
					}
					start := len(buf)
					buf = e.AppendSpan(buf, span, ds)
					checkFuzzDocument(t, buf[start:])
					checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit, RepairNegativeDuration)
					if span.EndTimestamp() < span.StartTimestamp() && e.Repair() != RepairNegativeDuration {
						t.Fatalf("span ends before it starts: Repair() = %q, want %q", e.Repair(), RepairNegativeDuration)
					}
					buf = append(buf, '\n')
					for _, ev := range span.Events().All() {
						start = len(buf)
						buf = e.AppendSpanEvent(buf, span, ev, logsStream)
						checkFuzzDocument(t, buf[start:])
						checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit)
						buf = append(buf, '\n')
					}
				}
			}
		}
	})
}

// checkFuzzDocument is checkDocument (valid JSON, one line, an object, no repeated name) plus
// the members every document has, and objects nested at most 20 deep (otel names are written
// as they are, so this is the depth Elasticsearch sees when they hold no dots).
func checkFuzzDocument(t *testing.T, doc []byte) {
	t.Helper()
	checkDocument(t, doc)
	checkObjectDepth(t, doc)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatalf("document is not a JSON object: %v: %q", err, doc)
	}
	for _, k := range []string{"@timestamp", "resource", "scope"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("document has no %q: %q", k, doc)
		}
	}
}

func checkRepair(t *testing.T, got Repair, allowed ...Repair) {
	t.Helper()
	if !slices.Contains(allowed, got) {
		t.Fatalf("Repair() = %q, want one of %q", got, allowed)
	}
}

// fuzzModes are the modes besides otel that the mode fuzzers run.
var fuzzModes = []Mode{ModeECS, ModeNone, ModeRaw, ModeBodyMap}

// FuzzEncodeLogsModes runs FuzzEncodeLogs's inputs through every other mode: each document is
// one valid JSON object with no name repeated in any object; ecs documents are fully de-dotted
// (no '.' in any name), none and raw documents are flat; bodymap rejects exactly the records
// whose body is not a map, leaving dst unchanged.
func FuzzEncodeLogsModes(f *testing.F) {
	for _, ld := range fuzzLogs() {
		b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in)
		if err != nil {
			t.Skip()
		}
		for _, m := range fuzzModes {
			var e Encoder
			e.SetMode(m)
			var buf []byte
			n := 0
			for _, rl := range ld.ResourceLogs().All() {
				e.SetResource(rl.Resource(), rl.SchemaUrl())
				for _, sl := range rl.ScopeLogs().All() {
					e.SetScope(sl.Scope(), sl.SchemaUrl())
					for _, rec := range sl.LogRecords().All() {
						var ds DataStream
						if n%2 == 0 {
							ds = logsStream
						}
						n++
						start := len(buf)
						buf = e.AppendLog(buf, rec, ds)
						if m == ModeBodyMap && rec.Body().Type() != pcommon.ValueTypeMap {
							if len(buf) != start || e.Rejection().Reason != RejectBodyNotAMap {
								t.Fatalf("bodymap, body %v: wrote %q, Rejection() = %q", rec.Body().Type(), buf[start:], e.Rejection().Reason)
							}
							continue
						}
						checkModeDocument(t, m, buf[start:])
						checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit)
						buf = append(buf, '\n')
					}
				}
			}
		}
	})
}

// FuzzEncodeSpansModes is FuzzEncodeLogsModes for spans and span events.
func FuzzEncodeSpansModes(f *testing.F) {
	for _, td := range fuzzTraces() {
		b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in)
		if err != nil {
			t.Skip()
		}
		for _, m := range fuzzModes {
			var e Encoder
			e.SetMode(m)
			var buf []byte
			for _, rs := range td.ResourceSpans().All() {
				e.SetResource(rs.Resource(), rs.SchemaUrl())
				for _, ss := range rs.ScopeSpans().All() {
					e.SetScope(ss.Scope(), ss.SchemaUrl())
					for i, span := range ss.Spans().All() {
						var ds DataStream
						if i%2 == 0 {
							ds = tracesStream
						}
						start := len(buf)
						buf = e.AppendSpan(buf, span, ds)
						if !m.Supports(signal.Traces) {
							if len(buf) != start || e.Rejection().Reason != RejectUnsupported {
								t.Fatalf("%v: span wrote %q, Rejection() = %q", m, buf[start:], e.Rejection().Reason)
							}
							continue
						}
						checkModeDocument(t, m, buf[start:])
						checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit, RepairNegativeDuration)
						buf = append(buf, '\n')
						if !m.SeparateSpanEvents() {
							continue
						}
						for _, ev := range span.Events().All() {
							start = len(buf)
							buf = e.AppendSpanEvent(buf, span, ev, logsStream)
							checkModeDocument(t, m, buf[start:])
							checkRepair(t, e.Repair(), RepairNone, RepairInvalidUTF8, RepairDepthLimit)
							buf = append(buf, '\n')
						}
					}
				}
			}
		}
	})
}

// checkModeDocument is checkDocument plus the layout of the mode: ecs names hold no '.', none
// and raw top-level values are never objects, every document has @timestamp but bodymap's, and
// bodymap objects nest at most 20 deep (the other modes expand dots in names into objects, and
// the depth limit does not count those).
func checkModeDocument(t *testing.T, m Mode, doc []byte) {
	t.Helper()
	checkDocument(t, doc)
	if m == ModeBodyMap {
		checkObjectDepth(t, doc)
		return
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatalf("%v: document is not a JSON object: %v: %q", m, err, doc)
	}
	if _, ok := top["@timestamp"]; !ok {
		t.Fatalf("%v: document has no @timestamp: %q", m, doc)
	}
	switch m {
	case ModeECS:
		checkNoDottedNames(t, decodeDocument(t, doc), doc)
	case ModeNone, ModeRaw:
		for k, v := range top {
			if len(v) > 0 && v[0] == '{' {
				t.Fatalf("%v: top-level %q is an object: %q", m, k, doc)
			}
		}
	}
}

// checkNoDottedNames fails if any name of v, at any depth, holds a '.'.
func checkNoDottedNames(t *testing.T, v any, doc []byte) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, el := range v {
			if strings.Contains(k, ".") {
				t.Fatalf("ecs: name %q is not de-dotted: %q", k, doc)
			}
			checkNoDottedNames(t, el, doc)
		}
	case []any:
		for _, el := range v {
			checkNoDottedNames(t, el, doc)
		}
	}
}
