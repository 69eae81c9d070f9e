// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"
)

// TestGracefulShutdownDuringOutageKeepsPersistentQueue stops the collector gracefully (SIGTERM)
// while Elasticsearch refuses every bulk request, with a persistent sending queue (the
// file_storage extension), then starts it again once Elasticsearch answers: the batch that was
// being retried at shutdown was handed back to the queue and is indexed after the restart,
// every acknowledged record exactly once.
//
// The outage is a proxy in front of the real node that answers 503 to bulk requests while it
// is on; everything else goes through to the node.
func TestGracefulShutdownDuringOutageKeepsPersistentQueue(t *testing.T) {
	const (
		records = 600
		// A shutdown during an outage must not wait for it: far less than the 90 s timeout.
		stopTimeout = 15 * time.Second
		settle      = 60 * time.Second
	)
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)

	target, err := url.Parse(es.Endpoint)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = es.HTTP.Transport
	var outage atomic.Bool
	var refused atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if outage.Load() && strings.HasSuffix(r.URL.Path, "/_bulk") {
			_, _ = io.Copy(io.Discard, r.Body)
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"type":"unavailable_shards_exception","reason":"outage"},"status":503}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	viaProxy := es.Config
	viaProxy.Endpoint, viaProxy.CACert = front.URL, ""

	run := newLogsRun(t, "shutdown")
	cfgPath := writeCrashConfig(t, viaProxy, run)
	env := collectorEnv(viaProxy)

	// 1. Send the run during the outage: the receiver acknowledges it, the exporter retries.
	outage.Store(true)
	col1 := startCollector(t, bin, cfgPath, env)
	col1.waitListening(t, run.httpAddr)
	gen := loadgen.DefaultConfig()
	gen.Endpoint = "http://" + run.httpAddr
	gen.Logs = records
	gen.Batch = 200
	gen.RunID = run.runID
	gen.Dataset = run.dataset
	gen.Service = "shutdown-test"
	res, err := loadgen.Run(context.Background(), gen)
	require.NoError(t, err)
	require.Equal(t, records, res.Logs, "every record acknowledged")
	require.Eventually(t, func() bool { return refused.Load() >= 2 }, 30*time.Second, 25*time.Millisecond,
		"the exporter retries during the outage")

	// 2. Graceful shutdown, still during the outage: it ends, and loses nothing.
	start := time.Now()
	code, err := col1.stop(stopTimeout)
	require.NoError(t, err)
	if code != 0 {
		col1.dump(t)
		t.Fatalf("the collector exited with status %d", code)
	}
	t.Logf("shutdown during the outage took %s; %d bulk requests refused", time.Since(start).Round(time.Millisecond), refused.Load())
	if out := col1.output(); !strings.Contains(out, "Handing documents back to the persistent queue") ||
		strings.Contains(out, "Dropping documents") {
		col1.dump(t)
		t.Error("the batch given up at shutdown should be handed back to the queue, and nothing dropped")
	}

	// 3. Restart after the outage: the kept batch is indexed, each record once.
	outage.Store(false)
	col2 := startCollector(t, bin, cfgPath, env)
	col2.waitListening(t, run.httpAddr)
	require.Eventually(t, func() bool {
		return run.count(t, es) >= records
	}, settle, 250*time.Millisecond, "the records kept in the queue are indexed after the restart")
	seqs := seqCounts(t, es, run.index)
	assert.Len(t, seqs, records, "distinct records")
	for seq, n := range seqs {
		if !assert.Equal(t, 1, n, "loadgen.seq %d indexed %d times", seq, n) {
			break
		}
	}
	code, err = col2.stop(stopTimeout)
	require.NoError(t, err)
	assert.Zero(t, code)
}
