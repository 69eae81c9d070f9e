// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var benchSizes = []int{10, 100, 1000, 10000}

const benchStart = 1_700_000_000_000_000_000

func benchResource(r pcommon.Resource) {
	a := r.Attributes()
	a.PutStr("service.name", "checkout")
	a.PutStr("service.version", "1.4.2")
	a.PutStr("host.name", "ip-10-0-1-23.ec2.internal")
	a.PutStr("deployment.environment.name", "production")
}

func benchScope(s pcommon.InstrumentationScope) {
	s.SetName("github.com/acme/checkout/internal/payment")
	s.SetVersion("1.4.2")
}

func benchTraceID(i int) pcommon.TraceID {
	return pcommon.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}
}

func benchSpanID(i int) pcommon.SpanID {
	return pcommon.SpanID{0xeb, 0xa1, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i), 0x7a, 0x01}
}

// benchLogs returns n small log records of one service, as an application logger sends them.
func benchLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	benchResource(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	benchScope(sl.Scope())
	recs := sl.LogRecords()
	recs.EnsureCapacity(n)
	for i := range n {
		r := recs.AppendEmpty()
		ts := pcommon.Timestamp(benchStart + i*1_000_123)
		r.SetTimestamp(ts)
		r.SetObservedTimestamp(ts + 250_000)
		if i%10 == 9 {
			r.SetSeverityText("ERROR")
			r.SetSeverityNumber(plog.SeverityNumberError)
		} else {
			r.SetSeverityText("INFO")
			r.SetSeverityNumber(plog.SeverityNumberInfo)
		}
		r.SetTraceID(benchTraceID(i))
		r.SetSpanID(benchSpanID(i))
		a := r.Attributes()
		a.PutStr("http.request.method", "POST")
		a.PutStr("http.route", "/api/v1/orders/{id}/payment")
		a.PutInt("http.response.status_code", 200)
		a.PutStr("user.id", "u-"+strconv.Itoa(48213+i%100))
		if i%3 == 0 {
			a.PutBool("retry", true)
		}
		r.Body().SetStr(fmt.Sprintf("payment authorized for order %06d in %dms via provider stripe", i, 20+i%80))
	}
	return ld
}

// benchTraces returns n spans of one service, with an event on every fourth span.
func benchTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	benchResource(rs.Resource())
	ss := rs.ScopeSpans().AppendEmpty()
	benchScope(ss.Scope())
	spans := ss.Spans()
	spans.EnsureCapacity(n)
	for i := range n {
		s := spans.AppendEmpty()
		start := pcommon.Timestamp(benchStart + i*1_000_123)
		s.SetStartTimestamp(start)
		s.SetEndTimestamp(start + pcommon.Timestamp(1_500_000+i%1000*1000))
		s.SetTraceID(benchTraceID(i / 4))
		s.SetSpanID(benchSpanID(i))
		if i%4 != 0 {
			s.SetParentSpanID(benchSpanID(i - i%4))
		}
		a := s.Attributes()
		if i%2 == 0 {
			s.SetName("POST /api/v1/orders/{id}/payment")
			s.SetKind(ptrace.SpanKindServer)
			a.PutStr("http.request.method", "POST")
			a.PutStr("http.route", "/api/v1/orders/{id}/payment")
			a.PutInt("http.response.status_code", 200)
			a.PutStr("server.address", "checkout.internal")
			a.PutStr("network.protocol.version", "1.1")
		} else {
			s.SetName("SELECT orders")
			s.SetKind(ptrace.SpanKindClient)
			a.PutStr("db.system.name", "postgresql")
			a.PutStr("db.namespace", "orders")
			a.PutStr("db.operation.name", "SELECT")
			a.PutStr("server.address", "db-1.internal")
			a.PutInt("server.port", 5432)
		}
		if i%4 == 3 {
			ev := s.Events().AppendEmpty()
			ev.SetTimestamp(start + 500_000)
			ev.SetName("cache.miss")
			ev.Attributes().PutStr("cache.key", "order:"+strconv.Itoa(i))
			ev.Attributes().PutInt("cache.ttl_seconds", 300)
		}
		if i%10 == 0 {
			s.Status().SetCode(ptrace.StatusCodeOk)
		}
	}
	return td
}

// appendLogs writes every log record of ld as NDJSON, the way the exporter fills a bulk body
// (without the action lines).
func appendLogs(e *Encoder, dst []byte, ld plog.Logs) []byte {
	for _, rl := range ld.ResourceLogs().All() {
		e.SetResource(rl.Resource(), rl.SchemaUrl())
		for _, sl := range rl.ScopeLogs().All() {
			e.SetScope(sl.Scope(), sl.SchemaUrl())
			for _, r := range sl.LogRecords().All() {
				dst = e.AppendLog(dst, r, logsStream)
				dst = append(dst, '\n')
			}
		}
	}
	return dst
}

// appendTraces writes every span of td, each followed by its events, as NDJSON.
func appendTraces(e *Encoder, dst []byte, td ptrace.Traces) []byte {
	for _, rs := range td.ResourceSpans().All() {
		e.SetResource(rs.Resource(), rs.SchemaUrl())
		for _, ss := range rs.ScopeSpans().All() {
			e.SetScope(ss.Scope(), ss.SchemaUrl())
			for _, s := range ss.Spans().All() {
				dst = e.AppendSpan(dst, s, tracesStream)
				dst = append(dst, '\n')
				for _, ev := range s.Events().All() {
					dst = e.AppendSpanEvent(dst, s, ev, logsStream)
					dst = append(dst, '\n')
				}
			}
		}
	}
	return dst
}

var benchSink []byte

// BenchmarkEncodeLogs compares our documents with pdata's OTLP JSON of the same records. Both
// report the bytes of our output per op, so MB/s and events/s compare alike.
func BenchmarkEncodeLogs(b *testing.B) {
	for _, n := range benchSizes {
		ld := benchLogs(n)
		ld.MarkReadOnly()
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			var e Encoder
			buf := appendLogs(&e, nil, ld)
			size := int64(len(buf))
			b.Run("impl=ours", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(size)
				for b.Loop() {
					buf = appendLogs(&e, buf[:0], ld)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
			b.Run("impl=otlpjson", func(b *testing.B) {
				var m plog.JSONMarshaler
				b.ReportAllocs()
				b.SetBytes(size)
				for b.Loop() {
					out, err := m.MarshalLogs(ld)
					if err != nil {
						b.Fatal(err)
					}
					benchSink = out
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		})
	}
}

// BenchmarkEncodeSpans is BenchmarkEncodeLogs for spans; records counts spans, while ours also
// writes one span event document for every fourth span.
func BenchmarkEncodeSpans(b *testing.B) {
	for _, n := range benchSizes {
		td := benchTraces(n)
		td.MarkReadOnly()
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			var e Encoder
			buf := appendTraces(&e, nil, td)
			size := int64(len(buf))
			b.Run("impl=ours", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(size)
				for b.Loop() {
					buf = appendTraces(&e, buf[:0], td)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
			b.Run("impl=otlpjson", func(b *testing.B) {
				var m ptrace.JSONMarshaler
				b.ReportAllocs()
				b.SetBytes(size)
				for b.Loop() {
					out, err := m.MarshalTraces(td)
					if err != nil {
						b.Fatal(err)
					}
					benchSink = out
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		})
	}
}

// TestBenchDocuments keeps the benchmark data honest: every document is valid. It logs the size
// of our output next to OTLP JSON's for the same records.
func TestBenchDocuments(t *testing.T) {
	ld, td := benchLogs(100), benchTraces(100)
	otlpLogs, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	if err != nil {
		t.Fatal(err)
	}
	otlpTraces, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	var e Encoder
	tests := []struct {
		name string
		body []byte
		otlp int
	}{
		{name: "logs", body: appendLogs(&e, nil, ld), otlp: len(otlpLogs)},
		{name: "spans", body: appendTraces(&e, nil, td), otlp: len(otlpTraces)},
	}
	for _, tt := range tests {
		size := len(tt.body)
		docs := 0
		for body := tt.body; len(body) > 0; docs++ {
			i := indexNewline(body)
			checkDocument(t, body[:i])
			body = body[i+1:]
		}
		t.Logf("%s: 100 records, %d documents, %d bytes (%d per document); OTLP JSON %d bytes",
			tt.name, docs, size, size/docs, tt.otlp)
	}
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return len(b)
}

// wideLogs returns records that take every path of the attribute writer: more keys than the
// linear key scan handles, nested maps and arrays, bytes, doubles, geo pairs, control
// attributes and a map body.
func wideLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	benchResource(rl.Resource())
	rl.Resource().Attributes().PutStr("data_stream.namespace", "prod")
	sl := rl.ScopeLogs().AppendEmpty()
	benchScope(sl.Scope())
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(benchStart + i))
		a := r.Attributes()
		for k := range 24 {
			a.PutInt("attribute.number."+strconv.Itoa(k), int64(k))
		}
		a.PutDouble("ratio", 0.5)
		a.PutEmptyBytes("raw").FromRaw([]byte{1, 2, 3})
		a.PutStr("data_stream.dataset", "wide")
		a.PutDouble("client.geo.location.lat", 52.52)
		a.PutDouble("client.geo.location.lon", 13.40)
		a.PutDouble("a.rather.long.attribute.prefix.for.the.destination.geo.location.lat", 48.85)
		a.PutDouble("a.rather.long.attribute.prefix.for.the.destination.geo.location.lon", 2.35)
		m := a.PutEmptyMap("nested")
		m.PutStr("k", "v\t\"quoted\"")
		m.PutEmptySlice("list").AppendEmpty().SetEmptyMap().PutBool("ok", true)
		b := r.Body().SetEmptyMap()
		for k := range 20 {
			b.PutStr("field"+strconv.Itoa(k), "value")
		}
		r.SetEventName("wide.event")
	}
	return ld
}

// TestEncodeSteadyStateDoesNotAllocate checks that a warm Encoder writing into a warm buffer
// allocates nothing per document.
func TestEncodeSteadyStateDoesNotAllocate(t *testing.T) {
	logs, wide, traces := benchLogs(1000), wideLogs(1000), benchTraces(1000)
	logs.MarkReadOnly()
	wide.MarkReadOnly()
	traces.MarkReadOnly()
	tests := []struct {
		name   string
		encode func(*Encoder, []byte) []byte
	}{
		{name: "1000 logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, logs) }},
		{name: "1000 spans with events", encode: func(e *Encoder, dst []byte) []byte { return appendTraces(e, dst, traces) }},
		{name: "1000 wide logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, wide) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Encoder
			buf := tt.encode(&e, nil)
			allocs := testing.AllocsPerRun(10, func() {
				buf = tt.encode(&e, buf[:0])
			})
			if allocs != 0 {
				t.Errorf("encoding %s allocates %v times per run, want 0", tt.name, allocs)
			}
		})
	}
}

var benchModes = []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw, ModeBodyMap}

// benchMapBodyLogs is benchLogs with each record's text moved into a map body, with the
// record's attributes beside it, so that bodymap mode writes a document per record.
func benchMapBodyLogs(n int) plog.Logs {
	ld := benchLogs(n)
	for _, r := range ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
		text := r.Body().Str()
		m := r.Body().SetEmptyMap()
		m.PutStr("message", text)
		r.Attributes().CopyTo(m.PutEmptyMap("labels"))
	}
	return ld
}

// BenchmarkEncodeLogsModes writes benchLogs in every mode, beside otel (bodymap writes
// benchMapBodyLogs, the same records with map bodies).
func BenchmarkEncodeLogsModes(b *testing.B) {
	for _, n := range benchSizes {
		ld, mapBodies := benchLogs(n), benchMapBodyLogs(n)
		ld.MarkReadOnly()
		mapBodies.MarkReadOnly()
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			for _, m := range benchModes {
				data := ld
				if m == ModeBodyMap {
					data = mapBodies
				}
				b.Run("mode="+m.String(), func(b *testing.B) {
					var e Encoder
					e.SetMode(m)
					buf := appendLogs(&e, nil, data)
					b.ReportAllocs()
					b.SetBytes(int64(len(buf)))
					for b.Loop() {
						buf = appendLogs(&e, buf[:0], data)
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				})
			}
		})
	}
}

// BenchmarkEncodeSpansModes writes benchTraces in every mode that writes spans. otel and ecs
// also write a span event document for every fourth span; none and raw write the events
// inside the span.
func BenchmarkEncodeSpansModes(b *testing.B) {
	for _, n := range benchSizes {
		td := benchTraces(n)
		td.MarkReadOnly()
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			for _, m := range benchModes {
				if !m.Supports("traces") {
					continue
				}
				b.Run("mode="+m.String(), func(b *testing.B) {
					var e Encoder
					e.SetMode(m)
					buf := appendModeTraces(&e, nil, td)
					b.ReportAllocs()
					b.SetBytes(int64(len(buf)))
					for b.Loop() {
						buf = appendModeTraces(&e, buf[:0], td)
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				})
			}
		})
	}
}

// appendModeTraces is appendTraces that writes span event documents only in the modes that
// have them.
func appendModeTraces(e *Encoder, dst []byte, td ptrace.Traces) []byte {
	if e.mode.SeparateSpanEvents() {
		return appendTraces(e, dst, td)
	}
	for _, rs := range td.ResourceSpans().All() {
		e.SetResource(rs.Resource(), rs.SchemaUrl())
		for _, ss := range rs.ScopeSpans().All() {
			e.SetScope(ss.Scope(), ss.SchemaUrl())
			for _, s := range ss.Spans().All() {
				dst = e.AppendSpan(dst, s, tracesStream)
				dst = append(dst, '\n')
			}
		}
	}
	return dst
}

// heapEncoder keeps the Encoders of BenchmarkEncodeWhileMarking on the heap, as a push state
// keeps the exporter's.
var heapEncoder *Encoder

// BenchmarkEncodeWhileMarking encodes 1,000 log records, spans or data points with the Encoder on the heap,
// as the exporter's is, while the garbage collector marks: another goroutine holds a graph of a
// million pointers and runs collections back to back, as a collector's receivers keep its
// collector marking much of the time. Every pointer written into the heap then goes through a
// write barrier, which the other encoding benchmarks (an Encoder on the stack, no collection)
// never meet.
func BenchmarkEncodeWhileMarking(b *testing.B) {
	graph := make([]*[4]int, 1<<20)
	for i := range graph {
		graph[i] = new([4]int)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
		runtime.KeepAlive(graph)
	}()
	var metricsSink countingSink
	ld, td, md := benchLogs(1000), benchTraces(1000), benchMetrics(1000)
	ld.MarkReadOnly()
	td.MarkReadOnly()
	md.MarkReadOnly()
	for _, sig := range []struct {
		name   string
		encode func(e *Encoder, buf []byte) []byte
	}{
		{"logs", func(e *Encoder, buf []byte) []byte { return appendLogs(e, buf, ld) }},
		{"spans", func(e *Encoder, buf []byte) []byte { return appendTraces(e, buf, td) }},
		{"metrics", func(e *Encoder, buf []byte) []byte {
			e.EncodeMetrics(&buf, md, fixedRoute, &metricsSink)
			return buf
		}},
	} {
		b.Run("signal="+sig.name, func(b *testing.B) {
			heapEncoder = new(Encoder)
			buf := sig.encode(heapEncoder, nil)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				buf = sig.encode(heapEncoder, buf[:0])
			}
			b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
