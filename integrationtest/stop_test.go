// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// TestGracefulStopWithDocumentRetriesLosesNothing stops the collector gracefully (SIGTERM) in
// the middle of a backlog that it writes to Elasticsearch from a persistent sending queue
// (file_storage), while Elasticsearch answers 429 for part of the documents of each bulk
// request, and starts it again: every record the receiver acknowledged is indexed after the
// restart. With deterministic_ids each is indexed exactly once: what a
// batch handed back at the stop had already written comes back 409 and is counted as a
// duplicate. Without them the written part is stored again, a duplicate that docs/delivery.md
// documents; nothing is missing either way.
//
// The 429s are real: a proxy in front of the node takes a third of the documents it sees for
// the first time out of each bulk request, forwards the rest to the node, and answers 429 for
// the documents it took out, at their positions among the node's answers. So a document
// answered 429 was not indexed, and a push waits to retry it (the retry interval is a few
// seconds here) with its other documents written: the case that lost records at a stop.
//
// It needs the binary (with the file_storage extension) and a node, like TestCollectorEndToEnd.
func TestGracefulStopWithDocumentRetriesLosesNothing(t *testing.T) {
	for _, ids := range []bool{true, false} {
		t.Run(fmt.Sprintf("deterministic_ids=%v", ids), func(t *testing.T) { runGracefulStopWithDocumentRetries(t, ids) })
	}
}

//nolint:thelper // the body of a subtest, not a helper: failures point here
func runGracefulStopWithDocumentRetries(t *testing.T, deterministicIDs bool) {
	const (
		records     = 20_000
		batch       = 250
		stopTimeout = 60 * time.Second
		settle      = 120 * time.Second
		settleQuiet = 3 * time.Second
		stopWait    = 60 * time.Second
	)
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)

	proxy := newPartialRejectProxy(t, es)
	viaProxy := es.Config
	viaProxy.Endpoint, viaProxy.CACert = proxy.URL, ""

	run := newLogsRun(t, "stop")
	cfgPath := writeStopConfig(t, viaProxy, run, deterministicIDs)
	env := collectorEnv(viaProxy)

	// 1. Send the run; the collector exports it through the proxy.
	col1 := startCollector(t, bin, cfgPath, env)
	col1.waitListening(t, run.httpAddr)
	sent := sendLogsOnce(run.httpAddr, records, batch, run.runID, run.dataset, "stop-test")

	// 2. SIGTERM in the middle of the backlog, while documents answered 429 wait for their
	// retry: some of the run is indexed, not all, and the proxy refused documents whose
	// retry has not come yet.
	t0 := time.Now()
	var nAtStop int
	for {
		n := run.count(t, es)
		if n >= records {
			t.Fatalf("all %d documents were indexed before the stop; the test needs a slower export", n)
		}
		if n >= records/5 && proxy.waiting() > 0 {
			nAtStop = n
			break
		}
		if col1.exited() {
			t.Fatalf("the collector exited before the stop: %v", col1.err)
		}
		if time.Since(t0) > stopWait {
			t.Fatalf("after %s Elasticsearch has %d of the run's %d documents, %d refused documents wait for a retry",
				stopWait, n, records, proxy.waiting())
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitingAtStop := proxy.waiting()
	stopStart := time.Now()
	code, err := col1.stop(stopTimeout)
	require.NoError(t, err)
	stopTook := time.Since(stopStart)
	if code != 0 {
		t.Fatalf("the collector exited with status %d", code)
	}
	r := <-sent
	acked := r.res.Logs
	if r.err != nil {
		t.Logf("the generator stopped at the stop: %v", r.err)
	}
	require.Positive(t, acked)
	nBefore := run.count(t, es)
	out := col1.output()
	handedBack := strings.Count(out, "Handing documents back to the persistent queue")
	droppedLines := strings.Count(out, "Dropping documents")
	helperDropLines := strings.Count(out, "Exporting failed. Dropping data.")
	t.Logf("SIGTERM %s after the start (%d indexed, %d refused documents waiting for a retry); the stop took %s; "+
		"%d of %d records acknowledged; %d indexed after the stop; %d batches handed back, %d 'Dropping documents' lines, "+
		"%d exporterhelper 'Exporting failed. Dropping data.' lines",
		stopStart.Sub(t0).Round(time.Millisecond), nAtStop, waitingAtStop, stopTook.Round(time.Millisecond),
		acked, records, nBefore, handedBack, droppedLines, helperDropLines)
	for line := range strings.Lines(out) {
		if strings.Contains(line, "Exporting failed. Dropping data.") {
			// exporterhelper's queue logs this at Error for every failed export, also for a
			// batch that its persistent queue keeps (a shutdown error): not true here.
			t.Logf("exporterhelper says, of a batch its queue keeps: %.600s", line)
			break
		}
	}
	assert.Positive(t, handedBack, "a batch waiting for a retry at the stop is handed back to the queue")
	assert.Zero(t, droppedLines, "nothing is dropped at a graceful stop with a persistent queue")
	require.Less(t, nBefore, acked, "everything acknowledged was indexed before the stop; nothing is left to check")

	// 3. Restart with the same storage; wait until the count stops changing.
	col2 := startCollector(t, bin, cfgPath, env)
	col2.waitListening(t, run.httpAddr)
	run.waitSettled(t, es, col2, nBefore, acked, settleWait{quiet: settleQuiet, stuck: 4 * settleQuiet, timeout: settle})
	docs := scrapeDocFates(t, run.metricsAddr)

	// 4. Every acknowledged record is indexed: exactly once with deterministic ids.
	seqs := seqCounts(t, es, run.index)
	tally := tallySeqs(seqs, acked)
	t.Logf("after the restart: %d documents, %d distinct records; %d acknowledged records missing, %d indexed more than once; "+
		"the restarted collector counted %v; the proxy refused %d documents in all",
		tally.total, len(seqs), len(tally.missing), len(tally.dups), docs, proxy.refusedTotal())
	tally.assertNoneMissing(t)
	if deterministicIDs {
		assert.Empty(t, tally.dups, "records indexed more than once")
		assert.Positive(t, docs["duplicate"], "the written part of a handed-back batch comes back 409")
	} else {
		t.Logf("without deterministic ids, %d records were stored twice: the written part of the batches handed back", len(tally.dups))
	}
	assert.Zero(t, docs["dropped"]+docs["rejected"], "documents dropped or rejected after the restart")

	code, err = col2.stop(stopTimeout)
	require.NoError(t, err)
	assert.Zero(t, code)
}

// partialRejectProxy is a proxy in front of the node that answers 429 for a third of the
// documents it sees for the first time in a bulk request, without forwarding them, and forwards
// everything else.
type partialRejectProxy struct {
	*httptest.Server
	t  *testing.T
	es *estest.Client

	mu      sync.Mutex
	seen    map[[32]byte]bool // documents seen once
	refused map[[32]byte]bool // refused and not sent again yet
	total   int
}

func newPartialRejectProxy(t *testing.T, es *estest.Client) *partialRejectProxy {
	t.Helper()
	target, err := url.Parse(es.Endpoint)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = es.HTTP.Transport
	p := &partialRejectProxy{t: t, es: es, seen: map[[32]byte]bool{}, refused: map[[32]byte]bool{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/_bulk") {
			p.bulk(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// waiting returns the documents refused whose retry has not come yet.
func (p *partialRejectProxy) waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.refused)
}

func (p *partialRejectProxy) refusedTotal() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

func (p *partialRejectProxy) bulk(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines)%2 != 0 {
		http.Error(w, "odd number of lines", http.StatusBadRequest)
		return
	}
	// Which documents to refuse: a third of those seen for the first time.
	refuse := make([]bool, len(lines)/2)
	var forward bytes.Buffer
	p.mu.Lock()
	for i := range refuse {
		key := sha256.Sum256([]byte(lines[2*i+1]))
		first := !p.seen[key]
		p.seen[key] = true
		delete(p.refused, key)
		if first && key[0]%3 == 0 {
			refuse[i] = true
			p.refused[key] = true
			p.total++
			continue
		}
		forward.WriteString(lines[2*i])
		forward.WriteByte('\n')
		forward.WriteString(lines[2*i+1])
		forward.WriteByte('\n')
	}
	p.mu.Unlock()

	var items []json.RawMessage
	if forward.Len() > 0 {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.es.Endpoint+r.URL.Path+"?"+r.URL.RawQuery, &forward) //nolint:gosec // a proxy in front of the test node forwards to it
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header.Set("Content-Type", "application/x-ndjson")
		if a := r.Header.Get("Authorization"); a != "" {
			req.Header.Set("Authorization", a)
		}
		resp, err := p.es.HTTP.Do(req) //nolint:gosec // to the test node, whose address the test holds
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		if resp.StatusCode != http.StatusOK {
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(answer)
			return
		}
		var parsed struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(answer, &parsed); err != nil {
			p.t.Errorf("proxy: the node's bulk answer: %v", err)
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		items = parsed.Items
	}
	out := bytes.NewBufferString(`{"items":[`)
	next := 0
	for i, refused := range refuse {
		if i > 0 {
			out.WriteByte(',')
		}
		if refused {
			var action map[string]struct {
				Index string `json:"_index"`
			}
			_ = json.Unmarshal([]byte(lines[2*i]), &action)
			name, _ := json.Marshal(action["create"].Index)
			fmt.Fprintf(out, `{"create":{"_index":%s,"status":429,"error":{"type":"es_rejected_execution_exception","reason":"refused by the test proxy"}}}`, name)
			continue
		}
		if next >= len(items) {
			p.t.Errorf("proxy: the node answered %d items for more documents", len(items))
			http.Error(w, "short answer", http.StatusBadGateway)
			return
		}
		out.Write(items[next])
		next++
	}
	out.WriteString(`]}`)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	_, _ = w.Write(out.Bytes())
}

// writeStopConfig writes a collector configuration of run with a persistent sending queue
// (file_storage), four consumers, document retries a few seconds apart, deterministic ids on or
// off, and the collector's own metrics served for Prometheus.
func writeStopConfig(t *testing.T, c estest.Config, run logsRun, deterministicIDs bool) string {
	t.Helper()
	return writeQueueCollectorConfig(t, c, run, "", fmt.Sprintf(`    deterministic_ids:
      enabled: %v
    retry:
      initial_interval: 3s
      max_interval: 5s
    sending_queue:
      storage: file_storage
      num_consumers: 4
      queue_size: 1000
      batch:
        flush_timeout: 200ms
        min_size: 100000
        max_size: 200000
`, deterministicIDs))
}
