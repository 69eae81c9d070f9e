package integrationtest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter"
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
