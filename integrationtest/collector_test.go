package integrationtest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	elasticsearchexporter "github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"
)

// TestCollectorEndToEnd runs the otelcol-es binary with a YAML configuration, sends logs,
// traces and metrics through its OTLP/HTTP receiver with the load generator, and checks that
// every record and data point arrives in Elasticsearch exactly once and that the collector
// shuts down cleanly.
//
// It needs the binary (OTELCOL_BIN, default <repo>/.bin/otelcol-es, built by
// scripts/build-collector.sh) and a node (see package estest).
func TestCollectorEndToEnd(t *testing.T) {
	const (
		records         = 500 // log records, and spans (each span has one event)
		points          = 998 // metric data points: 249 documents of 4 and one of 2
		batch           = 100 // records or data points per OTLP request
		arrivalTimeout  = 60 * time.Second
		shutdownTimeout = 30 * time.Second
	)

	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)
	loadgenBin := buildLoadgen(t)

	runID := loadgen.NewRunID()
	dataset := "e2e_" + runID
	httpAddr := freeAddr(t)
	grpcAddr := freeAddr(t)
	cfgPath := writeCollectorConfig(t, es.Config, grpcAddr, httpAddr)

	col := startCollector(t, bin, cfgPath, collectorEnv(es.Config))
	col.waitListening(t, httpAddr)

	// Send.
	sendStart := time.Now()
	out, err := exec.Command(loadgenBin,
		"-endpoint", "http://"+httpAddr,
		"-logs", strconv.Itoa(records), "-spans", strconv.Itoa(records), "-metrics", strconv.Itoa(points),
		"-batch", strconv.Itoa(batch),
		"-run-id", runID, "-dataset", dataset, "-service", "e2e-test",
	).CombinedOutput()
	require.NoError(t, err, "loadgen failed:\n%s", out)
	sendEnd := time.Now()
	t.Logf("%s", strings.TrimSpace(string(out)))
	metricDocs := loadgen.MetricDocuments(points)
	require.Contains(t, string(out), fmt.Sprintf("%d metric data points (%d documents expected)", points, metricDocs))

	// Wait until everything is searchable.
	logsIdx := "logs-" + dataset + ".otel-*"
	tracesIdx := "traces-" + dataset + ".otel-*"
	metricsIdx := "metrics-" + dataset + ".otel-*"
	byRun := estest.TermQuery("resource.attributes."+loadgen.RunIDAttribute, runID)
	logRecords := boolQuery(runID, false)
	spanEvents := boolQuery(runID, true)
	var nLogs, nEvents, nSpans, nMetricDocs int
	t0 := time.Now()
	for {
		es.Refresh(t, logsIdx+","+tracesIdx+","+metricsIdx)
		nLogs = es.CountQuery(t, logsIdx, logRecords)
		nEvents = es.CountQuery(t, logsIdx, spanEvents)
		nSpans = es.CountQuery(t, tracesIdx, byRun)
		nMetricDocs = es.CountQuery(t, metricsIdx, byRun)
		if nLogs >= records && nEvents >= records && nSpans >= records && nMetricDocs >= metricDocs {
			break
		}
		if time.Since(t0) > arrivalTimeout || col.exited() {
			col.dump(t)
			t.Fatalf("after %s: %d of %d log records, %d of %d span events, %d of %d spans, %d of %d metric documents in Elasticsearch (collector exited: %v)",
				time.Since(t0).Round(time.Second), nLogs, records, nEvents, records, nSpans, records, nMetricDocs, metricDocs, col.exited())
		}
		time.Sleep(time.Second)
	}
	t.Logf("all %d log records, %d span events, %d spans and %d metric documents searchable %s after loadgen finished",
		nLogs, nEvents, nSpans, nMetricDocs, time.Since(t0).Round(100*time.Millisecond))
	assert.Equal(t, records, nLogs, "log records in %s", logsIdx)
	assert.Equal(t, records, nEvents, "span events in %s", logsIdx)
	assert.Equal(t, records, nSpans, "spans in %s", tracesIdx)
	assert.Equal(t, 2*records, es.Count(t, logsIdx), "documents in %s (log records + span events)", logsIdx)
	assert.Equal(t, metricDocs, nMetricDocs, "metric documents in %s", metricsIdx)
	assert.Equal(t, metricDocs, es.Count(t, metricsIdx), "documents in %s", metricsIdx)

	// One document of each kind: the first record the generator made (seq 0).
	first := func(index string, query map[string]any) map[string]any {
		t.Helper()
		q := map[string]any{"query": map[string]any{"bool": map[string]any{"filter": []any{
			query["query"], map[string]any{"term": map[string]any{"attributes.loadgen.seq": 0}},
		}}}}
		hits := es.Search(t, index, q)
		require.Len(t, hits, 1, "documents with attributes.loadgen.seq=0 in %s", index)
		return hits[0]
	}
	logDoc := first(logsIdx, logRecords)
	eventDoc := first(logsIdx, spanEvents)
	spanDoc := first(tracesIdx, byRun)

	for kind, doc := range map[string]map[string]any{"log record": logDoc, "span event": eventDoc, "span": spanDoc} {
		assert.Equal(t, runID, field(doc, "resource", "attributes", loadgen.RunIDAttribute), "%s: resource.attributes.loadgen.run_id", kind)
		assert.Equal(t, runID, field(doc, "attributes", loadgen.RunIDAttribute), "%s: attributes.loadgen.run_id", kind)
		assert.Equal(t, "e2e-test", field(doc, "resource", "attributes", "service.name"), "%s: resource.attributes.service.name", kind)
		// In mapping mode otel the dataset of the document, like the data stream name, ends in .otel.
		assert.Equal(t, dataset+".otel", field(doc, "data_stream", "dataset"), "%s: data_stream.dataset", kind)
		assert.Equal(t, "default", field(doc, "data_stream", "namespace"), "%s: data_stream.namespace", kind)
		assert.Equal(t, loadgen.ScopeName, field(doc, "scope", "name"), "%s: scope.name", kind)
		assert.Regexp(t, `^[0-9a-f]{32}$`, field(doc, "trace_id"), "%s: trace_id", kind)
		assert.Nil(t, field(doc, "resource", "attributes", "data_stream.dataset"), "%s: the routing attribute is not stored", kind)
	}
	assert.Equal(t, "logs", field(logDoc, "data_stream", "type"))
	assert.Equal(t, "GET /api/orders answered 200 in 3ms", field(logDoc, "body", "text"))
	assert.Equal(t, "INFO", field(logDoc, "severity_text"))
	assert.EqualValues(t, 9, field(logDoc, "severity_number"))
	assert.EqualValues(t, 200, field(logDoc, "attributes", "http.response.status_code"))

	assert.Equal(t, "traces", field(spanDoc, "data_stream", "type"))
	assert.Equal(t, "GET /api/orders", field(spanDoc, "name"))
	assert.Equal(t, "Server", field(spanDoc, "kind"))
	assert.EqualValues(t, 3_000_000, field(spanDoc, "duration"), "duration in nanoseconds")
	// Log record 0 was made within span 0.
	assert.Equal(t, field(spanDoc, "trace_id"), field(logDoc, "trace_id"))
	assert.Equal(t, field(spanDoc, "span_id"), field(logDoc, "span_id"))

	assert.Equal(t, "logs", field(eventDoc, "data_stream", "type"))
	assert.Equal(t, "cache.lookup", field(eventDoc, "event_name"))
	assert.Equal(t, field(spanDoc, "trace_id"), field(eventDoc, "trace_id"), "span event: trace_id of its span")
	assert.Equal(t, field(spanDoc, "span_id"), field(eventDoc, "span_id"), "span event: span_id of its span")

	checkMetrics(t, es, metricsIdx, runID, dataset, points, metricDocs, sendStart, sendEnd)

	col.stopCleanly(t, shutdownTimeout)
}

// checkMetrics checks the metric documents of a run: together they hold every data point
// sent, once; the first document of route /api/orders has the generator's values and fields;
// and each metric is mapped with the dynamic template the exporter named.
func checkMetrics(t *testing.T, es *estest.Client, index, runID, dataset string, points, docs int, sendStart, sendEnd time.Time) {
	t.Helper()
	byRun := map[string]any{"term": map[string]any{"resource.attributes." + loadgen.RunIDAttribute: runID}}

	// Every data point, once: the documents' metrics objects hold points keys in all.
	all := es.SearchNumbers(t, index, map[string]any{
		"size": docs + 10, "_source": []string{"metrics"}, "query": byRun,
	})
	require.Len(t, all, docs, "metric documents of the run in %s", index)
	keys := 0
	for _, doc := range all {
		m, ok := doc["metrics"].(map[string]any)
		require.True(t, ok, "a document without a metrics object: %v", doc)
		keys += len(m)
	}
	assert.Equal(t, points, keys, "data points: keys of metrics summed over the %d documents", docs)
	t.Logf("metrics: %d documents in %s hold %d data points (loadgen: %d data points, %d documents expected)",
		len(all), index, keys, points, docs)

	// The first sample of route /api/orders is document 0 of the generator.
	hits := es.SearchNumbers(t, index, map[string]any{
		"size": 1,
		"sort": []any{map[string]any{"@timestamp": "asc"}},
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			byRun, map[string]any{"term": map[string]any{"attributes.http.route": "/api/orders"}},
		}}},
	})
	require.Len(t, hits, 1)
	doc := hits[0]
	count, estimated, active, queue := loadgen.MetricValues(0)
	want := map[string]any{
		loadgen.MetricRequestCount:   json.Number(strconv.FormatInt(count, 10)),
		loadgen.MetricEstimatedCount: json.Number(strconv.FormatFloat(estimated, 'f', -1, 64)),
		loadgen.MetricActiveRequests: json.Number(strconv.FormatInt(active, 10)),
		loadgen.MetricQueueLength:    json.Number(strconv.FormatFloat(queue, 'f', -1, 64)),
	}
	assert.Equal(t, want, doc["metrics"], "metrics of document 0")
	assert.Equal(t, "metrics", field(doc, "data_stream", "type"))
	assert.Equal(t, dataset+".otel", field(doc, "data_stream", "dataset"))
	assert.Equal(t, "default", field(doc, "data_stream", "namespace"))
	assert.Equal(t, loadgen.MetricUnit, field(doc, "unit"))
	assert.Equal(t, runID, field(doc, "resource", "attributes", loadgen.RunIDAttribute))
	assert.Equal(t, "e2e-test", field(doc, "resource", "attributes", "service.name"))
	assert.Nil(t, field(doc, "resource", "attributes", "data_stream.dataset"), "the routing attribute is not stored")
	assert.Equal(t, map[string]any{loadgen.RunIDAttribute: runID, "http.route": "/api/orders", "http.request.method": "GET"},
		doc["attributes"])
	assert.Equal(t, loadgen.ScopeName, field(doc, "scope", "name"))
	hash, _ := field(doc, "_metric_names_hash").(string)
	assert.Regexp(t, `^[0-9a-f]+$`, hash, "_metric_names_hash")

	// @timestamp is an integer in milliseconds. Document 0 is the first of the samples, which
	// are MetricInterval apart and end when the generator started; the start timestamp of
	// every data point is one interval before the first sample.
	ts := intField(t, doc, "@timestamp")
	start := intField(t, doc, "start_timestamp")
	samples := (docs + 4) / 5 // 5 routes
	first := sendStart.Add(-time.Duration(samples-1) * loadgen.MetricInterval).Truncate(time.Millisecond)
	last := sendEnd.Add(-time.Duration(samples-1) * loadgen.MetricInterval)
	assert.True(t, ts >= first.UnixMilli() && ts <= last.UnixMilli(), "@timestamp %d not within [%d, %d]", ts, first.UnixMilli(), last.UnixMilli())
	assert.Equal(t, ts-loadgen.MetricInterval.Milliseconds(), start, "start_timestamp")

	// Each metric has the field type of the dynamic template the exporter named.
	types := map[string]string{"gauge_long": "long", "counter_long": "long", "gauge_double": "double", "counter_double": "double"}
	mapping := fieldTypes(t, es, index, "metrics.*")
	for name, tpl := range loadgen.MetricTemplates {
		assert.Equal(t, types[tpl], mapping["metrics."+name], "type of metrics.%s (dynamic template %s)", name, tpl)
	}
}

// intField returns a field of a document decoded by SearchNumbers that must be an integer
// written without a fraction or exponent.
func intField(t *testing.T, doc map[string]any, name string) int64 {
	t.Helper()
	n, ok := doc[name].(json.Number)
	require.True(t, ok, "%s is %T %v, want a number", name, doc[name], doc[name])
	require.Regexp(t, `^[0-9]+$`, n.String(), "%s is not written as an integer", name)
	v, err := n.Int64()
	require.NoError(t, err)
	return v
}

// fieldTypes returns the mapped type of each field that matches pattern in index, by full name.
func fieldTypes(t *testing.T, es *estest.Client, index, pattern string) map[string]string {
	t.Helper()
	resp := es.MustDo(t, http.MethodGet, "/"+url.PathEscape(index)+"/_mapping/field/"+url.PathEscape(pattern), nil)
	var r map[string]struct {
		Mappings map[string]struct {
			Mapping map[string]struct {
				Type string `json:"type"`
			} `json:"mapping"`
		} `json:"mappings"`
	}
	require.NoError(t, json.Unmarshal(resp, &r))
	out := map[string]string{}
	for _, idx := range r {
		for full, m := range idx.Mappings {
			for _, f := range m.Mapping {
				if prev, ok := out[full]; ok && prev != f.Type {
					f.Type = prev + "," + f.Type
				}
				out[full] = f.Type
			}
		}
	}
	return out
}

// boolQuery matches the documents of one run in a logs data stream: the span events (they
// have an event_name) or the log records (the generator gives them none).
func boolQuery(runID string, events bool) map[string]any {
	exists := map[string]any{"exists": map[string]any{"field": "event_name"}}
	b := map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"resource.attributes." + loadgen.RunIDAttribute: runID}},
	}}
	if events {
		b["filter"] = append(b["filter"].([]any), exists)
	} else {
		b["must_not"] = []any{exists}
	}
	return map[string]any{"query": map[string]any{"bool": b}}
}

// field returns the value at path in a document's _source. Attribute keys are stored flat
// ("loadgen.run_id" is one key), so a segment is looked up as a whole.
func field(doc map[string]any, path ...string) any {
	var cur any = doc
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[p]; !ok {
			return nil
		}
	}
	return cur
}

func collectorBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("OTELCOL_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil { //nolint:gosec // the binary the test is told to run
			t.Fatalf("OTELCOL_BIN=%s: %v", p, err)
		}
		return p
	}
	mod, err := estest.ModuleDir()
	require.NoError(t, err)
	p := filepath.Join(filepath.Dir(mod), ".bin", "otelcol-es")
	if _, err := os.Stat(p); err != nil {
		estest.SkipOrFail(t, "the collector binary "+p+" is missing",
			"build it with scripts/build-collector.sh, or set OTELCOL_BIN")
	}
	return p
}

func buildLoadgen(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to build cmd/loadgen")
	out := filepath.Join(t.TempDir(), "loadgen")
	cmd := exec.Command(goBin, "build", "-o", out, "./cmd/loadgen")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/loadgen: %v\n%s", err, b)
	}
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// collectorEnv passes the node's settings to the collector, whose configuration reads them
// with ${env:...}.
func collectorEnv(c estest.Config) []string {
	env := os.Environ()
	return append(env,
		"ES_ENDPOINT="+c.Endpoint, "ES_USER="+c.User, "ES_PASSWORD="+c.Password,
		"ES_API_KEY="+c.APIKey, "ES_CA_CERT="+c.CACert)
}

// sendResult is what loadgen.Run returned for a run sent by sendLogsOnce.
type sendResult struct {
	res loadgen.Result
	err error
}

// sendLogsOnce sends records log records of the run (runID, dataset, service), batch records
// per request, to the collector's OTLP/HTTP receiver at httpAddr in the background, and gives
// loadgen.Run's result on the channel. Each request is sent once: a request cut by a stop or a
// kill is not acknowledged, and Run stops there, so Result.Logs is exactly the number of
// acknowledged records (seq 0 to Logs-1).
func sendLogsOnce(httpAddr string, records, batch int, runID, dataset, service string) <-chan sendResult {
	sent := make(chan sendResult, 1)
	go func() {
		cfg := loadgen.DefaultConfig()
		cfg.Endpoint = "http://" + httpAddr
		cfg.Logs = records
		cfg.Batch = batch
		cfg.RunID = runID
		cfg.Dataset = dataset
		cfg.Service = service
		cfg.Attempts = 1
		res, err := loadgen.Run(context.Background(), cfg)
		sent <- sendResult{res, err}
	}()
	return sent
}

// exporterAuthYAML returns the exporter's credentials and TLS lines for a collector config,
// read from the environment by the collector.
func exporterAuthYAML(c estest.Config) (auth, tlsCfg string) {
	switch {
	case c.User != "":
		auth = "    user: ${env:ES_USER}\n    password: ${env:ES_PASSWORD}\n"
	case c.APIKey != "":
		auth = "    api_key: ${env:ES_API_KEY}\n"
	}
	if c.CACert != "" {
		tlsCfg = "    tls:\n      ca_file: ${env:ES_CA_CERT}\n"
	}
	return auth, tlsCfg
}

func writeCollectorConfig(t *testing.T, c estest.Config, grpcAddr, httpAddr string) string {
	t.Helper()
	typ := elasticsearchexporter.NewFactory().Type().String()
	auth, tlsCfg := exporterAuthYAML(c)
	yaml := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %[1]s
      http:
        endpoint: %[2]s

exporters:
  %[3]s:
    endpoints:
      - ${env:ES_ENDPOINT}
%[4]s%[5]s    sending_queue:
      num_consumers: 2
      queue_size: 100
      batch:
        flush_timeout: 1s

service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [%[3]s]
    traces:
      receivers: [otlp]
      exporters: [%[3]s]
    metrics:
      receivers: [otlp]
      exporters: [%[3]s]
`, grpcAddr, httpAddr, typ, auth, tlsCfg)
	return writeCollectorYAML(t, yaml)
}

// writeQueueCollectorConfig writes a collector configuration of run: one logs pipeline from the
// OTLP/HTTP receiver on run.httpAddr (receiverSettings: more lines of its http protocol) to the
// exporter, whose sending queue may use the file_storage extension in run.storageDir;
// exporterSettings are the exporter's lines after its endpoint and credentials. The
// collector's own metrics are served for Prometheus on run.metricsAddr.
func writeQueueCollectorConfig(t *testing.T, c estest.Config, run logsRun, receiverSettings, exporterSettings string) string {
	t.Helper()
	auth, tlsCfg := exporterAuthYAML(c)
	return pipelineConfig{
		httpAddr:       run.httpAddr,
		receiver:       receiverSettings,
		exporter:       auth + tlsCfg + exporterSettings,
		extension:      "file_storage",
		extensionLines: fmt.Sprintf("    directory: %q\n", run.storageDir),
		telemetry:      prometheusTelemetryYAML(t, run.metricsAddr),
	}.write(t)
}

// pipelineConfig is a collector configuration with one pipeline from the OTLP/HTTP receiver to
// the exporter, whose endpoint is ES_ENDPOINT. Each field holds whole YAML lines.
type pipelineConfig struct {
	httpAddr       string // the OTLP/HTTP receiver's endpoint
	receiver       string // more lines of the receiver's http protocol
	signal         string // the pipeline's signal; logs when empty
	exporter       string // the exporter's lines after its endpoint: credentials, tls, sending_queue...
	extension      string // an extension that the service runs, if any
	extensionLines string // its settings
	telemetry      string // the service's telemetry section; the collector's own metrics are off when empty
}

// write writes the configuration into a temporary folder (writeCollectorYAML) and returns its
// path.
func (p pipelineConfig) write(t *testing.T) string {
	t.Helper()
	typ := elasticsearchexporter.NewFactory().Type().String()
	var b strings.Builder
	if p.extension != "" {
		fmt.Fprintf(&b, "extensions:\n  %s:\n%s\n", p.extension, p.extensionLines)
	}
	fmt.Fprintf(&b, `receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
%s
exporters:
  %s:
    endpoints:
      - ${env:ES_ENDPOINT}
%s
service:
`, p.httpAddr, p.receiver, typ, p.exporter)
	if p.extension != "" {
		fmt.Fprintf(&b, "  extensions: [%s]\n", p.extension)
	}
	b.WriteString(cmp.Or(p.telemetry, "  telemetry:\n    metrics:\n      level: none\n"))
	fmt.Fprintf(&b, "  pipelines:\n    %s:\n      receivers: [otlp]\n      exporters: [%s]\n", cmp.Or(p.signal, "logs"), typ)
	return writeCollectorYAML(t, b.String())
}

// flushTimeout is the exporter's sending_queue lines that flush a batch after timeout.
func flushTimeout(timeout string) string {
	return "    sending_queue:\n      batch:\n        flush_timeout: " + timeout + "\n"
}

// writeCollectorYAML writes a collector configuration into a temporary folder and returns
// its path.
func writeCollectorYAML(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "collector.yaml")
	require.NoError(t, os.WriteFile(p, []byte(yaml), 0o600))
	return p
}

// collector is a running collector process and its combined output.
type collector struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error // Wait's result, set before done is closed
}

// startCollector starts bin with the configuration at cfgPath, the environment env and the
// further command-line arguments args (such as --feature-gates=...).
func startCollector(t *testing.T, bin, cfgPath string, env []string, args ...string) *collector {
	t.Helper()
	c := &collector{out: &syncBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(bin, append([]string{"--config=" + cfgPath}, args...)...) //nolint:gosec // running the collector under test is the point
	c.cmd.Env = env
	c.cmd.Stdout = c.out
	c.cmd.Stderr = c.out
	require.NoError(t, c.cmd.Start(), "starting %s", bin)
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		if !c.exited() {
			_ = c.cmd.Process.Kill()
			<-c.done
		}
		if t.Failed() {
			c.dump(t)
		}
	})
	return c
}

func (c *collector) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *collector) output() string { return c.out.String() }

var dumped sync.Map

// dump prints the collector's output once per test.
func (c *collector) dump(t *testing.T) {
	t.Helper()
	if _, loaded := dumped.LoadOrStore(c, true); loaded {
		return
	}
	t.Logf("collector output:\n%s", c.output())
}

// listenTimeout bounds the wait for a started collector to accept connections.
const listenTimeout = 60 * time.Second

// waitListening waits up to listenTimeout until addr accepts connections, failing early when the
// collector exits.
func (c *collector) waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(listenTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close() // a probe: the address answered
			return
		}
		if c.exited() {
			c.dump(t)
			t.Fatalf("the collector exited before listening on %s: %v", addr, c.err)
		}
		if time.Now().After(deadline) {
			c.dump(t)
			t.Fatalf("the collector did not listen on %s within %s", addr, listenTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop sends SIGTERM and returns the exit status.
func (c *collector) stop(timeout time.Duration) (int, error) {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return -1, fmt.Errorf("SIGTERM: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case <-c.done:
	case <-ctx.Done():
		return -1, fmt.Errorf("the collector did not exit within %s of SIGTERM", timeout)
	}
	if ee, ok := errors.AsType[*exec.ExitError](c.err); ok {
		return ee.ExitCode(), nil
	}
	if c.err != nil {
		return -1, c.err
	}
	return 0, nil
}

// stopCleanly stops the collector within timeout and fails unless it exits with status 0 after
// logging "Shutdown complete"; it logs the collector's warnings and errors.
func (c *collector) stopCleanly(t *testing.T, timeout time.Duration) {
	t.Helper()
	code, err := c.stop(timeout)
	if err != nil {
		c.dump(t)
		t.Fatal(err)
	}
	if code != 0 || !strings.Contains(c.output(), "Shutdown complete") {
		c.dump(t)
		t.Fatalf("collector exit status %d, want 0 and a log line \"Shutdown complete\"", code)
	}
	if lines := c.problems(); len(lines) > 0 {
		t.Logf("the collector logged %d warnings or errors:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

var problemLine = regexp.MustCompile(`\t(warn|error|dpanic|panic|fatal)\t`)

// problems returns the collector's log lines at warn level or above.
func (c *collector) problems() []string {
	var out []string
	for line := range strings.Lines(c.output()) {
		if problemLine.MatchString(line) {
			out = append(out, strings.TrimRight(line, "\n"))
		}
	}
	return out
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logsRun is a run of log records through a collector: the run's id and data stream, the
// collector's receiver and metrics addresses, and a folder for a sending queue that persists
// (file_storage).
type logsRun struct {
	runID, dataset, index string
	httpAddr, metricsAddr string
	storageDir            string
}

// newLogsRun names a run whose data stream is logs-<prefix>_<run id>.otel-*, picks the
// collector's addresses and makes the queue's folder.
func newLogsRun(t *testing.T, prefix string) logsRun {
	t.Helper()
	r := logsRun{runID: loadgen.NewRunID(), httpAddr: freeAddr(t), metricsAddr: freeAddr(t)}
	r.dataset = prefix + "_" + r.runID
	r.index = "logs-" + r.dataset + ".otel-*"
	r.storageDir = filepath.Join(t.TempDir(), "queue")
	require.NoError(t, os.MkdirAll(r.storageDir, 0o700))
	return r
}

// count refreshes the run's data stream and counts its documents.
func (r logsRun) count(t *testing.T, es *estest.Client) int {
	t.Helper()
	es.Refresh(t, r.index)
	return es.Count(t, r.index)
}

// sendAndCount sends records log records of the run, batch per request, through the
// collector's OTLP/HTTP receiver, requires each request to be acknowledged, and counts the
// run's documents until there are records of them, col exits, or a minute has passed.
func (r logsRun) sendAndCount(t *testing.T, es *estest.Client, col *collector, records, batch int, service string) int {
	t.Helper()
	sent := <-sendLogsOnce(r.httpAddr, records, batch, r.runID, r.dataset, service)
	require.NoError(t, sent.err)
	require.Equal(t, records, sent.res.Logs)
	byRun := estest.TermQuery("resource.attributes."+loadgen.RunIDAttribute, r.runID)
	var n int
	for t0 := time.Now(); ; time.Sleep(250 * time.Millisecond) {
		es.Refresh(t, r.index)
		if n = es.CountQuery(t, r.index, byRun); n >= records || time.Since(t0) > time.Minute || col.exited() {
			return n
		}
	}
}

// settleWait is how waitSettled waits for the count of a run's documents after a restart.
type settleWait struct {
	quiet   time.Duration // the count holds at least the acknowledged records and has not changed this long
	stuck   time.Duration // or, below them, has not changed this long (and 4×quiet have passed since the restart)
	timeout time.Duration // the count still changes this long after the restart: a failure
}

// waitSettled polls the count of the run's documents every 250 ms after the restart of col,
// from before (the count at the restart), until it settles (w), and fails when col exits or
// the count still changes after w.timeout. Stuck below acked, it returns too: the caller's
// checks report what is missing. It returns the last count and how long after the restart it
// last changed.
func (r logsRun) waitSettled(t *testing.T, es *estest.Client, col *collector, before, acked int, w settleWait) (int, time.Duration) {
	t.Helper()
	restarted := time.Now()
	last, lastChange := before, time.Now()
	for {
		time.Sleep(250 * time.Millisecond)
		n := r.count(t, es)
		if n != last {
			last, lastChange = n, time.Now()
		}
		if n >= acked && time.Since(lastChange) >= w.quiet {
			break
		}
		if time.Since(lastChange) >= w.stuck && time.Since(restarted) >= 4*w.quiet {
			break // stuck below the acknowledged count
		}
		if col.exited() {
			col.dump(t)
			t.Fatalf("the restarted collector exited: %v", col.err)
		}
		if time.Since(restarted) > w.timeout {
			col.dump(t)
			t.Fatalf("the count of the run's documents was still changing %s after the restart (%d)", w.timeout, n)
		}
	}
	return last, lastChange.Sub(restarted)
}

// seqTally is what seqCounts found of a run whose records 0 to acked-1 were acknowledged.
type seqTally struct {
	acked   int
	total   int   // documents that carry a seq
	dups    []int // seqs indexed more than once
	missing []int // acknowledged seqs not indexed
	extra   int   // seqs indexed that were not acknowledged
}

func tallySeqs(seqs map[int]int, acked int) seqTally {
	s := seqTally{acked: acked}
	for seq, n := range seqs {
		s.total += n
		if n > 1 {
			s.dups = append(s.dups, seq)
		}
		if seq >= acked {
			s.extra++
		}
	}
	for seq := range acked {
		if seqs[seq] == 0 {
			s.missing = append(s.missing, seq)
		}
	}
	return s
}

// assertNoneMissing checks that every acknowledged record was indexed, and logs the first
// missing ones.
func (s seqTally) assertNoneMissing(t *testing.T) {
	t.Helper()
	if !assert.Empty(t, s.missing, "acknowledged records (seq < %d) not indexed after the restart", s.acked) {
		t.Logf("first missing: %v", s.missing[:min(len(s.missing), 20)])
	}
}

// writeCrashConfig writes a collector configuration of run with a persistent sending queue
// (file_storage), deterministic document ids, small batches exported one at a time, and the
// collector's own metrics served for Prometheus.
func writeCrashConfig(t *testing.T, c estest.Config, run logsRun) string {
	t.Helper()
	return writeQueueCollectorConfig(t, c, run, "", `    deterministic_ids:
      enabled: true
    sending_queue:
      storage: file_storage
      num_consumers: 1
      queue_size: 1000
      batch:
        flush_timeout: 200ms
        min_size: 100000
        max_size: 200000
`)
}

// prometheusTelemetryYAML is the service::telemetry section of a collector configuration that
// serves the collector's own metrics for Prometheus on metricsAddr (see scrapeDocFates).
func prometheusTelemetryYAML(t *testing.T, metricsAddr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(metricsAddr)
	require.NoError(t, err)
	return fmt.Sprintf(`  telemetry:
    metrics:
      level: normal
      readers:
        - pull:
            exporter:
              prometheus:
                host: %s
                port: %s
`, host, port)
}

// scrapeDocFates reads the collector's otelcol.elasticsearch.docs.fate counter from its
// Prometheus endpoint (otelcol_elasticsearch_docs_fate there) and sums it by fate.
func scrapeDocFates(t *testing.T, addr string) map[string]int64 {
	t.Helper()
	out, err := readDocFates(addr)
	require.NoError(t, err, "reading the collector's metrics")
	return out
}

func readDocFates(addr string) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics answered %d", resp.StatusCode)
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "otelcol_elasticsearch_docs_fate") {
			continue
		}
		// name{label="value",...} value
		open, closing := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
		if open < 0 || closing < open {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[closing+1:]), 64)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
		fate := ""
		for l := range strings.SplitSeq(line[open+1:closing], ",") {
			if k, val, ok := strings.Cut(l, "="); ok && k == "fate" {
				fate = strings.Trim(val, `"`)
			}
		}
		out[fate] += int64(v)
	}
	return out, sc.Err()
}

// seqCounts returns how many documents of index carry each value of attributes.loadgen.seq,
// read with a composite aggregation page by page, so the answer is exact.
func seqCounts(t *testing.T, es *estest.Client, index string) map[int]int {
	t.Helper()
	out := map[int]int{}
	var after map[string]any
	for {
		comp := map[string]any{
			"size":    10_000,
			"sources": []any{map[string]any{"seq": map[string]any{"terms": map[string]any{"field": "attributes.loadgen.seq"}}}},
		}
		if after != nil {
			comp["after"] = after
		}
		body := map[string]any{"size": 0, "track_total_hits": true, "aggs": map[string]any{"seq": map[string]any{"composite": comp}}}
		resp := es.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_search", body)
		var r struct {
			Aggregations struct {
				Seq struct {
					AfterKey map[string]any `json:"after_key"`
					Buckets  []struct {
						Key      struct{ Seq int } `json:"key"`
						DocCount int               `json:"doc_count"`
					} `json:"buckets"`
				} `json:"seq"`
			} `json:"aggregations"`
		}
		require.NoError(t, json.Unmarshal(resp, &r), "decoding the aggregation of %s", index)
		for _, b := range r.Aggregations.Seq.Buckets {
			out[b.Key.Seq] += b.DocCount
		}
		if len(r.Aggregations.Seq.Buckets) == 0 || r.Aggregations.Seq.AfterKey == nil {
			return out
		}
		after = r.Aggregations.Seq.AfterKey
	}
}
