// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"
)

// The Elasticsearch suites: the node of the environment, exporters built by the factory against
// it, and what the node holds.

// suite holds what one test needs against the real node: a client, a unique name, and
// exporter settings whose logs and metrics the test can read.
type suite struct {
	es   *estest.Client
	id   string // unique per test; data stream names are built from it (data streams cannot be deleted here)
	set  exporter.Settings
	logs *observer.ObservedLogs
	tel  *componenttest.Telemetry
}

func newSuite(t *testing.T) *suite {
	t.Helper()
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)
	set, logs, tel := observedSettings(t, zapcore.DebugLevel)
	id := strings.ToLower(strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())) + "_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	return &suite{es: es, id: id, set: set, logs: logs, tel: tel}
}

// observedSettings returns exporter settings whose logs from level up are recorded and whose
// metrics go to a test telemetry, shut down when the test ends.
func observedSettings(t *testing.T, level zapcore.Level) (exporter.Settings, *observer.ObservedLogs, *componenttest.Telemetry) {
	t.Helper()
	core, logs := observer.New(level)
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := exportertest.NewNopSettings(elasticsearchexporter.NewFactory().Type())
	set.TelemetrySettings = tel.NewTelemetrySettings()
	set.Logger = zap.New(core)
	return set, logs, tel
}

// config returns the exporter config for the node with basic auth, the node's CA, no sending
// queue (so push results reach the test) and quick retries.
func (s *suite) config() *elasticsearchexporter.Config {
	cfg := elasticsearchexporter.NewFactory().CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = []string{s.es.Endpoint}
	cfg.Authentication.User = s.es.User
	cfg.Authentication.Password = configopaque.String(s.es.Password)
	cfg.Authentication.APIKey = configopaque.String(s.es.APIKey)
	if s.es.User != "" {
		cfg.Authentication.APIKey = ""
	}
	cfg.TLS.CAFile = s.es.CACert
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.Retry.InitialInterval = 10 * time.Millisecond
	cfg.Retry.MaxInterval = 100 * time.Millisecond
	return cfg
}

func (s *suite) logsExporter(t *testing.T, cfg *elasticsearchexporter.Config) exporter.Logs {
	t.Helper()
	exp, err := elasticsearchexporter.NewFactory().CreateLogs(context.Background(), s.set, cfg)
	return startExporter(t, exp, err)
}

func (s *suite) tracesExporter(t *testing.T, cfg *elasticsearchexporter.Config) exporter.Traces {
	t.Helper()
	exp, err := elasticsearchexporter.NewFactory().CreateTraces(context.Background(), s.set, cfg)
	return startExporter(t, exp, err)
}

func (s *suite) metricsExporter(t *testing.T, cfg *elasticsearchexporter.Config) exporter.Metrics {
	t.Helper()
	exp, err := elasticsearchexporter.NewFactory().CreateMetrics(context.Background(), s.set, cfg)
	return startExporter(t, exp, err)
}

// startExporter requires err to be nil, starts exp and shuts it down when the test ends.
func startExporter[E component.Component](t *testing.T, exp E, err error) E {
	t.Helper()
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, exp.Shutdown(context.Background())) })
	return exp
}

// waitConnected waits for the exporter's version check to log the server's version.
func (s *suite) waitConnected(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return s.logs.FilterMessage("Connected to Elasticsearch").Len() == 1 },
		30*time.Second, 20*time.Millisecond, "the exporter did not log the server's version")
}

// docs counts the documents with the given fate, from the exporter's telemetry.
func (s *suite) docs(t *testing.T, fate string) int64 {
	t.Helper()
	return s.countFates(func(f, _ string) bool { return f == fate })
}

// docsWithError counts the documents with the given fate and error.type.
func (s *suite) docsWithError(t *testing.T, fate, errorType string) int64 {
	t.Helper()
	return s.countFates(func(f, e string) bool { return f == fate && e == errorType })
}

// countFates sums the points of otelcol.elasticsearch.docs.fate whose fate and error.type
// (empty when absent) keep says to count.
func (s *suite) countFates(keep func(fate, errorType string) bool) int64 {
	m, err := s.tel.GetMetric("otelcol.elasticsearch.docs.fate")
	if err != nil {
		return 0
	}
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		f, _ := dp.Attributes.Value("fate")
		e, _ := dp.Attributes.Value("error.type")
		if keep(f.AsString(), e.AsString()) {
			n += dp.Value
		}
	}
	return n
}

// lastFailures returns the failures field of the exporter's last "Documents not indexed" line,
// and fails when it logged none.
func (s *suite) lastFailures(t *testing.T) string {
	t.Helper()
	warns := s.logs.FilterMessage("Documents not indexed").All()
	require.NotEmpty(t, warns)
	return fmt.Sprint(warns[len(warns)-1].ContextMap()["failures"])
}

// putIndexTemplate puts the index template name with body, and deletes it when the test ends.
func (s *suite) putIndexTemplate(t *testing.T, name string, body map[string]any) {
	t.Helper()
	s.es.MustDo(t, http.MethodPut, "/_index_template/"+name, body)
	t.Cleanup(func() { _, _, _ = s.es.Do(http.MethodDelete, "/_index_template/"+name, nil) })
}

// dataStreamTemplate is the body of an index template that makes data streams of pattern with
// one shard, no replica and mappings, at priority 900: above the shared stand-ins, so that a
// test decides its own mappings without touching other data streams.
func dataStreamTemplate(pattern string, mappings map[string]any) map[string]any {
	return map[string]any{
		"index_patterns": []string{pattern},
		"data_stream":    map[string]any{},
		"priority":       900,
		"template": map[string]any{
			"settings": map[string]any{"number_of_replicas": 0, "number_of_shards": 1},
			"mappings": mappings,
		},
	}
}

// search refreshes index and returns the documents whose attribute run equals value, oldest
// first.
func (s *suite) search(t *testing.T, index string, value any) []map[string]any {
	t.Helper()
	s.es.Refresh(t, index)
	q := estest.TermQuery("run", value)
	q["size"] = 100
	q["sort"] = []any{map[string]any{"@timestamp": "asc"}}
	return s.es.Search(t, index, q)
}

// get follows a dotted path through nested maps; it also accepts keys that contain dots.
func get(doc map[string]any, path string) any {
	var cur any = doc
	for path != "" {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok := m[path]; ok {
			return v
		}
		found := false
		for i := len(path) - 1; i > 0; i-- {
			if path[i] != '.' {
				continue
			}
			if v, ok := m[path[:i]]; ok {
				cur, path, found = v, path[i+1:], true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return cur
}

func (s *suite) logsData(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	rl.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("integration")
	sl.Scope().SetVersion("1.0.0")
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(1_700_000_000_123_456_789 + int64(i)*1_000_000_000))
		r.SetObservedTimestamp(pcommon.Timestamp(1_700_000_000_200_000_000 + int64(i)*1_000_000_000))
		r.SetSeverityText("WARN")
		r.SetSeverityNumber(plog.SeverityNumberWarn)
		r.Body().SetStr(fmt.Sprintf("payment %d declined <card> & \"retry\"", i))
		r.Attributes().PutInt("i", int64(i))
		r.Attributes().PutStr("run", s.id)
		r.Attributes().PutDouble("amount", 12.5)
		r.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, byte(i)})
	}
	return ld
}

// fieldType returns the type the node mapped field of index to: of a data stream, in the
// newest of its backing indices that maps field.
func fieldType(t *testing.T, s *suite, index, field string) string {
	t.Helper()
	body := s.es.MustDo(t, http.MethodGet, "/"+index+"/_mapping/field/"+field, nil)
	var m map[string]struct {
		Mappings map[string]struct {
			Mapping map[string]struct {
				Type string `json:"type"`
			} `json:"mapping"`
		} `json:"mappings"`
	}
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	var newest, typ string
	for name, im := range m {
		for _, last := range im.Mappings[field].Mapping {
			if name > newest {
				newest, typ = name, last.Type
			}
		}
	}
	return typ
}

// assertFieldTypes checks the type the node mapped each field to (fieldType).
func (s *suite) assertFieldTypes(t *testing.T, fields []mappedField) {
	t.Helper()
	for _, f := range fields {
		assert.Equal(t, f.want, fieldType(t, s, f.index, f.field), "%s %s", f.index, f.field)
	}
}

// The start-up lines about missing privileges, and what no line may hold.

// startupChecks reads otelcol.elasticsearch.startup_check: the value of each check recorded.
func (s *suite) startupChecks(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	m, err := s.tel.GetMetric("otelcol.elasticsearch.startup_check")
	if err != nil {
		return out
	}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		v, _ := dp.Attributes.Value("check")
		out[v.AsString()] = dp.Value
	}
	return out
}

// assertNoSecret fails when a log line, its fields included, holds the secret.
func (s *suite) assertNoSecret(t *testing.T, secret string) {
	t.Helper()
	for _, e := range s.logs.All() {
		line := fmt.Sprintf("%s %v", e.Message, e.ContextMap())
		assert.NotContains(t, line, secret, "a log line holds the password")
	}
}

// lackIndexLine is the start-up line for a user without the index privilege priv on the logs
// data streams.
func lackIndexLine(priv, user string) string {
	return "The credentials lack the index privilege `" + priv + "` on logs-*-*, which writing logs needs; " +
		"Elasticsearch answers 403 to the bulk requests that write there. Grant it with a role of user \"" + user + "\": " +
		`{"indices":[{"names":["logs-*-*"],"privileges":["auto_configure","create_doc"]}]}`
}

// lackMonitorLine is the start-up line for a user without the cluster privilege monitor.
func lackMonitorLine(user string) string {
	return "The credentials lack the cluster privilege `monitor`, which the version check (GET /) and node " +
		`discovery need; grant it with a role of user "` + user + `": {"cluster":["monitor"]}`
}

// lackLines are the messages of the start-up lines that name a missing privilege, in order.
func (s *suite) lackLines() []string {
	var lines []string
	for _, e := range s.logs.All() {
		if strings.HasPrefix(e.Message, "The credentials lack") {
			lines = append(lines, e.Message)
		}
	}
	return lines
}

// Time series data streams: documents written to them directly, and the metrics sent to them.

// bulkItem is one item of a bulk answer.
type bulkItem struct {
	Index  string `json:"_index"`
	ID     string `json:"_id"`
	Status int    `json:"status"`
	Error  struct {
		Type     string `json:"type"`
		Reason   string `json:"reason"`
		CausedBy struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"caused_by"`
	} `json:"error"`
}

// bulkDoc is one create action: the document and the dynamic templates its bulk item names.
type bulkDoc struct {
	source    string
	templates map[string]string
}

// bulkCreate sends docs as create actions to index, with require_data_stream as the exporter
// does, and returns the items of the answer in order.
func bulkCreate(t *testing.T, es *estest.Client, index string, docs ...bulkDoc) []bulkItem {
	t.Helper()
	var b strings.Builder
	for _, d := range docs {
		meta := map[string]any{"_index": index, "require_data_stream": true}
		if len(d.templates) > 0 {
			meta["dynamic_templates"] = d.templates
		}
		line, err := json.Marshal(map[string]any{"create": meta})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
		b.WriteString(d.source)
		b.WriteByte('\n')
	}
	resp := es.MustDo(t, http.MethodPost, "/_bulk?include_source_on_error=false", b.String())
	var r struct {
		Items []map[string]bulkItem `json:"items"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	require.Len(t, r.Items, len(docs), "%s", resp)
	out := make([]bulkItem, len(docs))
	for i, it := range r.Items {
		out[i] = it["create"]
	}
	return out
}

// metricsDoc returns a metric document of the shape the exporter writes, at the fixed time
// 2023-11-14T22:13:20Z (the stand-in does not enforce a time window), with the given names
// hash and extra top-level fields (JSON object members, without braces).
func metricsDoc(hash, members string) string {
	d := `{"@timestamp":1700000000000,"_metric_names_hash":"` + hash + `"`
	if members != "" {
		d += "," + members
	}
	return d + "}"
}

// ignoredFields returns the _ignored fields of the document of index whose _metric_names_hash
// is hash.
func ignoredFields(t *testing.T, es *estest.Client, index, hash string) []string {
	t.Helper()
	resp := es.MustDo(t, http.MethodPost, "/"+index+"/_search", map[string]any{
		"query":           map[string]any{"term": map[string]any{"_metric_names_hash": hash}},
		"docvalue_fields": []string{"_ignored"},
	})
	var r struct {
		Hits struct {
			Hits []struct {
				Fields struct {
					Ignored []string `json:"_ignored"`
				} `json:"fields"`
			} `json:"hits"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	require.Len(t, r.Hits.Hits, 1, "documents with _metric_names_hash %s: %s", hash, resp)
	return r.Hits.Hits[0].Fields.Ignored
}

// tsdbWindowTemplate puts a copy of the stand-in for this test's data stream pattern
// (metrics-<id>*.otel-*, a higher priority) with the time series bounds [start, end), the
// settings that the missing data-streams module would compute for a backing index. The archive
// then selects the backing index by @timestamp and refuses documents outside every bound, as
// a real cluster does.
func (s *suite) tsdbWindowTemplate(t *testing.T, start, end time.Time) {
	t.Helper()
	var body map[string]any
	for _, tmpl := range estest.OTelTemplates() {
		if tmpl.Builtin == "metrics-otel@template" {
			require.NoError(t, json.Unmarshal(tmpl.Body, &body))
		}
	}
	require.NotNil(t, body)
	body["index_patterns"] = []string{"metrics-" + s.id + "*.otel-*"}
	body["priority"] = 900
	index := body["template"].(map[string]any)["settings"].(map[string]any)["index"].(map[string]any)
	index["time_series"] = map[string]any{"start_time": start.UTC().Format(time.RFC3339), "end_time": end.UTC().Format(time.RFC3339)}
	name := s.id + "-window"
	s.putIndexTemplate(t, name, body)
}

// tsdbNow is a timestamp a minute ago, in whole milliseconds: within the time window of a real
// cluster's time series data stream (look-back two hours by default).
func tsdbNow() pcommon.Timestamp {
	return pcommon.NewTimestampFromTime(time.Now().Add(-time.Minute).Truncate(time.Millisecond))
}

// aggregate returns the value of a single-value metric aggregation (max, sum, value_count) of
// field over the documents that query matches.
func aggregate(t *testing.T, es *estest.Client, index, agg, field string, query map[string]any) float64 {
	t.Helper()
	body := map[string]any{"size": 0, "aggs": map[string]any{"a": map[string]any{agg: map[string]any{"field": field}}}}
	maps.Copy(body, query)
	resp := es.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_search", body)
	var r struct {
		Aggregations struct {
			A struct {
				Value *float64 `json:"value"`
			} `json:"a"`
		} `json:"aggregations"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	require.NotNil(t, r.Aggregations.A.Value, "%s of %s: %s", agg, field, resp)
	return *r.Aggregations.A.Value
}

// timeSeriesMetric returns the time_series_metric of field's mapping, or "".
func timeSeriesMetric(t *testing.T, es *estest.Client, index, field string) string {
	t.Helper()
	resp := es.MustDo(t, http.MethodGet, "/"+url.PathEscape(index)+"/_mapping/field/"+url.PathEscape(field), nil)
	var r map[string]struct {
		Mappings map[string]struct {
			Mapping map[string]struct {
				TimeSeriesMetric string `json:"time_series_metric"`
			} `json:"mapping"`
		} `json:"mappings"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	for _, idx := range r {
		for _, m := range idx.Mappings[field].Mapping {
			return m.TimeSeriesMetric
		}
	}
	return ""
}

// The collector binary: building and configuring it, running it, sending to it, and counting
// what its telemetry and the node say about the records sent.

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
