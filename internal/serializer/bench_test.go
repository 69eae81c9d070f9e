// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

var benchSizes = []int{10, 100, 1000, 10000}

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
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					buf = appendLogs(&e, buf[:0], ld)
				}
				reportCPUTime(b, cpu, cpuOK)
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
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					buf = appendTraces(&e, buf[:0], td)
				}
				reportCPUTime(b, cpu, cpuOK)
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
	realLogs, realTraces := realisticLogs(100), realisticTraces(100)
	otlpSize := func(b []byte, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	var lm plog.JSONMarshaler
	var tm ptrace.JSONMarshaler
	var e Encoder
	tests := []struct {
		name string
		body []byte
		otlp int
	}{
		{name: "logs", body: appendLogs(&e, nil, ld), otlp: otlpSize(lm.MarshalLogs(ld))},
		{name: "spans", body: appendTraces(&e, nil, td), otlp: otlpSize(tm.MarshalTraces(td))},
		{name: "realistic logs", body: appendLogs(&e, nil, realLogs), otlp: otlpSize(lm.MarshalLogs(realLogs))},
		{name: "realistic spans", body: appendTraces(&e, nil, realTraces), otlp: otlpSize(tm.MarshalTraces(realTraces))},
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

// TestEncodeSteadyStateDoesNotAllocate checks that a warm Encoder writing into a warm buffer
// allocates nothing per document.
func TestEncodeSteadyStateDoesNotAllocate(t *testing.T) {
	logs, wide, traces := benchLogs(1000), wideLogs(1000), benchTraces(1000)
	realLogs, realTraces := realisticLogs(1000), realisticTraces(1000)
	logs.MarkReadOnly()
	wide.MarkReadOnly()
	traces.MarkReadOnly()
	realLogs.MarkReadOnly()
	realTraces.MarkReadOnly()
	tests := []struct {
		name   string
		encode func(*Encoder, []byte) []byte
	}{
		{name: "1000 logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, logs) }},
		{name: "1000 spans with events", encode: func(e *Encoder, dst []byte) []byte { return appendTraces(e, dst, traces) }},
		{name: "1000 wide logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, wide) }},
		{name: "1000 realistic logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, realLogs) }},
		{name: "1000 realistic spans", encode: func(e *Encoder, dst []byte) []byte { return appendTraces(e, dst, realTraces) }},
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
					cpu, cpuOK := processCPUTime()
					for b.Loop() {
						buf = appendLogs(&e, buf[:0], data)
					}
					reportCPUTime(b, cpu, cpuOK)
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
				if !m.Supports(signal.Traces) {
					continue
				}
				b.Run("mode="+m.String(), func(b *testing.B) {
					var e Encoder
					e.SetMode(m)
					buf := appendModeTraces(&e, nil, td)
					b.ReportAllocs()
					b.SetBytes(int64(len(buf)))
					cpu, cpuOK := processCPUTime()
					for b.Loop() {
						buf = appendModeTraces(&e, buf[:0], td)
					}
					reportCPUTime(b, cpu, cpuOK)
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				})
			}
		})
	}
}

// appendModeTraces is appendTraces that writes span event documents only in the modes that
// have them.
func appendModeTraces(e *Encoder, dst []byte, td ptrace.Traces) []byte {
	return appendSpans(e, dst, td, e.mode.SeparateSpanEvents())
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
			encodeMetricsPush(e, &buf, md, fixedRoute, &metricsSink)
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

// realisticNames are attribute values with non-ASCII text, as user and place names are.
var realisticNames = []string{"José Müller", "Zoë Ångström", "Łukasz Żółć", "山田太郎", "王小明", "Ольга Смирнова", "Nguyễn Văn An", "Bob Smith", "François Dupont", "Ærø Ø"}

// realisticBody returns a log body of several KB: lines from realisticLines picked by rnd,
// and a stack trace for every third record.
func realisticBody(rnd *rand.Rand, i int) string {
	var sb strings.Builder
	for range 8 + rnd.IntN(16) {
		sb.WriteString(realisticLines[rnd.IntN(len(realisticLines))])
		sb.WriteByte('\n')
	}
	if i%3 == 0 {
		sb.WriteString(realisticTrace)
	}
	return sb.String()
}

// realisticResource gives r the attributes of a Kubernetes workload, as an operator sets them.
func realisticResource(r pcommon.Resource, i int) {
	a := r.Attributes()
	a.PutStr("service.name", "checkout")
	a.PutStr("service.version", "2.14.3")
	a.PutStr("service.namespace", "shop")
	a.PutStr("deployment.environment.name", "production")
	a.PutStr("k8s.namespace.name", "shop")
	a.PutStr("k8s.deployment.name", "checkout")
	a.PutStr("k8s.pod.name", "checkout-7d9f8b6c5d-x"+strconv.Itoa(i))
	a.PutStr("k8s.pod.uid", "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
	a.PutStr("k8s.node.name", "ip-10-0-12-34.eu-west-1.compute.internal")
	a.PutStr("k8s.container.name", "app")
	a.PutStr("container.id", "9b2f0e1a7c6d4b3e8f5a2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f")
	a.PutStr("host.name", "ip-10-0-12-34.eu-west-1.compute.internal")
	a.PutStr("cloud.provider", "aws")
	a.PutStr("cloud.region", "eu-west-1")
}

// realisticLogs returns n log records in the shape of production logs: bodies of several KB
// with quotes, tabs, newlines and some non-ASCII text (accented Latin, CJK, emoji), and about
// twenty attributes, a few of them non-ASCII, over two resources.
func realisticLogs(n int) plog.Logs {
	rnd := rand.New(rand.NewPCG(20261204, 36))
	ld := plog.NewLogs()
	for res := range 2 {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
		realisticResource(rl.Resource(), res)
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName("org.springframework.boot")
		recs := sl.LogRecords()
		for i := res; i < n; i += 2 {
			r := recs.AppendEmpty()
			ts := pcommon.Timestamp(benchStart + i*1_000_123)
			r.SetTimestamp(ts)
			r.SetObservedTimestamp(ts + 250_000)
			r.SetSeverityText("INFO")
			r.SetSeverityNumber(plog.SeverityNumberInfo)
			r.SetTraceID(benchTraceID(i))
			r.SetSpanID(benchSpanID(i))
			a := r.Attributes()
			a.PutStr("thread.name", "http-nio-8080-exec-"+strconv.Itoa(1+rnd.IntN(200)))
			a.PutStr("code.namespace", "com.example.shop.web.OrderController")
			a.PutStr("code.function", "handle")
			a.PutStr("http.request.method", "POST")
			a.PutStr("http.route", "/api/v1/orders/{id}/payment")
			a.PutStr("url.path", "/api/v1/orders/"+strconv.Itoa(100000+rnd.IntN(9_000_000))+"/payment")
			a.PutStr("url.query", "lang=de&currency=EUR&q=cr%C3%A8me")
			a.PutInt("http.response.status_code", 200)
			a.PutStr("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
			a.PutStr("client.address", "203.0."+strconv.Itoa(rnd.IntN(256))+"."+strconv.Itoa(1+rnd.IntN(254)))
			a.PutStr("user.id", "u-"+strconv.Itoa(rnd.IntN(2_000_000)))
			a.PutStr("user.full_name", realisticNames[rnd.IntN(len(realisticNames))])
			a.PutStr("app.shipping.city", []string{"Düsseldorf", "Évry", "東京", "São Paulo", "Berlin"}[rnd.IntN(5)])
			a.PutStr("app.order.note", "please leave at the door — \"ring twice\" 🙏")
			a.PutStr("app.session.id", "0b6e1c1d-55a3-4c7f-9a51-3f0c2b9e7d11")
			a.PutInt("app.cart.items", int64(1+rnd.IntN(20)))
			a.PutDouble("app.cart.total", float64(rnd.IntN(100000))/100)
			a.PutBool("app.cart.gift", rnd.IntN(4) == 0)
			a.PutStr("log.file.path", "/var/log/pods/shop_checkout-7d9f8b6c5d-x_3f1c2d4e/app/0.log")
			a.PutStr("log.iostream", "stdout")
			if i%3 == 0 {
				r.SetSeverityText("ERROR")
				r.SetSeverityNumber(plog.SeverityNumberError)
				a.PutStr("exception.type", "java.lang.NullPointerException")
				a.PutStr("exception.message", `Cannot invoke "String.length()" because "sku" is null`)
			}
			r.Body().SetStr(realisticBody(rnd, i))
		}
	}
	return ld
}

// realisticTraces returns n spans in the shape of production traces: about fifteen attributes
// each, a few of them non-ASCII, database statements, and on every fourth span an exception
// event with a stack trace.
func realisticTraces(n int) ptrace.Traces {
	rnd := rand.New(rand.NewPCG(20261204, 37))
	td := ptrace.NewTraces()
	for res := range 2 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
		realisticResource(rs.Resource(), res)
		rs.Resource().Attributes().PutStr("telemetry.sdk.language", "java")
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("io.opentelemetry.spring-webmvc-6.0")
		ss.Scope().SetVersion("2.10.0")
		spans := ss.Spans()
		for i := res; i < n; i += 2 {
			s := spans.AppendEmpty()
			start := pcommon.Timestamp(benchStart + i*1_000_123)
			s.SetStartTimestamp(start)
			s.SetEndTimestamp(start + pcommon.Timestamp(1_500_000+rnd.IntN(50_000_000)))
			s.SetTraceID(benchTraceID(i / 4))
			s.SetSpanID(benchSpanID(i))
			a := s.Attributes()
			if i%4 == 0 {
				s.SetName("POST /api/v1/orders/{id}/payment")
				s.SetKind(ptrace.SpanKindServer)
				a.PutStr("http.request.method", "POST")
				a.PutStr("http.route", "/api/v1/orders/{id}/payment")
				a.PutStr("url.path", "/api/v1/orders/"+strconv.Itoa(100000+rnd.IntN(9_000_000))+"/payment")
				a.PutStr("url.scheme", "https")
				a.PutStr("url.query", "lang=de&currency=EUR&q=cr%C3%A8me")
				a.PutInt("http.response.status_code", 200)
				a.PutStr("client.address", "203.0."+strconv.Itoa(rnd.IntN(256))+"."+strconv.Itoa(1+rnd.IntN(254)))
				a.PutStr("user_agent.original", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1")
				a.PutStr("server.address", "checkout.shop.svc.cluster.local")
				a.PutInt("server.port", 8080)
				a.PutStr("network.protocol.version", "1.1")
				a.PutStr("user.full_name", realisticNames[rnd.IntN(len(realisticNames))])
				a.PutStr("app.shipping.city", []string{"Düsseldorf", "Évry", "東京", "São Paulo", "Berlin"}[rnd.IntN(5)])
			} else {
				s.SetParentSpanID(benchSpanID(i - i%4))
				s.SetName("SELECT shop.orders")
				s.SetKind(ptrace.SpanKindClient)
				a.PutStr("db.system.name", "postgresql")
				a.PutStr("db.namespace", "shop")
				a.PutStr("db.operation.name", "SELECT")
				a.PutStr("db.collection.name", "orders")
				a.PutStr("db.query.text", "SELECT o.id, o.status, o.total, c.full_name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.full_name = $1 AND o.note LIKE '%größe%' ORDER BY o.created_at DESC LIMIT 20")
				a.PutStr("server.address", "postgres-primary.data.svc.cluster.local")
				a.PutInt("server.port", 5432)
				a.PutStr("db.client.connection.pool.name", "HikariPool-1")
				a.PutInt("db.response.returned_rows", int64(rnd.IntN(20)))
				a.PutStr("code.function.name", "com.example.shop.repository.OrderRepository.findByCustomer")
				a.PutStr("thread.name", "http-nio-8080-exec-"+strconv.Itoa(1+rnd.IntN(200)))
			}
			if i%4 == 3 {
				s.Status().SetCode(ptrace.StatusCodeError)
				s.Status().SetMessage("Zeitüberschreitung beim Lesen — \"read timed out\"")
				ev := s.Events().AppendEmpty()
				ev.SetTimestamp(start + 500_000)
				ev.SetName("exception")
				ev.Attributes().PutStr("exception.type", "java.net.SocketTimeoutException")
				ev.Attributes().PutStr("exception.message", "Read timed out — 読み取りがタイムアウトしました")
				ev.Attributes().PutStr("exception.stacktrace", realisticTrace+realisticTrace)
			}
		}
	}
	return td
}

// BenchmarkEncodeRealistic writes realisticLogs and realisticTraces: long bodies, many
// attributes and some non-ASCII text, where escaping and UTF-8 checks take most of the time.
func BenchmarkEncodeRealistic(b *testing.B) {
	for _, sig := range []struct {
		name   string
		encode func(n int) func(e *Encoder, dst []byte) []byte
	}{
		{"logs", func(n int) func(e *Encoder, dst []byte) []byte {
			ld := realisticLogs(n)
			ld.MarkReadOnly()
			return func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, ld) }
		}},
		{"spans", func(n int) func(e *Encoder, dst []byte) []byte {
			td := realisticTraces(n)
			td.MarkReadOnly()
			return func(e *Encoder, dst []byte) []byte { return appendTraces(e, dst, td) }
		}},
	} {
		for _, n := range []int{100, 1000} {
			encode := sig.encode(n)
			b.Run("signal="+sig.name+"/records="+strconv.Itoa(n), func(b *testing.B) {
				var e Encoder
				buf := encode(&e, nil)
				b.ReportAllocs()
				b.SetBytes(int64(len(buf)))
				cpu, cpuOK := processCPUTime()
				for b.Loop() {
					buf = encode(&e, buf[:0])
				}
				reportCPUTime(b, cpu, cpuOK)
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkAppendString writes single strings of the kinds documents hold: an attribute key,
// a short ASCII value, a long ASCII line with JSON in it, a stack trace, a realistic body of
// several KB with some non-ASCII text, and lines all in accented Latin, CJK and emoji.
func BenchmarkAppendString(b *testing.B) {
	rnd := rand.New(rand.NewPCG(20261204, 38))
	for _, tt := range []struct{ name, s string }{
		{"key", "http.response.status_code"},
		{"short", "checkout-7d9f8b6c5d-x1"},
		{"json", realisticLines[1]},
		{"trace", realisticTrace},
		{"body", realisticBody(rnd, 0)},
		{"latin", strings.Repeat(realisticLines[4], 8)},
		{"cjk", strings.Repeat(realisticLines[5]+realisticLines[6], 4)},
		{"emoji", strings.Repeat("🚚😀⭐👍✅🙏", 40)},
	} {
		b.Run("s="+tt.name, func(b *testing.B) {
			buf, _ := jsonstr.Append(nil, tt.s)
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.s)))
			cpu, cpuOK := processCPUTime()
			for b.Loop() {
				buf, _ = jsonstr.Append(buf[:0], tt.s)
			}
			reportCPUTime(b, cpu, cpuOK)
		})
	}
}

// BenchmarkEncodeSpanEventsECS writes 1,000 span events of the ecs mode, every other one an
// exception, as log documents routed like log records (AppendSpanEvent) and as documents for
// Elastic APM's data streams (AppendSpanEventAPM, mapping::ecs_span_events_to_logs), which
// leave error.grouping_name out of exceptions.
func BenchmarkEncodeSpanEventsECS(b *testing.B) {
	span := ptrace.NewSpan()
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	for i := range 1000 {
		ev := span.Events().AppendEmpty()
		ev.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i))
		if i%2 == 0 {
			ev.SetName("exception")
			ev.Attributes().PutStr("exception.type", "PaymentError")
			ev.Attributes().PutStr("exception.message", "card declined "+strconv.Itoa(i))
			ev.Attributes().PutStr("error.grouping_name", "card declined")
			continue
		}
		ev.SetName("cache.miss")
		ev.Attributes().PutStr("cache.key", "order:"+strconv.Itoa(i))
		ev.Attributes().PutInt("cache.ttl_seconds", 300)
	}
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "checkout")
	res.Attributes().PutStr("telemetry.sdk.language", "go")
	for _, tt := range []struct {
		name   string
		append func(*Encoder, []byte, ptrace.SpanEvent) []byte
	}{
		{"routed_like_logs", func(e *Encoder, dst []byte, ev ptrace.SpanEvent) []byte {
			return e.AppendSpanEvent(dst, span, ev, logsStream)
		}},
		{"apm", func(e *Encoder, dst []byte, ev ptrace.SpanEvent) []byte {
			return e.AppendSpanEventAPM(dst, span, ev, apmErrorStream)
		}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			e := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope())
			write := func(dst []byte) []byte {
				for _, ev := range span.Events().All() {
					dst = append(tt.append(e, dst, ev), '\n')
				}
				return dst
			}
			buf := write(nil)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			cpu, cpuOK := processCPUTime()
			for b.Loop() {
				buf = write(buf[:0])
			}
			reportCPUTime(b, cpu, cpuOK)
		})
	}
}
