package integrationtest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// TestCollectorMappingModesPerRequest sends OTLP/HTTP requests that choose different mapping
// modes (the X-Elastic-Mapping-Mode header, the elastic.mapping.mode scope attribute, neither)
// to the otelcol-es binary at the same time, through a persistent sending queue (file_storage)
// with batching, and checks in Elasticsearch that each record was written in the layout its
// request chose: the choice survives the queue and the batches that merge requests. A request
// asking for a mode that allowed_modes does not list, and a bodymap record whose body is not a
// map, are counted as rejected and not written.
func TestCollectorMappingModesPerRequest(t *testing.T) {
	const (
		perRequest     = 3
		arrivalTimeout = 60 * time.Second
		stopTimeout    = 30 * time.Second
	)
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)

	run := newLogsRun(t, "modes")
	// Data streams outside mode otel have no .otel suffix; a stand-in template makes them.
	legacy := run.dataset
	es.MustDo(t, http.MethodPut, "/_index_template/otelcol-es-test-"+legacy, map[string]any{
		"index_patterns": []string{"logs-" + legacy + "*"},
		"data_stream":    map[string]any{},
		"priority":       500,
	})
	t.Cleanup(func() { _, _, _ = es.Do(http.MethodDelete, "/_index_template/otelcol-es-test-"+legacy, nil) })

	cfgPath := writeModesConfig(t, es.Config, run)
	col := startCollector(t, bin, cfgPath, collectorEnv(es.Config))
	col.waitListening(t, run.httpAddr)

	// Each request routes its records to a dataset of its own, so that a record written in the
	// wrong mode would land in another data stream (with or without .otel) and be seen.
	type request struct {
		name, header, scopeMode string
		bodymap                 bool
	}
	requests := []request{
		{name: "ecs", header: "ecs"},
		{name: "none", header: "none"},
		{name: "bodymap", header: "bodymap", bodymap: true},
		{name: "otel", header: ""},
		{name: "scope", header: "ecs", scopeMode: "otel"}, // the scope attribute wins
		{name: "raw", header: "raw"},                      // not in allowed_modes: rejected
	}
	var wg sync.WaitGroup
	for _, r := range requests {
		wg.Go(func() {
			ld := modeLogs(legacy+"_"+r.name, r.scopeMode, r.bodymap, perRequest)
			require.NoError(t, postLogs("http://"+run.httpAddr, r.header, ld), r.name)
		})
	}
	wg.Wait()

	indexOf := func(name string, otel bool) string {
		if otel {
			return "logs-" + legacy + "_" + name + ".otel-default"
		}
		return "logs-" + legacy + "_" + name + "-default"
	}
	all := "logs-" + legacy + "*"
	want := 4*perRequest + perRequest // ecs, none, otel, scope, and bodymap's map bodies
	t0 := time.Now()
	for {
		es.Refresh(t, all)
		if n := es.Count(t, all); n >= want {
			break
		}
		if time.Since(t0) > arrivalTimeout || col.exited() {
			col.dump(t)
			t.Fatalf("after %s: %d of %d documents in %s", time.Since(t0).Round(time.Second), es.Count(t, all), want, all)
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(time.Second) // anything written in a wrong layout arrives with the rest
	es.Refresh(t, all)
	assert.Equal(t, want, es.Count(t, all), "documents of the run")

	docs := func(index string) []map[string]any {
		t.Helper()
		hits := es.Search(t, index, map[string]any{"size": 100, "sort": []any{"@timestamp"}})
		require.Len(t, hits, perRequest, "documents in %s", index)
		return hits
	}
	for _, d := range docs(indexOf("ecs", false)) {
		assert.Equal(t, "order 0 shipped", field(d, "message"), "ecs: message from the string body")
		assert.Equal(t, "checkout", field(d, "service", "name"), "ecs: service.name de-dotted")
		assert.Equal(t, "web-1", field(d, "host", "hostname"), "ecs: host.name becomes host.hostname")
		assert.Regexp(t, `^2023-11-14T22:13:20\.\d{9}Z$`, d["@timestamp"], "ecs: RFC 3339 with nanoseconds")
		assert.Nil(t, d["body"], "ecs has no otel body")
	}
	for _, d := range docs(indexOf("none", false)) {
		assert.Equal(t, "order 0 shipped", d["Body"], "none: Body")
		assert.Equal(t, "checkout", d["Resource.service.name"], "none: flat Resource.* keys")
		assert.EqualValues(t, 7, d["Attributes.order.id"], "none: record attributes under Attributes.")
	}
	for _, d := range docs(indexOf("bodymap", false)) {
		assert.Equal(t, "shipped", d["event"], "bodymap: the body is the document")
		assert.EqualValues(t, 7, d["order"], "bodymap: the body is the document")
		assert.Len(t, d, 3, "bodymap: nothing but the body: %v", d)
	}
	for _, name := range []string{"otel", "scope"} {
		for _, d := range docs(indexOf(name, true)) {
			assert.Equal(t, "order 0 shipped", field(d, "body", "text"), "%s: otel layout", name)
			assert.Equal(t, "checkout", field(d, "resource", "attributes", "service.name"), "%s: otel layout", name)
		}
	}

	// Rejected: the raw request (3 records, not allowed) and bodymap's string-bodied record.
	fates := scrapeDocFates(t, run.metricsAddr)
	assert.Equal(t, int64(perRequest+1), fates["rejected"], "docs.fate by fate: %v", fates)
	assert.Equal(t, int64(want), fates["indexed"], "docs.fate by fate: %v", fates)

	code, err := col.stop(stopTimeout)
	if err != nil || code != 0 {
		col.dump(t)
		t.Fatalf("collector exit: %d, %v", code, err)
	}
}

// modeLogs returns n log records of one resource and scope, routed to dataset. With bodymap the
// bodies are maps with an @timestamp (the data stream needs one), plus one record whose body
// is a string, which bodymap cannot write.
func modeLogs(dataset, scopeMode string, bodymap bool, n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	res := rl.Resource().Attributes()
	res.PutStr("service.name", "checkout")
	res.PutStr("host.name", "web-1")
	res.PutStr("data_stream.dataset", dataset)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("modes")
	if scopeMode != "" {
		sl.Scope().Attributes().PutStr("elastic.mapping.mode", scopeMode)
	}
	base := time.Unix(1_700_000_000, 0)
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		ts := base.Add(time.Duration(i) * time.Millisecond)
		r.SetTimestamp(pcommon.NewTimestampFromTime(ts))
		r.Attributes().PutInt("order.id", 7)
		if bodymap {
			m := r.Body().SetEmptyMap()
			m.PutStr("@timestamp", ts.UTC().Format(time.RFC3339Nano))
			m.PutStr("event", "shipped")
			m.PutInt("order", 7)
			continue
		}
		r.Body().SetStr("order 0 shipped")
	}
	if bodymap {
		sl.LogRecords().AppendEmpty().Body().SetStr("not a map")
	}
	return ld
}

// postLogs sends ld to an OTLP/HTTP receiver, with the X-Elastic-Mapping-Mode header when mode
// is set.
func postLogs(endpoint, mode string, ld plog.Logs) error {
	body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/v1/logs", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if mode != "" {
		req.Header.Set("X-Elastic-Mapping-Mode", mode)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /v1/logs answered %d", resp.StatusCode)
	}
	return nil
}

// writeModesConfig writes a collector configuration whose OTLP receiver keeps client metadata,
// with a persistent sending queue (file_storage) and batches that stay open for a second, so
// that the requests of the test meet in the queue and the batcher.
func writeModesConfig(t *testing.T, c estest.Config, run logsRun) string {
	t.Helper()
	return writeQueueCollectorConfig(t, c, run, "        include_metadata: true\n", `    mapping:
      mode: otel
      allowed_modes: [otel, ecs, none, bodymap]
    sending_queue:
      storage: file_storage
      num_consumers: 2
      batch:
        flush_timeout: 1s
`)
}
