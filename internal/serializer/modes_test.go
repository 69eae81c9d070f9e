// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// The expected documents below are written by hand from MODES.md (the contrib exporter's
// documents), not produced by the code.

const (
	testTraceHex  = "0123456789abcdeffedcba9876543210"
	testSpanHex   = "aabbccdd00112233"
	testParentHex = "0f0e0d0c0b0a0908"
	epochZero     = `"1970-01-01T00:00:00.000000000Z"`
)

func TestECSLog(t *testing.T) {
	res := pcommon.NewResource()
	ra := res.Attributes()
	ra.PutStr("service.name", "svc")
	ra.PutStr("service.instance.id", "i-1")
	ra.PutStr("deployment.environment.name", "prod")
	ra.PutStr("telemetry.sdk.name", "opentelemetry")
	ra.PutStr("telemetry.sdk.language", "go")
	ra.PutStr("telemetry.sdk.version", "1.30.0")
	ra.PutStr("host.name", "h1")
	ra.PutStr("host.arch", "amd64")
	ra.PutStr("os.type", "linux")
	ra.PutStr("k8s.cluster.name", "c1")
	ra.PutStr("k8s.pod.name", "p1")
	ra.PutStr("data_stream.dataset", "routed") // control: left out
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib") // not written in ecs mode
	scope.Attributes().PutStr("scope.attr", "x")

	rec := plog.NewLogRecord()
	rec.SetTimestamp(1_700_000_000_123_456_789)
	rec.SetSeverityText("INFO")
	rec.SetSeverityNumber(plog.SeverityNumberInfo)
	rec.SetTraceID(testTraceID)
	rec.SetSpanID(testSpanID)
	rec.Body().SetStr("hello")
	a := rec.Attributes()
	a.PutStr("event.name", "login")
	a.PutStr("exception.message", "boom")
	a.PutInt("http.response.body.size", 12)
	a.PutEmptySlice("empty.list")
	a.PutEmptyMap("empty.map")
	a.PutEmpty("empty.value")

	got := modeEncoder(ModeECS, res, scope).AppendLog(nil, rec, logsStream)
	want := `{"@timestamp":"2023-11-14T22:13:20.123456789Z",` +
		`"agent":{"name":"opentelemetry/go","version":"1.30.0"},` +
		`"data_stream":{"dataset":"generic.otel","namespace":"default","type":"logs"},` +
		`"error":{"message":"boom"},` +
		`"event":{"action":"login","severity":9},` +
		`"host":{"architecture":"amd64","hostname":"h1","name":"h1","os":{"platform":"linux","type":"linux"}},` +
		`"http":{"response":{"encoded_body_size":12}},` +
		`"kubernetes":{"pod":{"name":"p1"}},` +
		`"log":{"level":"INFO"},` +
		`"message":"hello",` +
		`"orchestrator":{"cluster":{"name":"c1"}},` +
		`"scope":{"attr":"x"},` +
		`"service":{"environment":"prod","language":{"name":"go","version":"1.30.0"},"name":"svc","node":{"name":"i-1"}},` +
		`"span":{"id":"` + testSpanHex + `"},` +
		`"trace":{"id":"` + testTraceHex + `"}}`
	checkDoc(t, got, want)
}

func TestECSLogBody(t *testing.T) {
	tests := []struct {
		name string
		body func(pcommon.Value)
		want string // the message member, or ""
	}{
		{name: "string", body: func(v pcommon.Value) { v.SetStr("hi") }, want: `,"message":"hi"`},
		{name: "empty string", body: func(v pcommon.Value) { v.SetStr("") }, want: `,"message":""`},
		{name: "int", body: func(v pcommon.Value) { v.SetInt(1) }},
		{name: "map", body: func(v pcommon.Value) { v.SetEmptyMap().PutStr("k", "v") }},
		{name: "slice", body: func(v pcommon.Value) { v.SetEmptySlice().AppendEmpty().SetStr("x") }},
		{name: "empty", body: func(pcommon.Value) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.body(rec.Body())
			got := modeEncoder(ModeECS, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
			checkDoc(t, got, `{"@timestamp":`+epochZero+`,"agent":{"name":"otlp"}`+tt.want+`}`)
		})
	}
}

// TestECSCollisions covers the objmodel rules: last wins, a scalar colliding with an object
// becomes <key>.value (and loses to a <key>.value of its own), protected ECS fields drop the
// keys below them, record attributes win over resource attributes.
func TestECSCollisions(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("host.name", "h")
	res.Attributes().PutStr("service.name", "res")
	rec := logRecordFromJSON(t, `{"attributes":[
		{"key":"a","value":{"intValue":"1"}},
		{"key":"a.b","value":{"stringValue":"x"}},
		{"key":"a+x","value":{"intValue":"3"}},
		{"key":"d.e","value":{"intValue":"1"}},
		{"key":"d","value":{"kvlistValue":{"values":[{"key":"e","value":{"intValue":"2"}}]}}},
		{"key":"k","value":{"intValue":"1"}},
		{"key":"k.x","value":{"intValue":"2"}},
		{"key":"k.value","value":{"intValue":"3"}},
		{"key":"host.hostname.x","value":{"stringValue":"dropped"}},
		{"key":"service.name","value":{"stringValue":"rec"}},
		{"key":"dup","value":{"stringValue":"first"}},
		{"key":"dup","value":{"stringValue":"last"}}]}`)
	got := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
	want := `{"@timestamp":` + epochZero + `,"a":{"b":"x","value":1},"a+x":3,"agent":{"name":"otlp"},` +
		`"d":{"e":2},"dup":"last","host":{"hostname":"h","name":"h"},"k":{"value":3,"x":2},"service":{"name":"rec"}}`
	checkDoc(t, got, want)
}

// TestECSNestedCollisions: renaming can cascade (a, a.value and a.value.x), and objects inside
// arrays are documents of their own, normalized and de-dotted.
func TestECSNestedCollisions(t *testing.T) {
	rec := plog.NewLogRecord()
	a := rec.Attributes()
	a.PutInt("a", 1)
	a.PutInt("a.value", 2)
	a.PutInt("a.value.x", 3)
	l := a.PutEmptySlice("list")
	m := l.AppendEmpty().SetEmptyMap()
	m.PutStr("p.q", "1")
	m.PutStr("p", "2")
	l.AppendEmpty().SetEmptyMap()
	l.AppendEmpty().SetDouble(math.NaN())
	l.AppendEmpty().SetEmptyBytes().FromRaw([]byte{0xab})
	got := modeEncoder(ModeECS, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
	want := `{"@timestamp":` + epochZero + `,"a":{"value":{"value":2,"x":3}},"agent":{"name":"otlp"},` +
		`"list":[{"p":{"q":"1","value":"2"}},null,null,"ab"]}`
	checkDoc(t, got, want)
}

func TestECSResourceConversions(t *testing.T) {
	tests := []struct {
		in, out string // out "" means left out
	}{
		{"service.instance.id", "service.node.name"},
		{"deployment.environment", "service.environment"},
		{"deployment.environment.name", "service.environment"},
		{"telemetry.sdk.name", ""},
		{"telemetry.sdk.language", "service.language.name"},
		{"telemetry.sdk.version", "service.language.version"},
		{"telemetry.distro.name", ""},
		{"telemetry.distro.version", ""},
		{"cloud.platform", "cloud.service.name"},
		{"container.image.tags", "container.image.tag"},
		{"host.arch", "host.architecture"},
		{"process.parent_pid", "process.parent.pid"},
		{"process.executable.name", "process.title"},
		{"process.executable.path", "process.executable"},
		{"process.command_line", "process.args"},
		{"process.runtime.name", "service.runtime.name"},
		{"process.runtime.version", "service.runtime.version"},
		{"os.name", "host.os.name"},
		{"os.type", "host.os.platform"},
		{"os.description", "host.os.full"},
		{"os.version", "host.os.version"},
		{"client.address", "client.ip"},
		{"source.address", "source.ip"},
		{"k8s.deployment.name", "kubernetes.deployment.name"},
		{"k8s.namespace.name", "kubernetes.namespace"},
		{"k8s.node.name", "kubernetes.node.name"},
		{"k8s.pod.name", "kubernetes.pod.name"},
		{"k8s.pod.uid", "kubernetes.pod.uid"},
		{"k8s.job.name", "kubernetes.job.name"},
		{"k8s.cronjob.name", "kubernetes.cronjob.name"},
		{"k8s.statefulset.name", "kubernetes.statefulset.name"},
		{"k8s.replicaset.name", "kubernetes.replicaset.name"},
		{"k8s.daemonset.name", "kubernetes.daemonset.name"},
		{"k8s.container.name", "kubernetes.container.name"},
		{"k8s.cluster.name", "orchestrator.cluster.name"},
		{"faas.instance", "faas.id"},
		{"faas.trigger", "faas.trigger.type"},
		{"custom.key", "custom.key"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			res := pcommon.NewResource()
			res.Attributes().PutStr(tt.in, "Q")
			e := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope())
			got := string(e.AppendLog(nil, plog.NewLogRecord(), DataStream{}))
			want := `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp"}}`
			if tt.out != "" {
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp"},` + nestedMember(tt.out, `"Q"`) + `}`
			}
			switch tt.in {
			case "telemetry.sdk.name":
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"Q"}}`
			case "telemetry.sdk.language":
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp/Q"},` + nestedMember(tt.out, `"Q"`) + `}`
			case "telemetry.sdk.version":
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp","version":"Q"},` + nestedMember(tt.out, `"Q"`) + `}`
			case "telemetry.distro.name":
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp/unknown/Q"}}`
			case "telemetry.distro.version":
				want = `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp","version":"Q"}}`
			}
			checkDoc(t, []byte(got), want)
		})
	}
}

// nestedMember writes "a.b.c": v as "a":{"b":{"c":v}}.
func nestedMember(key, v string) string {
	parts := strings.Split(key, ".")
	s := v
	for i, part := range slices.Backward(parts) {
		s = `"` + part + `":` + s
		if i > 0 {
			s = "{" + s + "}"
		}
	}
	return s
}

func TestECSHostName(t *testing.T) {
	// host.name is kept, and becomes host.hostname unless the resource has that key.
	res := pcommon.NewResource()
	res.Attributes().PutStr("host.name", "a")
	res.Attributes().PutStr("host.hostname", "b")
	got := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope()).AppendLog(nil, plog.NewLogRecord(), DataStream{})
	checkDoc(t, got, `{"@timestamp":`+epochZero+`,"agent":{"name":"otlp"},"host":{"hostname":"b","name":"a"}}`)
}

func TestECSHostOSType(t *testing.T) {
	tests := []struct{ osType, osName, want string }{
		{osType: "linux", want: "linux"},
		{osType: "windows", want: "windows"},
		{osType: "darwin", want: "macos"},
		{osType: "solaris", want: "unix"},
		{osType: "z_os"},
		{osType: "linux", osName: "Android", want: "android"},
		{osType: "darwin", osName: "iOS", want: "ios"},
	}
	for _, tt := range tests {
		res := pcommon.NewResource()
		res.Attributes().PutStr("os.type", tt.osType)
		if tt.osName != "" {
			res.Attributes().PutStr("os.name", tt.osName)
		}
		e := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope())
		m := decodeDocument(t, e.AppendLog(nil, plog.NewLogRecord(), DataStream{}))
		os := m["host"].(map[string]any)["os"].(map[string]any)
		if got, _ := os["type"].(string); got != tt.want {
			t.Errorf("os.type %q, os.name %q: host.os.type = %q, want %q", tt.osType, tt.osName, got, tt.want)
		}
	}
}

func TestECSSpan(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "svc")
	res.Attributes().PutStr("os.type", "darwin")
	res.Attributes().PutStr("telemetry.sdk.name", "opentelemetry") // no agent fields on spans
	span := ptrace.NewSpan()
	span.SetName("GET /")
	span.SetKind(ptrace.SpanKindServer)
	span.SetStartTimestamp(1_700_000_000_000_000_001)
	span.SetEndTimestamp(1_700_000_000_100_000_000)
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	span.SetParentSpanID(testParentSpanID)
	span.Status().SetCode(ptrace.StatusCodeError)
	l := span.Links().AppendEmpty()
	l.SetTraceID(testTraceID)
	l.SetSpanID(testSpanID)
	span.Links().AppendEmpty()
	a := span.Attributes()
	a.PutStr("db.system", "postgresql")
	a.PutStr("db.namespace", "orders")
	a.PutStr("db.query.text", "SELECT 1")
	a.PutStr("messaging.destination.name", "q")
	a.PutStr("messaging.operation.name", "send")
	a.PutStr("processor.event", "transaction")
	span.Events().AppendEmpty().SetName("not written in the span")

	got := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope()).AppendSpan(nil, span, tracesStream)
	want := `{"@timestamp":"2023-11-14T22:13:20.000000001Z",` +
		`"data_stream":{"dataset":"generic.otel","namespace":"default","type":"traces"},` +
		`"event":{"outcome":"failure"},` +
		`"host":{"os":{"platform":"darwin","type":"macos"}},` +
		`"parent":{"id":"` + testParentHex + `"},` +
		`"processor":{"event":"transaction"},` +
		`"service":{"name":"svc"},` +
		`"span":{"action":"send","db":{"instance":"orders","statement":"SELECT 1","type":"postgresql"},` +
		`"id":"` + testSpanHex + `","kind":"SERVER",` +
		`"links":[{"span":{"id":"` + testSpanHex + `"},"trace":{"id":"` + testTraceHex + `"}},null],"name":"GET /"},` +
		`"trace":{"id":"` + testTraceHex + `"},` +
		`"transaction":{"message":{"queue":{"name":"q"}}}}`
	checkDoc(t, got, want)
}

func TestECSSpanKindOutcomeAndQueue(t *testing.T) {
	tests := []struct {
		name string
		set  func(ptrace.Span)
		want string
	}{
		{name: "empty", set: func(ptrace.Span) {}, want: `{"@timestamp":` + epochZero + `}`},
		{
			name: "ok client span queue",
			set: func(s ptrace.Span) {
				s.SetKind(ptrace.SpanKindClient)
				s.Status().SetCode(ptrace.StatusCodeOk)
				s.Attributes().PutStr("messaging.destination.name", "q")
				s.Attributes().PutDouble("http.response.body.size", math.Inf(1))
			},
			want: `{"@timestamp":` + epochZero + `,"event":{"outcome":"success"},"http":{"response":{"encoded_body_size":null}},` +
				`"span":{"kind":"CLIENT","message":{"queue":{"name":"q"}}}}`,
		},
		{name: "internal", set: func(s ptrace.Span) { s.SetKind(ptrace.SpanKindInternal) }, want: `{"@timestamp":` + epochZero + `,"span":{"kind":"INTERNAL"}}`},
		{name: "producer", set: func(s ptrace.Span) { s.SetKind(ptrace.SpanKindProducer) }, want: `{"@timestamp":` + epochZero + `,"span":{"kind":"PRODUCER"}}`},
		{name: "consumer", set: func(s ptrace.Span) { s.SetKind(ptrace.SpanKindConsumer) }, want: `{"@timestamp":` + epochZero + `,"span":{"kind":"CONSUMER"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span := ptrace.NewSpan()
			tt.set(span)
			got := modeEncoder(ModeECS, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendSpan(nil, span, DataStream{})
			checkDoc(t, got, tt.want)
		})
	}
}

func TestECSSpanEvent(t *testing.T) {
	res := pcommon.NewResource()
	ra := res.Attributes()
	ra.PutStr("service.name", "svc")
	ra.PutStr("telemetry.sdk.name", "opentelemetry")
	ra.PutStr("telemetry.sdk.language", "java")
	ra.PutStr("telemetry.distro.name", "elastic")
	ra.PutStr("telemetry.distro.version", "1.2")
	span := ptrace.NewSpan()
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	ev := span.Events().AppendEmpty()
	ev.SetTimestamp(1_700_000_000_000_000_500)
	ev.SetName("exception")
	ev.Attributes().PutStr("exception.type", "E")
	ev.Attributes().PutStr("exception.message", "m")
	ev.Attributes().PutBool("exception.escaped", true)
	ev.Attributes().PutStr("event.name", "loses to the event's name")

	got := modeEncoder(ModeECS, res, pcommon.NewInstrumentationScope()).AppendSpanEvent(nil, span, ev, logsStream)
	want := `{"@timestamp":"2023-11-14T22:13:20.000000500Z",` +
		`"agent":{"name":"opentelemetry/java/elastic","version":"1.2"},` +
		`"data_stream":{"dataset":"generic.otel","namespace":"default","type":"logs"},` +
		`"error":{"message":"m","type":"E"},` +
		`"event":{"action":"exception","error":{"exception":{"handled":true}}},` +
		`"service":{"language":{"name":"java"},"name":"svc"},` +
		`"span":{"id":"` + testSpanHex + `"},` +
		`"trace":{"id":"` + testTraceHex + `"}}`
	checkDoc(t, got, want)
}

// legacyLog is the record of TestLegacyLog.
func legacyLog() (pcommon.Resource, pcommon.InstrumentationScope, plog.LogRecord) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "svc")
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib")
	scope.SetVersion("1.0")
	scope.Attributes().PutInt("s", 1)
	rec := plog.NewLogRecord()
	rec.SetTimestamp(1_700_000_000_123_456_789)
	rec.SetTraceID(testTraceID)
	rec.SetSpanID(testSpanID)
	rec.SetFlags(1)
	rec.SetSeverityText("WARN")
	rec.SetSeverityNumber(plog.SeverityNumberWarn)
	b := rec.Body().SetEmptyMap()
	b.PutStr("msg", "hi")
	b.PutEmptyMap("n").PutDouble("x", 1.5)
	a := rec.Attributes()
	a.PutStr("http.method", "GET")
	a.PutEmptyMap("a").PutBool("b", true)
	a.PutInt("z", 1)
	a.PutInt("z.y", 2)
	a.PutEmptySlice("gone")
	a.PutStr("elasticsearch.index", "x") // control: left out
	return res, scope, rec
}

func TestLegacyLog(t *testing.T) {
	res, scope, rec := legacyLog()
	head := `{"@timestamp":"2023-11-14T22:13:20.123456789Z",`
	envelope := `"Body.msg":"hi","Body.n.x":1.5,"Resource.service.name":"svc","Scope.name":"lib","Scope.s":1,"Scope.version":"1.0",` +
		`"SeverityNumber":13,"SeverityText":"WARN","SpanId":"` + testSpanHex + `","TraceFlags":1,"TraceId":"` + testTraceHex + `"`
	tests := []struct {
		mode Mode
		want string
	}{
		{
			mode: ModeNone,
			want: head + `"Attributes.a.b":true,"Attributes.data_stream.dataset":"generic.otel",` +
				`"Attributes.data_stream.namespace":"default","Attributes.data_stream.type":"logs",` +
				`"Attributes.http.method":"GET","Attributes.z.value":1,"Attributes.z.y":2,` + envelope + `}`,
		},
		{
			mode: ModeRaw,
			want: head + envelope + `,"a.b":true,"data_stream.dataset":"generic.otel","data_stream.namespace":"default",` +
				`"data_stream.type":"logs","http.method":"GET","z.value":1,"z.y":2}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			checkDoc(t, modeEncoder(tt.mode, res, scope).AppendLog(nil, rec, logsStream), tt.want)
		})
	}
}

func TestLegacyLogMinimal(t *testing.T) {
	rec := plog.NewLogRecord()
	rec.SetObservedTimestamp(1) // @timestamp falls back to it
	rec.Body().SetDouble(math.NaN())
	want := `{"@timestamp":"1970-01-01T00:00:00.000000001Z","Body":null,"Scope.name":"","Scope.version":"","SeverityNumber":0,"TraceFlags":0}`
	for _, m := range []Mode{ModeNone, ModeRaw} {
		got := modeEncoder(m, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
		checkDoc(t, got, want)
	}
}

// TestLegacyLastWins: of a repeated key, at any level, the last value is written; the record's
// attributes win over the fields written before them in raw mode, as in contrib.
func TestLegacyLastWins(t *testing.T) {
	rec := logRecordFromJSON(t, `{"attributes":[
		{"key":"k","value":{"stringValue":"first"}},
		{"key":"k","value":{"stringValue":"last"}},
		{"key":"SeverityText","value":{"stringValue":"from attributes"}}],
		"severityText":"INFO"}`)
	got := modeEncoder(ModeRaw, pcommon.NewResource(), pcommon.NewInstrumentationScope()).AppendLog(nil, rec, DataStream{})
	checkDoc(t, got, `{"@timestamp":`+epochZero+`,"Scope.name":"","Scope.version":"","SeverityNumber":0,"SeverityText":"from attributes","TraceFlags":0,"k":"last"}`)
}

func legacySpan() ptrace.Span {
	span := ptrace.NewSpan()
	span.SetStartTimestamp(1_700_000_000_000_000_000)
	span.SetEndTimestamp(1_700_000_000_002_500_000)
	span.SetTraceID(testTraceID)
	span.SetSpanID(testSpanID)
	span.SetParentSpanID(testParentSpanID)
	span.SetName("op")
	span.SetKind(ptrace.SpanKindClient)
	span.Status().SetCode(ptrace.StatusCodeError)
	span.Status().SetMessage("bad")
	span.Attributes().PutStr("k", "v")
	l := span.Links().AppendEmpty()
	l.SetTraceID(testTraceID)
	l.SetSpanID(testSpanID)
	l.Attributes().PutInt("b", 1)
	l.Attributes().PutStr("a", "x<&>")
	ev := span.Events().AppendEmpty()
	ev.SetName("ev1")
	ev.SetTimestamp(1_700_000_000_001_000_000)
	ev.Attributes().PutInt("q", 1)
	return span
}

func TestLegacySpan(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "svc")
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib")
	span := legacySpan()
	fields := `"Duration":2500,"EndTimestamp":"2023-11-14T22:13:20.002500000Z",`
	link := `"Kind":"SPAN_KIND_CLIENT",` +
		`"Link":"[{\"attribute\":{\"a\":\"x<&>\",\"b\":1},\"spanID\":\"` + testSpanHex + `\",\"traceID\":\"` + testTraceHex + `\"}]",` +
		`"Name":"op","ParentSpanId":"` + testParentHex + `","Resource.service.name":"svc","Scope.name":"lib","Scope.version":"",` +
		`"SpanId":"` + testSpanHex + `","TraceId":"` + testTraceHex + `","TraceStatus":2,"TraceStatusDescription":"bad"`
	tests := []struct {
		mode Mode
		want string
	}{
		{
			mode: ModeNone,
			want: `{"@timestamp":"2023-11-14T22:13:20.000000000Z",` +
				`"Attributes.data_stream.dataset":"generic.otel","Attributes.data_stream.namespace":"default",` +
				`"Attributes.data_stream.type":"traces","Attributes.k":"v",` + fields +
				`"Events.ev1.q":1,"Events.ev1.time":"2023-11-14T22:13:20.001000000Z",` + link + `}`,
		},
		{
			mode: ModeRaw,
			want: `{"@timestamp":"2023-11-14T22:13:20.000000000Z",` + fields + link +
				`,"data_stream.dataset":"generic.otel","data_stream.namespace":"default","data_stream.type":"traces",` +
				`"ev1.q":1,"ev1.time":"2023-11-14T22:13:20.001000000Z","k":"v"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			e := modeEncoder(tt.mode, res, scope)
			checkDoc(t, e.AppendSpan(nil, span, tracesStream), tt.want)
			// Events are inline: no separate documents.
			if got := e.AppendSpanEvent([]byte("x"), span, span.Events().At(0), logsStream); string(got) != "x" || e.Rejection().Reason != RejectUnsupported {
				t.Errorf("AppendSpanEvent = %q, Rejection() = %q, want dst unchanged and %q", got, e.Rejection().Reason, RejectUnsupported)
			}
		})
	}
}

func TestLegacySpanMinimal(t *testing.T) {
	span := ptrace.NewSpan()
	span.SetStartTimestamp(3_000)
	span.SetEndTimestamp(1_000) // ends before it starts: Duration 0, repaired
	span.Links().AppendEmpty()
	e := modeEncoder(ModeNone, pcommon.NewResource(), pcommon.NewInstrumentationScope())
	got := e.AppendSpan(nil, span, DataStream{})
	want := `{"@timestamp":"1970-01-01T00:00:00.000003000Z","Duration":0,"EndTimestamp":"1970-01-01T00:00:00.000001000Z",` +
		`"Kind":"SPAN_KIND_UNSPECIFIED","Link":"[{\"attribute\":{},\"spanID\":\"\",\"traceID\":\"\"}]",` +
		`"Scope.name":"","Scope.version":"","TraceStatus":0}`
	checkDoc(t, got, want)
	if e.Repair() != RepairNegativeDuration {
		t.Errorf("Repair() = %q, want %q", e.Repair(), RepairNegativeDuration)
	}
}

func TestBodyMap(t *testing.T) {
	rec := plog.NewLogRecord()
	b := rec.Body().SetEmptyMap()
	b.PutDouble("a", 1)
	b.PutEmptyBytes("b").FromRaw([]byte{0xca, 0xfe})
	b.PutDouble("c", math.NaN())
	b.PutStr("d", "x\xff")
	s := b.PutEmptyMap("m").PutEmptySlice("k")
	s.AppendEmpty().SetInt(1)
	s.AppendEmpty().SetStr("s")
	b.PutStr("dotted.key", "stays dotted")
	rec.Attributes().PutStr("not", "written")
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "not written")
	e := modeEncoder(ModeBodyMap, res, pcommon.NewInstrumentationScope())
	got := e.AppendLog([]byte("prefix\n"), rec, logsStream)
	want := "prefix\n" + `{"a":1.0,"b":"cafe","c":null,"d":"x` + "\ufffd" + `","m":{"k":[1,"s"]},"dotted.key":"stays dotted"}`
	if string(got) != want {
		t.Errorf("AppendLog = %s, want %s", got, want)
	}
	checkDocument(t, got[len("prefix\n"):])
	if e.Repair() != RepairInvalidUTF8 || e.Rejection().Reason != "" {
		t.Errorf("Repair() = %q, Rejection() = %q, want %q and none", e.Repair(), e.Rejection().Reason, RepairInvalidUTF8)
	}
}

func TestBodyMapRejection(t *testing.T) {
	bodies := map[string]func(pcommon.Value){
		"string": func(v pcommon.Value) { v.SetStr("x") },
		"slice":  func(v pcommon.Value) { v.SetEmptySlice() },
		"empty":  func(pcommon.Value) {},
	}
	for name, set := range bodies {
		t.Run(name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			set(rec.Body())
			e := modeEncoder(ModeBodyMap, pcommon.NewResource(), pcommon.NewInstrumentationScope())
			dst := []byte("kept")
			got := e.AppendLog(dst, rec, logsStream)
			if string(got) != "kept" || e.Rejection().Reason != RejectBodyNotAMap {
				t.Errorf("AppendLog = %q, Rejection() = %q, want dst unchanged and %q", got, e.Rejection().Reason, RejectBodyNotAMap)
			}
			// The next document clears the rejection.
			rec.Body().SetEmptyMap()
			if got := e.AppendLog(nil, rec, logsStream); string(got) != "{}" || e.Rejection().Reason != "" {
				t.Errorf("AppendLog = %q, Rejection() = %q, want {} and none", got, e.Rejection().Reason)
			}
		})
	}
	e := modeEncoder(ModeBodyMap, pcommon.NewResource(), pcommon.NewInstrumentationScope())
	span := ptrace.NewSpan()
	if got := e.AppendSpan(nil, span, tracesStream); got != nil || e.Rejection().Reason != RejectUnsupported {
		t.Errorf("AppendSpan = %q, Rejection() = %q, want nothing and %q", got, e.Rejection().Reason, RejectUnsupported)
	}
	if got := e.AppendSpanEvent(nil, span, ptrace.NewSpanEvent(), logsStream); got != nil || e.Rejection().Reason != RejectUnsupported {
		t.Errorf("AppendSpanEvent = %q, Rejection() = %q, want nothing and %q", got, e.Rejection().Reason, RejectUnsupported)
	}
}

// TestModesInvalidUTF8Keys: keys that differ only in invalid bytes are one key once repaired;
// the last wins.
func TestModesInvalidUTF8Keys(t *testing.T) {
	rec := plog.NewLogRecord()
	rec.Attributes().PutInt("k\xff", 1)
	rec.Attributes().PutInt("k\xfe", 2)
	tests := []struct {
		mode Mode
		want string
	}{
		{mode: ModeECS, want: `{"@timestamp":` + epochZero + `,"agent":{"name":"otlp"},"k` + "\ufffd" + `":2}`},
		{mode: ModeNone, want: `{"@timestamp":` + epochZero + `,"Attributes.k` + "\ufffd" + `":2,"Scope.name":"","Scope.version":"","SeverityNumber":0,"TraceFlags":0}`},
	}
	for _, tt := range tests {
		e := modeEncoder(tt.mode, pcommon.NewResource(), pcommon.NewInstrumentationScope())
		checkDoc(t, e.AppendLog(nil, rec, DataStream{}), tt.want)
		if e.Repair() != RepairInvalidUTF8 {
			t.Errorf("%v: Repair() = %q, want %q", tt.mode, e.Repair(), RepairInvalidUTF8)
		}
	}
	// A key repaired in the resource flags every document of the resource.
	res := pcommon.NewResource()
	res.Attributes().PutStr("r\xff", "v")
	e := modeEncoder(ModeRaw, res, pcommon.NewInstrumentationScope())
	e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	if e.Repair() != RepairInvalidUTF8 {
		t.Errorf("Repair() = %q, want %q", e.Repair(), RepairInvalidUTF8)
	}
}

// TestModesSwitchResource: the resource and scope of one call do not leak into the next.
func TestModesSwitchResource(t *testing.T) {
	var e Encoder
	e.SetMode(ModeRaw)
	r1 := pcommon.NewResource()
	r1.Attributes().PutStr("one", "1")
	e.SetResource(r1, "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	e.SetResource(pcommon.NewResource(), "")
	s := pcommon.NewInstrumentationScope()
	s.SetName("two")
	e.SetScope(s, "")
	got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	checkDoc(t, got, `{"@timestamp":`+epochZero+`,"Scope.name":"two","Scope.version":"","SeverityNumber":0,"TraceFlags":0}`)
}

// TestModesSteadyStateDoesNotAllocate is TestEncodeSteadyStateDoesNotAllocate for every mode.
func TestModesSteadyStateDoesNotAllocate(t *testing.T) {
	logs, wide, traces, bodies := benchLogs(1000), wideLogs(1000), benchTraces(1000), wideLogs(100)
	for _, ld := range []plog.Logs{logs, wide, bodies} {
		ld.MarkReadOnly()
	}
	traces.MarkReadOnly()
	for _, m := range []Mode{ModeECS, ModeNone, ModeRaw, ModeBodyMap} {
		tests := []struct {
			name   string
			encode func(*Encoder, []byte) []byte
		}{
			{name: "1000 logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, logs) }},
			{name: "1000 wide logs", encode: func(e *Encoder, dst []byte) []byte { return appendLogs(e, dst, wide) }},
		}
		if m.Supports(signal.Traces) {
			tests = append(tests, struct {
				name   string
				encode func(*Encoder, []byte) []byte
			}{name: "1000 spans with events", encode: func(e *Encoder, dst []byte) []byte { return appendTraces(e, dst, traces) }})
		}
		for _, tt := range tests {
			t.Run(m.String()+"/"+tt.name, func(t *testing.T) {
				var e Encoder
				e.SetMode(m)
				buf := tt.encode(&e, nil)
				allocs := testing.AllocsPerRun(10, func() {
					buf = tt.encode(&e, buf[:0])
				})
				if allocs != 0 {
					t.Errorf("encoding %s in %v allocates %v times per run, want 0", tt.name, m, allocs)
				}
			})
		}
	}
}
