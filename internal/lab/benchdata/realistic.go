// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Realistic makes records with the entropy of production telemetry, from a seed: the same seed
// gives the same records, call after call. Its resources are Kubernetes workloads (namespace,
// deployment, pod name and uid, container id, node name, service name and version), several
// per request; its log bodies are lines in the formats of real servers (Spring Boot, Go's zap,
// nginx access, Python, PostgreSQL, kubelet), with stack traces now and then, filled with random
// ids, client addresses, user ids, durations and status codes; its spans are traces of several
// services with parent links, kinds and the attributes of the semantic conventions; its metrics
// are a few hundred series per resource, several per metric. Unlike the uniform records of
// Logs, Traces and Metrics, they compress about as much as real telemetry does (the ratios are
// in docs/performance.md and TestRealisticCompresses checks their range).
//
// A Realistic is not safe for concurrent use.
type Realistic struct {
	rnd       *rand.Rand
	workloads []workload
	// Base is the time of the first record; each call moves it on, so that records of later
	// calls are later. MetricStep is how far each call of Metrics moves it (a second unless
	// set): a time series data stream takes points of the same series only at other times.
	Base       time.Time
	MetricStep time.Duration
	next       int // the workload of the next request's first resource
}

// RealisticSeed is the seed of the benchmarks' and make cost's realistic records.
const RealisticSeed = 20261204

// NewRealistic returns the realistic records of seed, starting at 2026-11-30T00:00:00Z.
func NewRealistic(seed uint64) *Realistic {
	g := &Realistic{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), Base: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
	for i := range 24 {
		g.workloads = append(g.workloads, g.newWorkload(i))
	}
	return g
}

type workload struct {
	namespace, deployment, service, version, lang, scope string
	pods                                                 []pod
	routes                                               []string
}

type pod struct{ name, uid, node, container, ip string }

var (
	namespaces  = []string{"shop", "payments", "identity", "search", "logistics", "platform"}
	components  = []string{"checkout", "cart", "orders", "payments", "fraud-check", "auth", "users", "catalog", "search-api", "recommendations", "inventory", "shipping", "notifications", "gateway", "pricing", "reviews"}
	languages   = []string{"java", "go", "python", "nginx", "java", "go", "postgres", "kubelet"}
	scopeByLang = map[string]string{"java": "org.springframework.boot", "go": "go.uber.org/zap", "python": "opentelemetry.sdk._logs", "nginx": "filelog", "postgres": "filelog", "kubelet": "filelog"}
	resources   = []string{"orders", "carts", "products", "users", "payments", "shipments", "reviews", "sessions", "invoices", "coupons"}
	userAgents  = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"okhttp/4.12.0", "python-requests/2.32.3", "Go-http-client/1.1", "kube-probe/1.31",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	}
	methods  = []string{"GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH"}
	statuses = []int{200, 200, 200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 404, 409, 429, 500, 502, 503}
	javaPkgs = []string{"com.example.shop.web", "com.example.shop.service", "com.example.shop.repository", "org.springframework.web.servlet", "org.hibernate.engine.jdbc", "com.zaxxer.hikari.pool", "io.netty.channel", "org.apache.kafka.clients.consumer"}
	javaCls  = []string{"OrderController", "CheckoutService", "PaymentClient", "InventoryRepository", "DispatcherServlet", "SqlExceptionHelper", "HikariPool", "KafkaConsumer", "CartService", "PricingEngine"}
	javaExc  = []string{"java.net.SocketTimeoutException: Read timed out", "org.springframework.dao.DataIntegrityViolationException: could not execute statement; SQL [n/a]; constraint [orders_pkey]", "java.lang.IllegalStateException: Cart is empty", "io.grpc.StatusRuntimeException: UNAVAILABLE: io exception", "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"sku\" is null", "com.zaxxer.hikari.pool.HikariPool$PoolInitializationException: Failed to initialize pool: Connection refused"}
	goFiles  = []string{"server/handler.go", "store/postgres.go", "cache/redis.go", "queue/consumer.go", "auth/jwt.go", "grpc/interceptor.go", "http/middleware.go"}
	goMsgs   = []string{"request completed", "cache miss", "retrying request", "token validated", "message processed", "slow query", "connection reset by peer", "context deadline exceeded"}
	pyMods   = []string{"payments.worker", "payments.api.views", "celery.app.trace", "sqlalchemy.engine.Engine", "urllib3.connectionpool", "fraud.model.scorer"}
	pgStmts  = []string{
		"SELECT o.id, o.status, o.total FROM orders o WHERE o.customer_id = $1 ORDER BY o.created_at DESC LIMIT 20",
		"UPDATE inventory SET reserved = reserved + $1 WHERE sku = $2 AND warehouse_id = $3",
		"INSERT INTO payments (id, order_id, amount, currency, status) VALUES ($1, $2, $3, $4, $5)",
		"SELECT count(*) FROM sessions WHERE expires_at < now()",
		"DELETE FROM carts WHERE updated_at < now() - interval '30 days'",
	}
	kubeletMsgs = []string{"\"SyncLoop (PLEG): event for pod\" pod=\"%s/%s\" event={\"ID\":\"%s\",\"Type\":\"ContainerStarted\"}", "\"Probe failed\" probeType=\"Readiness\" pod=\"%s/%s\" podUID=\"%s\" containerName=\"app\" probeResult=\"failure\" output=\"Get \\\"http://10.42.0.1:8080/ready\\\": context deadline exceeded\"", "\"Killing container with a grace period\" pod=\"%s/%s\" podUID=\"%s\" containerName=\"app\" gracePeriod=30", "\"Observed pod startup duration\" pod=\"%s/%s\" podUID=\"%s\" podStartSLOduration=4.2"}
	levels      = []struct {
		text string
		num  plog.SeverityNumber
	}{{"INFO", plog.SeverityNumberInfo}, {"INFO", plog.SeverityNumberInfo}, {"INFO", plog.SeverityNumberInfo}, {"INFO", plog.SeverityNumberInfo}, {"INFO", plog.SeverityNumberInfo}, {"DEBUG", plog.SeverityNumberDebug}, {"DEBUG", plog.SeverityNumberDebug}, {"WARN", plog.SeverityNumberWarn}, {"ERROR", plog.SeverityNumberError}}
)

func (g *Realistic) pick(s []string) string { return s[g.rnd.IntN(len(s))] }

func (g *Realistic) hexN(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rnd.Uint32())
	}
	return hex.EncodeToString(b)
}

func (g *Realistic) alnum(n int) string {
	const chars = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.rnd.IntN(len(chars))]
	}
	return string(b)
}

func (g *Realistic) uuid() string {
	h := g.hexN(16)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (g *Realistic) ipv4() string {
	return fmt.Sprintf("10.%d.%d.%d", g.rnd.IntN(64), g.rnd.IntN(256), 1+g.rnd.IntN(254))
}

func (g *Realistic) publicIP() string {
	return fmt.Sprintf("%d.%d.%d.%d", 11+g.rnd.IntN(180), g.rnd.IntN(256), g.rnd.IntN(256), 1+g.rnd.IntN(254))
}

// millis is a log-normal duration in milliseconds, median about 12 ms.
func (g *Realistic) millis() float64 {
	return math.Round(math.Exp(2.5+1.2*g.rnd.NormFloat64())*1000) / 1000
}

func (g *Realistic) newWorkload(i int) workload {
	comp := components[i%len(components)]
	w := workload{
		namespace:  namespaces[i%len(namespaces)],
		deployment: comp,
		service:    comp,
		version:    fmt.Sprintf("%d.%d.%d", 1+g.rnd.IntN(4), g.rnd.IntN(30), g.rnd.IntN(12)),
		lang:       languages[i%len(languages)],
	}
	w.scope = scopeByLang[w.lang]
	rs := g.alnum(10)
	for range 2 + g.rnd.IntN(3) {
		w.pods = append(w.pods, pod{
			name:      comp + "-" + rs + "-" + g.alnum(5),
			uid:       g.uuid(),
			node:      fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", g.rnd.IntN(64), g.rnd.IntN(256), g.rnd.IntN(256)),
			container: g.hexN(32),
			ip:        g.ipv4(),
		})
	}
	for range 6 {
		r := g.pick(resources)
		switch g.rnd.IntN(3) {
		case 0:
			w.routes = append(w.routes, "/api/v1/"+r)
		case 1:
			w.routes = append(w.routes, "/api/v1/"+r+"/{id}")
		default:
			w.routes = append(w.routes, "/api/v2/"+r+"/{id}/"+g.pick(resources))
		}
	}
	return w
}

// resourcesFor returns the workloads and pods of the resources of one request of n records:
// one per 100 records, at least 2 and at most 10 (at most n).
func (g *Realistic) resourcesFor(n int) []struct {
	w *workload
	p *pod
} {
	k := min(max(n/100, 2), 10, max(n, 1))
	out := make([]struct {
		w *workload
		p *pod
	}, k)
	for i := range out {
		w := &g.workloads[g.next%len(g.workloads)]
		g.next++
		out[i].w, out[i].p = w, &w.pods[g.rnd.IntN(len(w.pods))]
	}
	return out
}

func putResource(r pcommon.Resource, w *workload, p *pod) {
	a := r.Attributes()
	a.EnsureCapacity(14)
	a.PutStr("service.name", w.service)
	a.PutStr("service.version", w.version)
	a.PutStr("service.namespace", w.namespace)
	a.PutStr("deployment.environment.name", "production")
	a.PutStr("k8s.namespace.name", w.namespace)
	a.PutStr("k8s.deployment.name", w.deployment)
	a.PutStr("k8s.pod.name", p.name)
	a.PutStr("k8s.pod.uid", p.uid)
	a.PutStr("k8s.node.name", p.node)
	a.PutStr("k8s.container.name", "app")
	a.PutStr("container.id", p.container)
	a.PutStr("host.name", p.node)
	a.PutStr("cloud.provider", "aws")
	a.PutStr("cloud.region", "eu-west-1")
}

// split spreads n records over k resources: the first n%k get one more.
func split(n, k, i int) int {
	c := n / k
	if i < n%k {
		c++
	}
	return c
}

// Logs returns n log records over several resources, marked read-only.
func (g *Realistic) Logs(n int) plog.Logs {
	ld := plog.NewLogs()
	res := g.resourcesFor(n)
	t := g.Base
	for i, r := range res {
		rl := ld.ResourceLogs().AppendEmpty()
		putResource(rl.Resource(), r.w, r.p)
		if r.w.scope == "filelog" {
			rl.Resource().Attributes().PutStr("log.file.path", "/var/log/pods/"+r.w.namespace+"_"+r.p.name+"_"+r.p.uid+"/app/0.log")
		}
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(r.w.scope)
		c := split(n, len(res), i)
		sl.LogRecords().EnsureCapacity(c)
		for range c {
			t = t.Add(time.Duration(g.rnd.IntN(2_000_000)))
			g.logRecord(sl.LogRecords().AppendEmpty(), r.w, r.p, t)
		}
	}
	g.Base = t
	ld.MarkReadOnly()
	return ld
}

func (g *Realistic) logRecord(lr plog.LogRecord, w *workload, _ *pod, t time.Time) {
	lvl := levels[g.rnd.IntN(len(levels))]
	lr.SetTimestamp(pcommon.NewTimestampFromTime(t))
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(t.Add(time.Duration(1+g.rnd.IntN(900)) * time.Millisecond)))
	lr.SetSeverityText(lvl.text)
	lr.SetSeverityNumber(lvl.num)
	a := lr.Attributes()
	traced := g.rnd.IntN(10) < 7 && w.scope != "filelog"
	if traced {
		var tid pcommon.TraceID
		var sid pcommon.SpanID
		g.fill(tid[:])
		g.fill(sid[:])
		lr.SetTraceID(tid)
		lr.SetSpanID(sid)
		lr.SetFlags(plog.DefaultLogRecordFlags.WithIsSampled(true))
	}
	route := g.pick(w.routes)
	path := strings.ReplaceAll(route, "{id}", strconv.Itoa(100000+g.rnd.IntN(9_000_000)))
	method, status, ms := g.pick(methods), statuses[g.rnd.IntN(len(statuses))], g.millis()
	user := "u-" + strconv.Itoa(g.rnd.IntN(2_000_000))
	ts := t.Format("2006-01-02T15:04:05.000Z")
	var body string
	switch w.lang {
	case "java":
		thread := "http-nio-8080-exec-" + strconv.Itoa(1+g.rnd.IntN(200))
		cls := g.pick(javaPkgs) + "." + g.pick(javaCls)
		a.PutStr("thread.name", thread)
		a.PutStr("code.namespace", cls)
		switch {
		case lvl.num >= plog.SeverityNumberError:
			exc := g.pick(javaExc)
			var sb strings.Builder
			fmt.Fprintf(&sb, "%s ERROR 1 --- [%s] %s : Request %s %s failed for user %s after %.1f ms\n%s", ts, thread, cls, method, path, user, ms, exc)
			for range 6 + g.rnd.IntN(14) {
				fmt.Fprintf(&sb, "\n\tat %s.%s.%s(%s.java:%d)", g.pick(javaPkgs), g.pick(javaCls), g.pick([]string{"handle", "invoke", "doFilter", "process", "execute", "lambda$run$0", "apply"}), g.pick(javaCls), 20+g.rnd.IntN(800))
			}
			body = sb.String()
			a.PutStr("exception.type", strings.SplitN(exc, ":", 2)[0])
		default:
			body = fmt.Sprintf("%s %5s 1 --- [%s] %s : %s %s completed with status %d in %.3f ms (user=%s, order=%s, items=%d, total=%d.%02d EUR)", ts, lvl.text, thread, cls, method, path, status, ms, user, g.uuid(), 1+g.rnd.IntN(9), g.rnd.IntN(900), g.rnd.IntN(100))
		}
	case "go":
		body = fmt.Sprintf(`{"level":%q,"ts":%.6f,"caller":"%s:%d","msg":%q,"method":%q,"path":%q,"status":%d,"duration":%.6f,"request_id":%q,"user_id":%q,"remote_addr":"%s:%d","bytes":%d}`,
			strings.ToLower(lvl.text), float64(t.UnixNano())/1e9, g.pick(goFiles), 20+g.rnd.IntN(400), g.pick(goMsgs), method, path, status, ms/1000, g.uuid(), user, g.ipv4(), 30000+g.rnd.IntN(30000), g.rnd.IntN(60000))
		a.PutStr("http.request.method", method)
		a.PutInt("http.response.status_code", int64(status))
	case "python":
		mod := g.pick(pyMods)
		body = fmt.Sprintf("%s %s [%s] charge %s id=ch_%s amount=%d currency=%s customer=cus_%s order=%d attempt=%d elapsed=%.3fs",
			t.Format("2006-01-02 15:04:05,000"), lvl.text, mod, g.pick([]string{"succeeded", "succeeded", "succeeded", "declined", "requires_action", "failed"}), g.alnum(24), g.rnd.IntN(50000), g.pick([]string{"usd", "eur", "gbp"}), g.alnum(14), g.rnd.IntN(9_000_000), 1+g.rnd.IntN(3), ms/1000)
		if lvl.num >= plog.SeverityNumberError {
			body += "\nTraceback (most recent call last):\n  File \"/app/payments/worker.py\", line " + strconv.Itoa(40+g.rnd.IntN(300)) + ", in charge\n    resp = self.client.post(url, json=payload, timeout=5)\n  File \"/usr/local/lib/python3.12/site-packages/requests/sessions.py\", line 637, in post\n    return self.request(\"POST\", url, data=data, json=json, **kwargs)\nrequests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.psp.example', port=443): Read timed out. (read timeout=5)"
		}
		a.PutStr("code.function", g.pick([]string{"charge", "refund", "capture", "score"}))
	case "nginx":
		body = fmt.Sprintf(`%s - %s [%s] "%s %s HTTP/1.1" %d %d "%s" "%s" %.3f %.3f %s`,
			g.publicIP(), g.pick([]string{"-", "-", user}), t.Format("02/Jan/2006:15:04:05 -0700"), method, path, status, g.rnd.IntN(80000), g.pick([]string{"-", "https://shop.example.com/", "https://shop.example.com/cart"}), g.pick(userAgents), ms/1000, ms/1000*0.9, g.hexN(16))
		a.PutStr("log.iostream", "stdout")
	case "postgres":
		body = fmt.Sprintf("%s UTC [%d] %s@%s LOG:  duration: %.3f ms  statement: %s", t.Format("2006-01-02 15:04:05.000"), 1000+g.rnd.IntN(60000), g.pick([]string{"app", "app", "reporting"}), w.namespace, ms, g.pick(pgStmts))
		a.PutStr("log.iostream", "stderr")
	default: // kubelet
		target := &g.workloads[g.rnd.IntN(len(g.workloads))]
		tp := &target.pods[g.rnd.IntN(len(target.pods))]
		body = fmt.Sprintf("I%s %7d kubelet.go:%d] ", t.Format("0102 15:04:05.000000"), 2000+g.rnd.IntN(3000), 1000+g.rnd.IntN(2000)) +
			fmt.Sprintf(g.pick(kubeletMsgs), target.namespace, tp.name, tp.uid)
		a.PutStr("log.iostream", "stderr")
	}
	lr.Body().SetStr(body)
	if w.scope != "filelog" && g.rnd.IntN(2) == 0 {
		a.PutStr("user.id", user)
		a.PutStr("client.address", g.publicIP())
		a.PutStr("url.path", path)
	}
}

func (g *Realistic) fill(b []byte) {
	for i := range b {
		b[i] = byte(g.rnd.Uint32())
	}
}

// Traces returns n spans over several resources, marked read-only: traces of 3 to 12 spans
// whose root is a server span and whose children are internal, database, outgoing HTTP and
// messaging spans, with parent links.
func (g *Realistic) Traces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	res := g.resourcesFor(n)
	t := g.Base
	for i, r := range res {
		rs := td.ResourceSpans().AppendEmpty()
		putResource(rs.Resource(), r.w, r.p)
		lang := "java"
		if r.w.lang == "go" || r.w.lang == "python" {
			lang = r.w.lang
		}
		rs.Resource().Attributes().PutStr("telemetry.sdk.language", lang)
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("io.opentelemetry." + r.w.lang)
		ss.Scope().SetVersion("2.10.0")
		c := split(n, len(res), i)
		ss.Spans().EnsureCapacity(c)
		for left := c; left > 0; {
			k := min(left, 3+g.rnd.IntN(10))
			t = t.Add(time.Duration(g.rnd.IntN(5_000_000)))
			g.trace(ss.Spans(), k, r.w, r.p, t)
			left -= k
		}
	}
	g.Base = t
	td.MarkReadOnly()
	return td
}

func (g *Realistic) trace(spans ptrace.SpanSlice, k int, w *workload, _ *pod, t time.Time) {
	var tid pcommon.TraceID
	g.fill(tid[:])
	var root pcommon.SpanID
	g.fill(root[:])
	route := g.pick(w.routes)
	method := g.pick(methods)
	status := statuses[g.rnd.IntN(len(statuses))]
	total := time.Duration(g.millis() * float64(time.Millisecond) * 3)
	s := spans.AppendEmpty()
	s.SetTraceID(tid)
	s.SetSpanID(root)
	s.SetName(method + " " + route)
	s.SetKind(ptrace.SpanKindServer)
	s.SetStartTimestamp(pcommon.NewTimestampFromTime(t))
	s.SetEndTimestamp(pcommon.NewTimestampFromTime(t.Add(total)))
	a := s.Attributes()
	a.PutStr("http.request.method", method)
	a.PutStr("http.route", route)
	a.PutStr("url.path", strings.ReplaceAll(route, "{id}", strconv.Itoa(100000+g.rnd.IntN(9_000_000))))
	a.PutStr("url.scheme", "https")
	a.PutInt("http.response.status_code", int64(status))
	a.PutStr("client.address", g.publicIP())
	a.PutStr("user_agent.original", g.pick(userAgents))
	a.PutStr("server.address", w.service+"."+w.namespace+".svc.cluster.local")
	a.PutInt("server.port", 8080)
	a.PutStr("network.protocol.version", "1.1")
	if status >= 500 {
		s.Status().SetCode(ptrace.StatusCodeError)
	}
	s.TraceState().FromRaw("")
	for j := 1; j < k; j++ {
		c := spans.AppendEmpty()
		c.SetTraceID(tid)
		var sid pcommon.SpanID
		g.fill(sid[:])
		c.SetSpanID(sid)
		c.SetParentSpanID(root)
		start := t.Add(time.Duration(g.rnd.Int64N(int64(total)/2 + 1)))
		c.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		c.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(g.millis() * float64(time.Millisecond)))))
		ca := c.Attributes()
		switch g.rnd.IntN(4) {
		case 0:
			stmt := g.pick(pgStmts)
			c.SetName(strings.SplitN(stmt, " ", 2)[0] + " shop." + g.pick(resources))
			c.SetKind(ptrace.SpanKindClient)
			ca.PutStr("db.system.name", "postgresql")
			ca.PutStr("db.namespace", "shop")
			ca.PutStr("db.query.text", stmt)
			ca.PutStr("server.address", "postgres-primary.data.svc.cluster.local")
			ca.PutInt("server.port", 5432)
		case 1:
			peer := g.workloads[g.rnd.IntN(len(g.workloads))]
			m := g.pick(methods)
			c.SetName(m)
			c.SetKind(ptrace.SpanKindClient)
			ca.PutStr("http.request.method", m)
			ca.PutStr("url.full", "http://"+peer.service+"."+peer.namespace+".svc.cluster.local:8080"+strings.ReplaceAll(g.pick(peer.routes), "{id}", strconv.Itoa(g.rnd.IntN(9_000_000))))
			ca.PutInt("http.response.status_code", int64(statuses[g.rnd.IntN(len(statuses))]))
			ca.PutStr("server.address", peer.service+"."+peer.namespace+".svc.cluster.local")
		case 2:
			c.SetName(g.pick(resources) + " publish")
			c.SetKind(ptrace.SpanKindProducer)
			ca.PutStr("messaging.system", "kafka")
			ca.PutStr("messaging.destination.name", w.namespace+"."+g.pick(resources)+".events")
			ca.PutStr("messaging.message.id", g.uuid())
			ca.PutInt("messaging.destination.partition.id", int64(g.rnd.IntN(12)))
		default:
			c.SetName(g.pick(javaCls) + "." + g.pick([]string{"handle", "validate", "price", "reserve", "render"}))
			c.SetKind(ptrace.SpanKindInternal)
			ca.PutStr("code.function.name", g.pick(javaCls)+"."+g.pick([]string{"handle", "validate", "price", "reserve"}))
			ca.PutInt("app.items", int64(1+g.rnd.IntN(20)))
			ca.PutStr("app.user.id", "u-"+strconv.Itoa(g.rnd.IntN(2_000_000)))
		}
		if g.rnd.IntN(50) == 0 {
			c.Status().SetCode(ptrace.StatusCodeError)
			c.Status().SetMessage(g.pick(javaExc))
		}
	}
}

// metric is one metric of a resource's set: its name, unit, type and the attribute values of
// its series. Each metric has attribute keys of its own, so that no two metrics' points share
// a document (one document per data point, as costbench counts them).
type metric struct {
	name, unit string
	kind       pmetric.MetricType
	keys       []string
	values     [][]string
}

// metricSet is the series of one resource: about 300, several per metric.
func metricSet() []metric {
	cpus := []string{"0", "1", "2", "3", "4", "5", "6", "7"}
	return []metric{
		{"http.server.request.duration", "s", pmetric.MetricTypeHistogram, []string{"http.request.method", "http.route", "http.response.status_code"}, [][]string{{"GET", "POST", "PUT", "DELETE"}, {"/api/v1/orders", "/api/v1/orders/{id}", "/api/v1/carts/{id}", "/api/v2/products/{id}/reviews", "/healthz"}, {"200", "201", "404", "500"}}},
		{"http.client.request.duration", "s", pmetric.MetricTypeHistogram, []string{"server.address", "http.request.method"}, [][]string{{"payments.payments.svc", "inventory.logistics.svc", "pricing.shop.svc", "auth.identity.svc"}, {"GET", "POST"}}},
		{"system.cpu.time", "s", pmetric.MetricTypeSum, []string{"cpu.logical_number", "cpu.mode"}, [][]string{cpus, {"user", "system", "idle", "iowait", "steal"}}},
		{"system.cpu.utilization", "1", pmetric.MetricTypeGauge, []string{"cpu", "state"}, [][]string{cpus, {"user", "system", "idle"}}},
		{"system.memory.usage", "By", pmetric.MetricTypeSum, []string{"system.memory.state"}, [][]string{{"used", "free", "cached", "buffered"}}},
		{"system.network.io", "By", pmetric.MetricTypeSum, []string{"network.interface.name", "network.io.direction"}, [][]string{{"eth0", "eth1", "lo", "cni0"}, {"transmit", "receive"}}},
		{"system.disk.operations", "{operation}", pmetric.MetricTypeSum, []string{"system.device", "disk.io.direction"}, [][]string{{"nvme0n1", "nvme1n1", "xvda"}, {"read", "write"}}},
		{"jvm.memory.used", "By", pmetric.MetricTypeGauge, []string{"jvm.memory.type", "jvm.memory.pool.name"}, [][]string{{"heap", "non_heap"}, {"G1 Eden Space", "G1 Old Gen", "G1 Survivor Space", "Metaspace", "CodeCache", "Compressed Class Space"}}},
		{"jvm.gc.duration", "s", pmetric.MetricTypeHistogram, []string{"jvm.gc.name", "jvm.gc.action"}, [][]string{{"G1 Young Generation", "G1 Old Generation"}, {"end of minor GC", "end of major GC"}}},
		{"jvm.thread.count", "{thread}", pmetric.MetricTypeSum, []string{"jvm.thread.daemon", "jvm.thread.state"}, [][]string{{"true", "false"}, {"runnable", "blocked", "waiting", "timed_waiting"}}},
		{"db.client.connection.count", "{connection}", pmetric.MetricTypeSum, []string{"db.client.connection.pool.name", "db.client.connection.state"}, [][]string{{"HikariPool-1", "HikariPool-2", "reporting"}, {"idle", "used"}}},
		{"messaging.client.consumed.messages", "{message}", pmetric.MetricTypeSum, []string{"messaging.destination.name", "messaging.destination.partition.id"}, [][]string{{"shop.orders.events", "shop.payments.events", "logistics.shipments.events"}, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}},
		{"k8s.container.cpu_limit_utilization", "1", pmetric.MetricTypeGauge, []string{"k8s.container.name"}, [][]string{{"app", "istio-proxy", "log-shipper"}}},
		{"rpc.server.duration", "ms", pmetric.MetricTypeHistogram, []string{"rpc.service", "rpc.method", "rpc.grpc.status_code"}, [][]string{{"shop.v1.CartService", "shop.v1.PricingService"}, {"Get", "Add", "Remove", "Quote"}, {"0", "4", "14"}}},
		{"app.cache.requests", "{request}", pmetric.MetricTypeSum, []string{"cache.name", "cache.result"}, [][]string{{"products", "prices", "sessions", "carts", "users"}, {"hit", "miss"}}},
		{"process.open_file_descriptor.count", "{file_descriptor}", pmetric.MetricTypeSum, []string{"process.executable.name"}, [][]string{{"java"}}},
		{"process.uptime", "s", pmetric.MetricTypeGauge, nil, nil},
	}
}

// series counts the series of m.
func (m metric) series() int {
	n := 1
	for _, v := range m.values {
		n *= len(v)
	}
	return n
}

// Metrics returns n data points over resources of about 300 series each (the last may be cut
// short), each point its own document, all at one timestamp (moved on by a second from the
// last call), marked read-only.
func (g *Realistic) Metrics(n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	set := metricSet()
	step := g.MetricStep
	if step == 0 {
		step = time.Second
	}
	g.Base = g.Base.Add(step)
	ts := pcommon.NewTimestampFromTime(g.Base)
	start := pcommon.NewTimestampFromTime(g.Base.Add(-time.Hour))
	for left := n; left > 0; {
		w := &g.workloads[g.next%len(g.workloads)]
		g.next++
		rm := md.ResourceMetrics().AppendEmpty()
		putResource(rm.Resource(), w, &w.pods[g.rnd.IntN(len(w.pods))])
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver")
		for _, m := range set {
			if left == 0 {
				break
			}
			pm := sm.Metrics().AppendEmpty()
			pm.SetName(m.name)
			pm.SetUnit(m.unit)
			for s := range min(m.series(), left) {
				var attrs pcommon.Map
				switch m.kind {
				case pmetric.MetricTypeGauge:
					if pm.Type() == pmetric.MetricTypeEmpty {
						pm.SetEmptyGauge()
					}
					dp := pm.Gauge().DataPoints().AppendEmpty()
					dp.SetTimestamp(ts)
					dp.SetDoubleValue(math.Round(g.rnd.Float64()*1e6) / 1e4)
					attrs = dp.Attributes()
				case pmetric.MetricTypeSum:
					if pm.Type() == pmetric.MetricTypeEmpty {
						pm.SetEmptySum().SetIsMonotonic(m.unit != "By" && !strings.HasSuffix(m.name, ".count"))
						pm.Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
					}
					dp := pm.Sum().DataPoints().AppendEmpty()
					dp.SetStartTimestamp(start)
					dp.SetTimestamp(ts)
					dp.SetIntValue(g.rnd.Int64N(1 << 40))
					attrs = dp.Attributes()
				default:
					if pm.Type() == pmetric.MetricTypeEmpty {
						pm.SetEmptyHistogram().SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
					}
					dp := pm.Histogram().DataPoints().AppendEmpty()
					dp.SetStartTimestamp(pcommon.NewTimestampFromTime(g.Base.Add(-10 * time.Second)))
					dp.SetTimestamp(ts)
					bounds := []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
					dp.ExplicitBounds().FromRaw(bounds)
					counts := make([]uint64, len(bounds)+1)
					var total uint64
					for b := range counts {
						counts[b] = uint64(g.rnd.IntN(400) >> b)
						total += counts[b]
					}
					dp.BucketCounts().FromRaw(counts)
					dp.SetCount(total)
					dp.SetSum(float64(total) * g.millis() / 1000)
					attrs = dp.Attributes()
				}
				rest := s
				for k, key := range m.keys {
					vals := m.values[k]
					attrs.PutStr(key, vals[rest%len(vals)])
					rest /= len(vals)
				}
				left--
			}
		}
	}
	md.MarkReadOnly()
	return md
}
