// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cluster

// The cluster tests run the factory-built exporter against a cluster of real nodes started by
// `scripts/es.sh cluster-start` (see docs/cluster.md): requests spread over the configured
// endpoints, nodes found by discovery, a node killed under load, and a rolling restart. They
// are built only with the tag `cluster` (`make cluster`), since they stop and start nodes.
// Each scenario writes to its own data stream with one replica, and checks from Elasticsearch
// itself (node statistics, documents counted per record) what the exporter did.

package integrationtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// clusterDatasetPrefix starts the dataset of every cluster scenario; the replicated template
// covers the data streams logs-<prefix>*.otel-*.
const clusterDatasetPrefix = "clu_"

// Timing of the scenarios, chosen for a 2-core machine that runs the three nodes.
const (
	greenTimeout   = 3 * time.Minute  // a node's restart plus the recovery of its shard copies
	settleTimeout  = 2 * time.Minute  // the exporter's last retries after the load stops
	loadRate       = 1000             // records per second
	loadBatch      = 200              // records per push
	loadWorkers    = 8                // pushes in flight
	resurrectBound = 90 * time.Second // elastic-transport sets a dead node aside for 60 s the first time
)

// clusterScenario is one scenario: the cluster, a data stream of its own, and an exporter whose
// logs and metrics the test reads.
type clusterScenario struct {
	cl      *estest.Cluster
	dataset string
	index   string
	runID   string
	set     exporter.Settings
	logs    *observer.ObservedLogs
	tel     *componenttest.Telemetry
}

func newClusterScenario(t *testing.T, name string) *clusterScenario {
	t.Helper()
	cl := estest.ClusterFromEnv(t)
	cl.Client().InstallOTelTemplates(t)
	cl.InstallReplicatedLogsTemplate(t, clusterDatasetPrefix)
	// Every scenario starts from a green cluster with all its nodes.
	cl.WaitHealth(t, 0, len(cl.Nodes), "green", greenTimeout)
	set, logs, tel := observedSettings(t, zapcore.InfoLevel)
	runID := loadgen.NewRunID()
	dataset := clusterDatasetPrefix + name + "_" + runID
	return &clusterScenario{
		cl: cl, dataset: dataset, index: "logs-" + dataset + ".otel-*", runID: runID,
		set: set, logs: logs, tel: tel,
	}
}

// config returns an exporter configuration for endpoints: basic auth and the cluster's CA, no
// sending queue (a push returns once its documents have their outcome, so a push without error
// is an acknowledged write), deterministic ids (a record sent twice is stored once), and
// retries a second apart at most, for two minutes.
func (s *clusterScenario) config(endpoints ...string) *elasticsearchexporter.Config {
	cfg := elasticsearchexporter.NewFactory().CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = endpoints
	cfg.Authentication.User = s.cl.User
	cfg.Authentication.Password = configopaque.String(s.cl.Password)
	cfg.TLS.CAFile = s.cl.CACert
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.DeterministicIDs.Enabled = true
	cfg.Retry.InitialInterval = 100 * time.Millisecond
	cfg.Retry.MaxInterval = time.Second
	cfg.Retry.MaxRetries = 120
	cfg.Timeout = 30 * time.Second
	return cfg
}

func (s *clusterScenario) start(t *testing.T, cfg *elasticsearchexporter.Config) exporter.Logs {
	t.Helper()
	exp, err := elasticsearchexporter.NewFactory().CreateLogs(context.Background(), s.set, cfg)
	return startExporter(t, exp, err)
}

// records returns the log records seq first to first+n-1 of the scenario's run. A record's
// content depends only on its seq, so its deterministic id does too.
func (s *clusterScenario) records(first, n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "cluster-test")
	rl.Resource().Attributes().PutStr("data_stream.dataset", s.dataset)
	rl.Resource().Attributes().PutStr(loadgen.RunIDAttribute, s.runID)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(loadgen.ScopeName)
	for seq := first; seq < first+n; seq++ {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq)*1_000_000))
		r.SetSeverityNumber(plog.SeverityNumberInfo)
		r.Body().SetStr(fmt.Sprintf("cluster record %d of run %s", seq, s.runID))
		r.Attributes().PutInt("loadgen.seq", int64(seq))
	}
	return ld
}

// load pushes records at loadRate from loadWorkers goroutines until stop is called.
type load struct {
	mu       sync.Mutex
	acked    []bool // by seq: the push that carried it returned nil
	sent     int
	failed   int // records of pushes that returned an error
	errs     []error
	stopOnce sync.Once
	stopCh   chan struct{}
	wg       sync.WaitGroup
}

func (s *clusterScenario) startLoad(t *testing.T, exp exporter.Logs) *load {
	t.Helper()
	l := &load{stopCh: make(chan struct{})}
	var next atomic.Int64
	tokens := make(chan int, loadWorkers)
	l.wg.Go(func() { // paces the pushes: one token per batch
		defer close(tokens)
		tick := time.NewTicker(time.Second * loadBatch / loadRate)
		defer tick.Stop()
		for {
			select {
			case <-l.stopCh:
				return
			case <-tick.C:
				select {
				case tokens <- int(next.Add(loadBatch) - loadBatch):
				default: // the pushes are behind; the rate drops instead of piling up
				}
			}
		}
	})
	for range loadWorkers {
		l.wg.Go(func() {
			for first := range tokens {
				err := exp.ConsumeLogs(context.Background(), s.records(first, loadBatch))
				l.mu.Lock()
				if need := first + loadBatch; need > len(l.acked) {
					l.acked = append(l.acked, make([]bool, need-len(l.acked))...)
				}
				l.sent += loadBatch
				if err == nil {
					for i := first; i < first+loadBatch; i++ {
						l.acked[i] = true
					}
				} else {
					l.failed += loadBatch
					if len(l.errs) < 5 {
						l.errs = append(l.errs, err)
					}
				}
				l.mu.Unlock()
			}
		})
	}
	t.Cleanup(l.stop)
	return l
}

// stop stops the load and waits for the pushes in flight.
func (l *load) stop() {
	l.stopOnce.Do(func() { close(l.stopCh) })
	l.wg.Wait()
}

func (l *load) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.acked {
		if a {
			n++
		}
	}
	return n
}

// delivery is what Elasticsearch holds of a run, against what was acknowledged.
type delivery struct {
	sent, acked, failed          int
	docs, distinct               int
	missing, duplicated          int
	exporterIndexed, exporterDup int64
	exporterOther                map[string]int64
}

func (d delivery) String() string {
	return fmt.Sprintf("sent %d records (%d acknowledged, %d in failed pushes); Elasticsearch holds %d documents of %d distinct records: "+
		"%d acknowledged records missing, %d records stored more than once; the exporter counted %d indexed, %d duplicate, others %v",
		d.sent, d.acked, d.failed, d.docs, d.distinct, d.missing, d.duplicated, d.exporterIndexed, d.exporterDup, d.exporterOther)
}

// check stops the load, waits for the pushes in flight, and reads back the run: every
// acknowledged record must be stored exactly once, and what the exporter counted must match.
func (s *clusterScenario) check(t *testing.T, l *load) delivery {
	t.Helper()
	l.stop()
	es := s.cl.Client()
	es.Refresh(t, s.index)
	seqs := seqCounts(t, es, s.index)
	l.mu.Lock()
	d := delivery{sent: l.sent, failed: l.failed, distinct: len(seqs)}
	for seq, a := range l.acked {
		if a {
			d.acked++
			if seqs[seq] == 0 {
				d.missing++
			}
		}
	}
	errs := l.errs
	l.mu.Unlock()
	for _, n := range seqs {
		d.docs += n
		if n > 1 {
			d.duplicated++
		}
	}
	fates := countertest.MustSumBy(t, s.tel, "otelcol.elasticsearch.docs.fate", "fate")
	d.exporterIndexed, d.exporterDup = fates["indexed"], fates["duplicate"]
	d.exporterOther = map[string]int64{}
	for f, n := range fates {
		if f != "indexed" && f != "duplicate" {
			d.exporterOther[f] = n
		}
	}
	t.Logf("delivery: %s", d)
	for _, err := range errs {
		t.Logf("a failed push: %v", err)
	}
	assert.Positive(t, d.acked, "nothing was acknowledged")
	assert.Zero(t, d.missing, "acknowledged records missing from Elasticsearch")
	assert.Zero(t, d.duplicated, "records stored more than once despite deterministic ids")
	// Each stored document has one final outcome at the exporter: indexed, or duplicate when an
	// earlier attempt (whose answer was lost) or Elasticsearch's own retry of a shard operation
	// had written it.
	assert.Equal(t, int64(d.docs), d.exporterIndexed+d.exporterDup,
		"the exporter's indexed and duplicate counts do not add up to the documents Elasticsearch holds")
	return d
}

// retried sums the documents sent again: alone (otelcol.elasticsearch.docs.retried) or with
// their whole request (otelcol.elasticsearch.docs.retried_http_request).
func (s *clusterScenario) retried(t *testing.T) int64 {
	t.Helper()
	return countertest.Sum(t, s.tel, "otelcol.elasticsearch.docs.retried") +
		countertest.Sum(t, s.tel, "otelcol.elasticsearch.docs.retried_http_request")
}

// problems returns the exporter's log lines at Warn level or above, with their fields.
func (s *clusterScenario) problems() []string {
	var out []string
	for _, e := range s.logs.All() {
		if e.Level < zapcore.WarnLevel {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", e.Level.CapitalString(), e.Message)
		for k, v := range e.ContextMap() {
			fmt.Fprintf(&b, " %s=%.200v", k, v)
		}
		out = append(out, b.String())
	}
	return out
}

// logProblems logs how many lines the exporter logged per level and message, and the Warn and
// Error lines (the first few in full); it returns the number of Warn and Error lines.
func (s *clusterScenario) logProblems(t *testing.T) int {
	t.Helper()
	byMessage := map[string]int{}
	for _, e := range s.logs.All() {
		byMessage[e.Level.CapitalString()+" "+e.Message]++
	}
	t.Logf("exporter log lines by level and message: %v", byMessage)
	lines := s.problems()
	for i, l := range lines {
		if i == 10 {
			t.Logf("... %d more", len(lines)-i)
			break
		}
		t.Logf("exporter log: %.600s", l)
	}
	return len(lines)
}

// waitFor polls cond every 500 ms for up to timeout and fails with what when it stays false.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	t0 := time.Now()
	for !cond() {
		if time.Since(t0) > timeout {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
	return time.Since(t0)
}

// exporterAgent is the start of the exporter's User-Agent header in the nodes' HTTP client
// statistics.
const exporterAgent = "otelcol/"

// spread is one node's share of the exporter's traffic between two readings of
// [estest.Cluster.NodeStats].
type spread struct {
	coordinatingBytes int64 // bytes of index operations the node coordinated
	httpOpened        int64 // HTTP connections it accepted
	exporterRequests  int64 // requests from the exporter's user agent
}

func statsDelta(before, after map[string]estest.NodeStat) map[string]spread {
	out := map[string]spread{}
	for name, a := range after {
		b := before[name]
		var req int64
		for agent, n := range a.Requests {
			if strings.HasPrefix(agent, exporterAgent) {
				req += n - b.Requests[agent]
			}
		}
		out[name] = spread{coordinatingBytes: a.CoordinatingBytes - b.CoordinatingBytes, httpOpened: a.HTTPOpened - b.HTTPOpened, exporterRequests: req}
	}
	return out
}

// TestClusterEndpointsSpread configures every node in `endpoints` and checks from the nodes'
// own statistics that each coordinated a fair share of the bulk requests' documents.
func TestClusterEndpointsSpread(t *testing.T) {
	s := newClusterScenario(t, "spread")
	exp := s.start(t, s.config(s.cl.Endpoints()...))
	before := s.cl.NodeStats(t, 0)
	l := s.startLoad(t, exp)
	time.Sleep(15 * time.Second)
	l.stop()
	delta := statsDelta(before, s.cl.NodeStats(t, 0))
	s.check(t, l)
	var total, requests int64
	for _, n := range delta {
		total += n.coordinatingBytes
		requests += n.exporterRequests
	}
	for name, n := range delta {
		t.Logf("%s coordinated %d bytes of index operations (%.0f%%), served %d of the exporter's %d requests, accepted %d HTTP connections",
			name, n.coordinatingBytes, 100*float64(n.coordinatingBytes)/float64(max(total, 1)), n.exporterRequests, requests, n.httpOpened)
	}
	require.Len(t, delta, len(s.cl.Nodes))
	for name, n := range delta {
		// Round-robin over the nodes: each gets about 1/N; a quarter of that is far from chance.
		assert.Greater(t, n.coordinatingBytes, total/int64(len(delta))/4, "%s coordinated too few of the bulk documents", name)
		assert.Greater(t, n.exporterRequests, requests/int64(len(delta))/4, "%s served too few of the exporter's requests", name)
	}
	assert.Zero(t, s.logProblems(t), "warnings or errors in a run without faults")
}

// TestClusterNodeKilled kills one node (SIGKILL) under load. Each node sits behind a TCP proxy
// of the test that counts the connections the exporter opens to it: while the node is down the
// exporter keeps writing through the others and tries the dead node only now and then; once it
// is back the exporter uses it again. Every acknowledged record is stored exactly once.
func TestClusterNodeKilled(t *testing.T) {
	s := newClusterScenario(t, "kill")
	const victim = 2 // node index as es.sh numbers it
	proxies := make([]*countingProxy, len(s.cl.Nodes))
	urls := make([]string, len(s.cl.Nodes))
	for i, n := range s.cl.Nodes {
		proxies[i] = newCountingProxy(t, n.Endpoint)
		urls[i] = "https://" + proxies[i].addr()
	}
	exp := s.start(t, s.config(urls...))
	loadStart := time.Now()
	l := s.startLoad(t, exp)
	time.Sleep(8 * time.Second)
	p := proxies[victim-1]
	require.Positive(t, p.answeredBytes(), "node %d answered nothing before the kill", victim)
	rateBefore := float64(l.ackedCount()) / time.Since(loadStart).Seconds()

	master := s.cl.Master(t, 0)
	killAt := time.Now()
	s.cl.Script(t, "node-kill", strconv.Itoa(victim))
	ackedAtKill := l.ackedCount()
	connsAtKill := p.accepted()
	// Elasticsearch itself holds writes until it has noticed the loss and promoted the replicas
	// of the node's primaries (and elected a master, when the node was the master): measure
	// the exporter once the cluster works on without the node.
	s.cl.WaitHealth(t, 0, len(s.cl.Nodes)-1, "yellow", greenTimeout)
	recovered := time.Since(killAt)
	ackedAtRecovery := l.ackedCount()
	window := 15 * time.Second
	time.Sleep(window)
	down := time.Since(killAt)
	connsWhileDown := p.accepted() - connsAtKill
	failsWhileDown := p.upstreamFailures()
	ackedInWindow := l.ackedCount() - ackedAtRecovery
	t.Logf("node-%d killed (the master was %s); the cluster worked on without it %s later, %d records acknowledged meanwhile; "+
		"then %d records acknowledged in %s (%.0f/s, %.0f/s before the kill); "+
		"in the %s the node was down the exporter opened %d connections to it (%d found the node gone)",
		victim, master, recovered.Round(100*time.Millisecond), ackedAtRecovery-ackedAtKill,
		ackedInWindow, window, float64(ackedInWindow)/window.Seconds(), rateBefore,
		down.Round(time.Second), connsWhileDown, failsWhileDown)
	assert.Greater(t, float64(ackedInWindow), rateBefore*window.Seconds()/4, "the exporter did not keep writing through the other nodes")
	// A node set aside is tried again after 60 s the first time: a handful of attempts, not a loop.
	assert.LessOrEqual(t, connsWhileDown, 10, "the dead node was tried in a tight loop")

	restartAt := time.Now()
	s.cl.Script(t, "node-start", strconv.Itoa(victim))
	restarted := time.Since(restartAt)
	s.cl.WaitHealth(t, 0, len(s.cl.Nodes), "green", greenTimeout)
	green := time.Since(restartAt)
	answeredBack := p.answeredBytes()
	back := waitFor(t, resurrectBound, fmt.Sprintf("the exporter sends to node-%d again", victim), func() bool {
		return p.answeredBytes() > answeredBack
	})
	t.Logf("node-%d restarted in %s, cluster green %s after the restart; the exporter used the node again %s after green, %s after the kill",
		victim, restarted.Round(time.Second), green.Round(time.Second), back.Round(time.Second), time.Since(killAt).Round(time.Second))
	time.Sleep(3 * time.Second)
	d := s.check(t, l)
	reqs := countertest.MustSumBy(t, s.tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome")
	t.Logf("bulk request attempts by outcome: %v; documents sent again: %d", reqs, s.retried(t))
	assert.Zero(t, d.failed, "pushes failed although two nodes kept running")
	// The transport sets a node aside only after a request to it failed: at least one did, and
	// the telemetry says so.
	assert.Positive(t, reqs["internal_server_error"], "no bulk request attempt counted without an answer")
	assert.Positive(t, s.retried(t), "no document counted as sent again")
	n := s.logProblems(t)
	// The requests in flight on the node when it died fail once each (one line per failed
	// attempt at most); a flood would be hundreds.
	assert.LessOrEqual(t, n, 30, "too many warnings and errors for one node's death")
	// The log names the node once when it stops answering and once when it answers again.
	node := "https://" + p.addr()
	downLines, upLines := s.nodeLines(node, nodeDownLine), s.nodeLines(node, nodeUpLine)
	assert.GreaterOrEqual(t, downLines, 1, "no line says node-%d (%s) does not answer", victim, node)
	assert.LessOrEqual(t, downLines, 3, "node-%d's outage logged once per failed request?", victim)
	assert.Equal(t, downLines, upLines, "each line saying node-%d does not answer is followed by one saying it answers again", victim)
}

// The exporter's log lines about a node, by message.
const (
	nodeDownLine = "Elasticsearch node does not answer"
	nodeUpLine   = "Elasticsearch node answers again"
)

// nodeLines returns how many of the exporter's log lines start with message and name node.
func (s *clusterScenario) nodeLines(node, message string) int {
	n := 0
	for _, e := range s.logs.All() {
		if strings.HasPrefix(e.Message, message) && e.ContextMap()["node"] == node {
			n++
		}
	}
	return n
}

// TestClusterRollingRestart stops and starts each node in turn (SIGTERM, then start, then wait
// for green) under load: nothing acknowledged is lost and the exporter's counts match what
// Elasticsearch holds.
func TestClusterRollingRestart(t *testing.T) {
	s := newClusterScenario(t, "rolling")
	exp := s.start(t, s.config(s.cl.Endpoints()...))
	l := s.startLoad(t, exp)
	time.Sleep(5 * time.Second)
	t0 := time.Now()
	for i := range s.cl.Nodes {
		node := strconv.Itoa(i + 1)
		via := (i + 1) % len(s.cl.Nodes) // ask a node that stays up
		step := time.Now()
		s.cl.Script(t, "node-stop", node)
		stopped := time.Since(step)
		s.cl.Script(t, "node-start", node)
		started := time.Since(step)
		s.cl.WaitHealth(t, via, len(s.cl.Nodes), "green", greenTimeout)
		t.Logf("node-%s: stopped in %s, rejoined %s, cluster green %s after the stop began; %d records acknowledged so far",
			node, stopped.Round(100*time.Millisecond), started.Round(time.Second), time.Since(step).Round(time.Second), l.ackedCount())
	}
	t.Logf("rolling restart of %d nodes took %s", len(s.cl.Nodes), time.Since(t0).Round(time.Second))
	time.Sleep(3 * time.Second)
	d := s.check(t, l)
	reqs := countertest.MustSumBy(t, s.tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome")
	t.Logf("bulk request attempts by outcome: %v; documents sent again: %d", reqs, s.retried(t))
	assert.Zero(t, d.failed, "pushes failed during a rolling restart")
	// Each node was in use when it stopped, so a request to it failed at least once.
	assert.GreaterOrEqual(t, reqs["internal_server_error"], int64(len(s.cl.Nodes)), "fewer request attempts counted without an answer than nodes stopped")
	n := s.logProblems(t)
	assert.LessOrEqual(t, n, 30*len(s.cl.Nodes), "too many warnings and errors for a rolling restart")
}

// countingProxy forwards TCP connections to one node (TLS passes through untouched) and counts
// the connections the exporter opens and the bytes the node answers.
type countingProxy struct {
	ln       net.Listener
	target   string
	acc      atomic.Int64
	answered atomic.Int64
	upFailed atomic.Int64
	wg       sync.WaitGroup
}

func newCountingProxy(t *testing.T, endpoint string) *countingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &countingProxy{ln: ln, target: strings.TrimPrefix(strings.TrimPrefix(endpoint, "https://"), "http://")}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *countingProxy) addr() string { return p.ln.Addr().String() }

// accepted is the connections the exporter opened; answeredBytes the bytes the node sent back
// through the proxy; upstreamFailures the connections for which the node could not be reached.
func (p *countingProxy) accepted() int         { return int(p.acc.Load()) }
func (p *countingProxy) answeredBytes() int64  { return p.answered.Load() }
func (p *countingProxy) upstreamFailures() int { return int(p.upFailed.Load()) }

func (p *countingProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.acc.Add(1)
		p.wg.Add(1)
		go p.splice(c)
	}
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func (p *countingProxy) splice(c net.Conn) {
	defer p.wg.Done()
	defer c.Close()
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		p.upFailed.Add(1)
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.Close()
		close(done)
	}()
	_, _ = io.Copy(countingWriter{c, &p.answered}, up)
	_ = c.Close()
	<-done
}

// TestClusterDiscoveryNodeKilled kills a node found by discovery and starts it again, with a
// discover::interval shorter than its downtime: rediscovery drops the node while it is down
// and adds it back once it answers again. Afterwards every node must take an even share of the
// exporter's requests again, including after the time at which the node's first failure would
// have let it back (60 s).
//
// elastic-transport-go v8.8.0's pool alone lists the node twice (the timer of the entry that
// rediscovery dropped puts it back beside the new one) and gives it two shares; the exporter's
// node pool keeps a dropped entry out (docs/cluster.md#what-the-client-does).
func TestClusterDiscoveryNodeKilled(t *testing.T) {
	s := newClusterScenario(t, "discokill")
	const interval = 5 * time.Second
	victim := len(s.cl.Nodes) // not node 1, the configured one
	cfg := s.config(s.cl.Endpoint)
	cfg.Discovery.OnStart = true
	cfg.Discovery.Interval = interval
	exp := s.start(t, cfg)
	l := s.startLoad(t, exp)
	time.Sleep(5 * time.Second)
	killAt := time.Now()
	s.cl.Script(t, "node-kill", strconv.Itoa(victim))
	time.Sleep(4 * interval)
	s.cl.Script(t, "node-start", strconv.Itoa(victim))
	s.cl.WaitHealth(t, 0, len(s.cl.Nodes), "green", greenTimeout)
	// Past the 60 s after which the transport lets a node set aside at its first failure back.
	if wait := 65*time.Second - time.Since(killAt); wait > 0 {
		time.Sleep(wait)
	}
	before := s.cl.NodeStats(t, 0)
	time.Sleep(15 * time.Second)
	delta := statsDelta(before, s.cl.NodeStats(t, 0))
	var requests int64
	for _, n := range delta {
		requests += n.exporterRequests
	}
	for name, n := range delta {
		t.Logf("%s served %d of the exporter's %d requests (%.0f%%) from %s to %s after the kill",
			name, n.exporterRequests, requests, 100*float64(n.exporterRequests)/float64(max(requests, 1)),
			time.Since(killAt).Round(time.Second)-15*time.Second, time.Since(killAt).Round(time.Second))
	}
	s.check(t, l)
	t.Logf("bulk request attempts by outcome: %v", countertest.MustSumBy(t, s.tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome"))
	for name, n := range delta {
		assert.Positive(t, n.exporterRequests, "%s got no requests after the restart", name)
		// An even share is 1/N; a node listed twice gets 2/(N+1).
		assert.LessOrEqual(t, float64(n.exporterRequests), 1.4*float64(requests)/float64(len(delta)),
			"%s takes more than its share of the requests: listed twice?", name)
	}
	s.logProblems(t)
}

// TestClusterDiscovery configures one node with discover::on_start: the exporter finds the
// others and spreads its requests over all of them; a node added later is used after
// discover::interval. It runs last: the added node stays in the cluster until cluster-stop.
func TestClusterDiscovery(t *testing.T) {
	s := newClusterScenario(t, "discover")
	const interval = 5 * time.Second
	cfg := s.config(s.cl.Endpoint)
	cfg.Discovery.OnStart = true
	cfg.Discovery.Interval = interval
	exp := s.start(t, cfg)
	before := s.cl.NodeStats(t, 0)
	l := s.startLoad(t, exp)
	time.Sleep(10 * time.Second)
	delta := statsDelta(before, s.cl.NodeStats(t, 0))
	for name, n := range delta {
		t.Logf("discovered: %s coordinated %d bytes of index operations, served %d exporter requests", name, n.coordinatingBytes, n.exporterRequests)
		assert.Positive(t, n.coordinatingBytes, "%s, found by discovery, got no bulk documents", name)
	}

	addAt := time.Now()
	added := s.cl.AddNode(t)
	joined := time.Since(addAt)
	name := fmt.Sprintf("node-%d", len(s.cl.Nodes))
	base := s.cl.NodeStats(t, 0)[name].CoordinatingBytes
	joinedAt := time.Now()
	waitFor(t, interval+30*time.Second, name+", added later, gets bulk documents", func() bool {
		return s.cl.NodeStats(t, 0)[name].CoordinatingBytes > base
	})
	t.Logf("%s (%s) joined %s after node-add; the exporter sent to it %s after it joined (discover::interval %s)",
		name, added.Endpoint, joined.Round(time.Second), time.Since(joinedAt).Round(time.Second), interval)
	s.cl.WaitHealth(t, 0, len(s.cl.Nodes), "green", greenTimeout)
	s.check(t, l)
	assert.Zero(t, s.logProblems(t), "warnings or errors in a run without faults")
}
