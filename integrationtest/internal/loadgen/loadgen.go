// Package loadgen sends synthetic logs, traces, metrics and profiles to an OTLP/HTTP endpoint
// (protobuf), for the end-to-end tests and the demo. Every resource, record and data point
// carries the run id in the attribute loadgen.run_id, so a test can count exactly what one run
// sent; a profile carries it on its resource, which every event of the profile copies.
//
// Metric data points are made so that the number of documents the exporter writes for them is
// known in advance (see [MetricDocuments]): the exporter puts the data points that share the
// resource, the scope, the data point attributes, the unit and the timestamps (in
// milliseconds) into one document, and the generator makes each such group hold
// [MetricsPerDocument] data points of different metrics, one of each of [MetricNames].
package loadgen // import "github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// RunIDAttribute is the attribute that carries the run id, on each resource and each log
// record, span, span event and metric data point (profiles: on the resource only).
const RunIDAttribute = "loadgen.run_id"

// ScopeName is the instrumentation scope of everything the generator sends.
const ScopeName = "github.com/otelcol-es/elasticsearchexporter/integrationtest/loadgen"

// Config says what to send and where.
type Config struct {
	Endpoint  string // base URL of the OTLP/HTTP receiver, e.g. http://127.0.0.1:4318
	Logs      int    // log records to send
	Spans     int    // spans to send; each has one span event
	Metrics   int    // metric data points to send
	Profiles  int    // profile samples to send, one event each; see profiles.go
	Batch     int    // records (log records, spans, data points or samples) per request; see Run for metrics
	RunID     string // value of loadgen.run_id; see NewRunID
	Dataset   string // data_stream.dataset resource attribute, when not empty
	Namespace string // data_stream.namespace resource attribute, when not empty
	Service   string // service.name resource attribute

	// Attempts is how many times a request is tried when the receiver refuses the connection
	// or answers 429 or 5xx (the collector may still be starting); RetryWait is the first wait
	// between attempts, doubled each time up to 5 s.
	Attempts  int
	RetryWait time.Duration
	Timeout   time.Duration // deadline of each request

	// Log, when set, receives one line per retried request.
	Log func(format string, args ...any)
}

// DefaultConfig returns the defaults of the command line.
func DefaultConfig() Config {
	return Config{
		Endpoint:  "http://127.0.0.1:4318",
		Batch:     500,
		Service:   "loadgen",
		Attempts:  10,
		RetryWait: 250 * time.Millisecond,
		Timeout:   30 * time.Second,
	}
}

// Result is what a run delivered.
type Result struct {
	RunID           string
	Logs            int
	Spans           int
	SpanEvents      int
	DataPoints      int // metric data points
	MetricDocs      int // documents the exporter makes of DataPoints; see MetricDocuments
	Samples         int // profile samples
	LogRequests     int
	TraceRequests   int
	MetricRequests  int
	ProfileRequests int
	Retries         int
	Elapsed         time.Duration
}

func (r Result) String() string {
	p := ProfileDocumentsOf(r.Samples)
	return fmt.Sprintf("run %s: sent %d log records in %d requests, %d spans with %d span events in %d requests, "+
		"%d metric data points (%d documents expected) in %d requests, %d profile samples (%d events, %d stack traces, "+
		"%d stack frames, %d executables, %d hosts expected) in %d requests (%d retries) in %s",
		r.RunID, r.Logs, r.LogRequests, r.Spans, r.SpanEvents, r.TraceRequests,
		r.DataPoints, r.MetricDocs, r.MetricRequests, r.Samples, p.Events, p.Stacktraces, p.Stackframes, p.Executables, p.Hosts,
		r.ProfileRequests, r.Retries, r.Elapsed.Round(time.Millisecond))
}

// NewRunID returns a short random id of lower-case letters and digits, usable in a data
// stream name.
func NewRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b [10]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// Run sends cfg.Logs log records, cfg.Spans spans, cfg.Metrics metric data points and
// cfg.Profiles profile samples, in this order. A metrics request holds cfg.Batch data points rounded up to a multiple of
// MetricsPerDocument, so that the data points of one document never travel in two requests.
// Run stops at the first request that cannot be delivered and returns what was delivered
// until then together with the error.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if cfg.Batch <= 0 {
		return Result{}, errors.New("batch must be positive")
	}
	if cfg.Logs < 0 || cfg.Spans < 0 || cfg.Metrics < 0 || cfg.Profiles < 0 {
		return Result{}, errors.New("the numbers of logs, spans, data points and samples must not be negative")
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 1
	}
	if cfg.RunID == "" {
		cfg.RunID = NewRunID()
	}
	cfg.Endpoint = strings.TrimRight(cfg.Endpoint, "/")
	g := &generator{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}, now: time.Now()}
	_, _ = rand.Read(g.traceBase[:])
	defer g.client.CloseIdleConnections()
	res.RunID = cfg.RunID
	t0 := time.Now()
	defer func() { res.Elapsed = time.Since(t0) }()

	for sent := 0; sent < cfg.Logs; {
		n := min(cfg.Batch, cfg.Logs-sent)
		body, err := plogotlp.NewExportRequestFromLogs(g.logs(sent, n)).MarshalProto()
		if err != nil {
			return res, fmt.Errorf("encoding logs: %w", err)
		}
		retries, err := g.post(ctx, "/v1/logs", body, n)
		res.Retries += retries
		if err != nil {
			return res, fmt.Errorf("logs %d-%d: %w", sent, sent+n-1, err)
		}
		sent += n
		res.Logs, res.LogRequests = sent, res.LogRequests+1
	}
	for sent := 0; sent < cfg.Spans; {
		n := min(cfg.Batch, cfg.Spans-sent)
		body, err := ptraceotlp.NewExportRequestFromTraces(g.traces(sent, n)).MarshalProto()
		if err != nil {
			return res, fmt.Errorf("encoding traces: %w", err)
		}
		retries, err := g.post(ctx, "/v1/traces", body, n)
		res.Retries += retries
		if err != nil {
			return res, fmt.Errorf("spans %d-%d: %w", sent, sent+n-1, err)
		}
		sent += n
		res.Spans, res.SpanEvents, res.TraceRequests = sent, sent, res.TraceRequests+1
	}
	batch := (cfg.Batch + MetricsPerDocument - 1) / MetricsPerDocument * MetricsPerDocument
	for sent := 0; sent < cfg.Metrics; {
		n := min(batch, cfg.Metrics-sent)
		body, err := pmetricotlp.NewExportRequestFromMetrics(g.metrics(sent, n)).MarshalProto()
		if err != nil {
			return res, fmt.Errorf("encoding metrics: %w", err)
		}
		retries, err := g.post(ctx, "/v1/metrics", body, n)
		res.Retries += retries
		if err != nil {
			return res, fmt.Errorf("metric data points %d-%d: %w", sent, sent+n-1, err)
		}
		sent += n
		res.DataPoints, res.MetricDocs, res.MetricRequests = sent, MetricDocuments(sent), res.MetricRequests+1
	}
	for sent := 0; sent < cfg.Profiles; {
		n := min(cfg.Batch, cfg.Profiles-sent)
		body, err := pprofileotlp.NewExportRequestFromProfiles(g.profiles(sent, n)).MarshalProto()
		if err != nil {
			return res, fmt.Errorf("encoding profiles: %w", err)
		}
		// Partial success counts profiles: one per request.
		retries, err := g.post(ctx, ProfilesPath, body, 1)
		res.Retries += retries
		if err != nil {
			return res, fmt.Errorf("profile samples %d-%d: %w", sent, sent+n-1, err)
		}
		sent += n
		res.Samples, res.ProfileRequests = sent, res.ProfileRequests+1
	}
	return res, nil
}

// ProfilesPath is the OTLP/HTTP path of profiles (development: the receiver serves it with
// the collector's feature gate service.profilesSupport).
const ProfilesPath = "/v1development/profiles"

type generator struct {
	cfg       Config
	client    *http.Client
	traceBase [12]byte  // random first bytes of this run's trace ids
	now       time.Time // start of the run; the metrics' timeline ends here
}

func (g *generator) resource(r pcommon.Resource) {
	a := r.Attributes()
	g.service(a)
	if g.cfg.Dataset != "" {
		a.PutStr("data_stream.dataset", g.cfg.Dataset)
	}
	if g.cfg.Namespace != "" {
		a.PutStr("data_stream.namespace", g.cfg.Namespace)
	}
}

// service puts the attributes every resource has: the service, its host and the run id.
func (g *generator) service(a pcommon.Map) {
	a.PutStr("service.name", g.cfg.Service)
	a.PutStr("service.version", "1.4.2")
	a.PutStr("deployment.environment.name", "demo")
	a.PutStr("host.name", "loadgen-host")
	a.PutStr(RunIDAttribute, g.cfg.RunID)
}

func scope(s pcommon.InstrumentationScope) {
	s.SetName(ScopeName)
	s.SetVersion("0.1.0")
}

var (
	routes   = []string{"/api/orders", "/api/orders/{id}", "/api/cart", "/api/users/{id}", "/healthz"}
	methods  = []string{"GET", "GET", "POST", "GET", "GET"}
	statuses = []int64{200, 200, 201, 200, 200, 200, 404, 200, 500, 200}
)

// ids returns the trace id and span id of request i of this run: span i and log record i
// share them, so a log record belongs to the span of the same number.
func (g *generator) ids(i int) (pcommon.TraceID, pcommon.SpanID) {
	var tid pcommon.TraceID
	var sid pcommon.SpanID
	copy(tid[:], g.traceBase[:])
	binary.BigEndian.PutUint32(tid[12:], uint32(i)+1)
	copy(sid[:4], g.traceBase[:4])
	binary.BigEndian.PutUint32(sid[4:], uint32(i)+1)
	return tid, sid
}

func (g *generator) logs(first, n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	g.resource(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	scope(sl.Scope())
	recs := sl.LogRecords()
	recs.EnsureCapacity(n)
	now := time.Now()
	for i := first; i < first+n; i++ {
		r := recs.AppendEmpty()
		ts := now.Add(time.Duration(i-first-n) * time.Millisecond)
		r.SetTimestamp(pcommon.NewTimestampFromTime(ts))
		r.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
		k := i % len(routes)
		status := statuses[i%len(statuses)]
		dur := 3 + (i*37)%250
		switch {
		case status >= 500:
			r.SetSeverityNumber(plog.SeverityNumberError)
			r.SetSeverityText("ERROR")
			r.Body().SetStr(fmt.Sprintf("%s %s failed with %d after %dms: upstream inventory service unavailable", methods[k], routes[k], status, dur))
		case status >= 400:
			r.SetSeverityNumber(plog.SeverityNumberWarn)
			r.SetSeverityText("WARN")
			r.Body().SetStr(fmt.Sprintf("%s %s answered %d in %dms", methods[k], routes[k], status, dur))
		default:
			r.SetSeverityNumber(plog.SeverityNumberInfo)
			r.SetSeverityText("INFO")
			r.Body().SetStr(fmt.Sprintf("%s %s answered %d in %dms", methods[k], routes[k], status, dur))
		}
		tid, sid := g.ids(i)
		r.SetTraceID(tid)
		r.SetSpanID(sid)
		a := r.Attributes()
		a.PutStr(RunIDAttribute, g.cfg.RunID)
		a.PutInt("loadgen.seq", int64(i))
		a.PutStr("http.request.method", methods[k])
		a.PutStr("http.route", routes[k])
		a.PutInt("http.response.status_code", status)
		a.PutDouble("http.server.duration_ms", float64(dur)+0.25)
		a.PutBool("cache.hit", i%3 == 0)
	}
	return ld
}

func (g *generator) traces(first, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	g.resource(rs.Resource())
	ss := rs.ScopeSpans().AppendEmpty()
	scope(ss.Scope())
	spans := ss.Spans()
	spans.EnsureCapacity(n)
	now := time.Now()
	for i := first; i < first+n; i++ {
		sp := spans.AppendEmpty()
		k := i % len(routes)
		status := statuses[i%len(statuses)]
		dur := time.Duration(3+(i*37)%250) * time.Millisecond
		end := now.Add(time.Duration(i-first-n) * time.Millisecond)
		start := end.Add(-dur)
		tid, sid := g.ids(i)
		sp.SetTraceID(tid)
		sp.SetSpanID(sid)
		sp.SetName(methods[k] + " " + routes[k])
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(end))
		a := sp.Attributes()
		a.PutStr(RunIDAttribute, g.cfg.RunID)
		a.PutInt("loadgen.seq", int64(i))
		a.PutStr("http.request.method", methods[k])
		a.PutStr("http.route", routes[k])
		a.PutInt("http.response.status_code", status)
		ev := sp.Events().AppendEmpty()
		ev.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(dur / 2)))
		ea := ev.Attributes()
		ea.PutStr(RunIDAttribute, g.cfg.RunID)
		ea.PutInt("loadgen.seq", int64(i))
		if status >= 500 {
			sp.Status().SetCode(ptrace.StatusCodeError)
			sp.Status().SetMessage("upstream inventory service unavailable")
			ev.SetName("exception")
			ea.PutStr("exception.type", "InventoryUnavailableError")
			ea.PutStr("exception.message", "upstream inventory service unavailable")
		} else {
			sp.Status().SetCode(ptrace.StatusCodeOk)
			ev.SetName("cache.lookup")
			ea.PutBool("cache.hit", i%3 == 0)
		}
	}
	return td
}

// post sends one request, retrying while the receiver is not reachable or answers 429 or
// 5xx. It returns the number of retries.
func (g *generator) post(ctx context.Context, path string, body []byte, records int) (int, error) {
	wait := g.cfg.RetryWait
	var last error
	for attempt := 1; ; attempt++ {
		retryable, err := g.postOnce(ctx, path, body, records)
		if err == nil {
			return attempt - 1, nil
		}
		last = err
		if !retryable || attempt >= g.cfg.Attempts {
			break
		}
		if g.cfg.Log != nil {
			g.cfg.Log("attempt %d/%d of POST %s failed (%v); retrying in %s", attempt, g.cfg.Attempts, path, err, wait)
		}
		select {
		case <-ctx.Done():
			return attempt - 1, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
	return g.cfg.Attempts - 1, fmt.Errorf("POST %s%s: %w", g.cfg.Endpoint, path, last)
}

func (g *generator) postOnce(ctx context.Context, path string, body []byte, records int) (retryable bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.cfg.Endpoint+path, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := g.client.Do(req)
	if err != nil {
		// Only a refused connection is retried: the request cannot have reached the receiver,
		// so a retry cannot deliver its records twice.
		if errors.Is(err, syscall.ECONNREFUSED) {
			return true, fmt.Errorf("receiver not reachable: %w", err)
		}
		return false, err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusOK:
		return false, checkPartialSuccess(path, rb, records)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("HTTP %d: %s", resp.StatusCode, message(resp.Header, rb))
	default:
		return false, fmt.Errorf("HTTP %d: %s", resp.StatusCode, message(resp.Header, rb))
	}
}

// checkPartialSuccess fails when the receiver says it rejected some of the records.
func checkPartialSuccess(path string, body []byte, records int) error {
	var rejected int64
	var msg string
	// An empty or unreadable answer with 200 means accepted.
	switch {
	case strings.HasSuffix(path, "/v1/logs"):
		r := plogotlp.NewExportResponse()
		if err := r.UnmarshalProto(body); err != nil {
			return nil
		}
		rejected, msg = r.PartialSuccess().RejectedLogRecords(), r.PartialSuccess().ErrorMessage()
	case strings.HasSuffix(path, "/v1/metrics"):
		r := pmetricotlp.NewExportResponse()
		if err := r.UnmarshalProto(body); err != nil {
			return nil
		}
		rejected, msg = r.PartialSuccess().RejectedDataPoints(), r.PartialSuccess().ErrorMessage()
	case strings.HasSuffix(path, ProfilesPath):
		r := pprofileotlp.NewExportResponse()
		if err := r.UnmarshalProto(body); err != nil {
			return nil
		}
		rejected, msg = r.PartialSuccess().RejectedProfiles(), r.PartialSuccess().ErrorMessage()
	default:
		r := ptraceotlp.NewExportResponse()
		if err := r.UnmarshalProto(body); err != nil {
			return nil
		}
		rejected, msg = r.PartialSuccess().RejectedSpans(), r.PartialSuccess().ErrorMessage()
	}
	if rejected > 0 {
		return fmt.Errorf("the receiver rejected %d of %d records: %s", rejected, records, msg)
	}
	return nil
}

// message returns the text of an error answer: OTLP/HTTP sends a google.rpc.Status in
// protobuf, which is shown as its printable bytes.
func message(h http.Header, body []byte) string {
	if len(body) == 0 {
		return "(empty body)"
	}
	if strings.Contains(h.Get("Content-Type"), "protobuf") {
		var sb strings.Builder
		for _, c := range string(body) {
			if c >= 0x20 && c < 0x7f {
				sb.WriteRune(c)
			}
		}
		return strings.TrimSpace(sb.String())
	}
	if len(body) > 500 {
		body = body[:500]
	}
	return strings.TrimSpace(string(body))
}
