// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
)

// esNode is a real Elasticsearch node, as the env file of scripts/es.sh describes it: where it
// listens, the credentials and CA to reach it, and the pid of its process, whose CPU time is
// the node's cost.
type esNode struct {
	endpoint, user, password, caFile string
	pid                              int
	client                           *http.Client
	tlsConfig                        *tls.Config // trusts the node's CA
}

func loadESNode(path string) (*esNode, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (start the node with scripts/es.sh start)", err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	if err = sc.Err(); err != nil {
		return nil, err
	}
	n := &esNode{endpoint: env["ES_ENDPOINT"], user: env["ES_USER"], password: env["ES_PASSWORD"], caFile: env["ES_CA_CERT"]}
	if n.pid, err = strconv.Atoi(env["ES_PID"]); err != nil || n.endpoint == "" {
		return nil, fmt.Errorf("%s names no ES_ENDPOINT or ES_PID", path)
	}
	if _, err := processCPU(n.pid); err != nil {
		return nil, fmt.Errorf("the node's process %d (ES_PID of %s): %w", n.pid, path, err)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if n.caFile != "" {
		pem, err := os.ReadFile(n.caFile)
		if err != nil {
			return nil, err
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", n.caFile)
		}
	}
	n.tlsConfig = tlsConfig
	n.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	return n, nil
}

// do sends a request to the node and returns the body of a 2xx answer.
func (n *esNode) do(method, path string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequest(method, n.endpoint+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.SetBasicAuth(n.user, n.password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s %s: %s: %.300s", method, path, resp.Status, b)
	}
	return b, resp.StatusCode, err
}

// connection is the YAML that points the exporter at the node.
func (n *esNode) connection() string { return n.connectionWith(n.caFile) }

// connectionWith is the YAML of the node's credentials with caFile as the CA to trust: the
// node's, or a delay proxy's in front of it.
func (n *esNode) connectionWith(caFile string) string {
	c := fmt.Sprintf("user: %s\npassword: %q\n", n.user, n.password)
	if caFile != "" {
		c += "tls:\n  ca_file: " + caFile + "\n"
	}
	return c
}

// installTemplates puts the otel stand-in index templates of dir (NAME-otel.json) where the node
// has no built-in NAME-otel@template, as the demo does.
func (n *esNode) installTemplates(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*-otel.json"))
	if err != nil {
		return fmt.Errorf("templates in %s (-templates): %w", dir, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("no *-otel.json templates in %s (-templates)", dir)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if _, code, _ := n.do(http.MethodGet, "/_index_template/"+name+"@template", nil); code == http.StatusOK {
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if _, _, err := n.do(http.MethodPut, "/_index_template/otelcol-es-"+name, body); err != nil {
			return err
		}
	}
	return nil
}

// nodeStatsPath reads what the node indexed into the data streams the runs write, on primaries:
// documents, and bulk shard requests (one per bulk request here: every document of a request
// goes to one data stream of one shard).
const nodeStatsPath = "/logs-*,traces-*,metrics-*/_stats/indexing,bulk?filter_path=_all.primaries.indexing.index_total,_all.primaries.bulk.total_operations"

// stats returns the documents the node indexed, its bulk requests and its process's CPU time.
func (n *esNode) stats() (sinkCounters, error) {
	var c sinkCounters
	b, _, err := n.do(http.MethodGet, nodeStatsPath, nil)
	if err != nil {
		return c, err
	}
	var s struct {
		All struct {
			Primaries struct {
				Indexing struct {
					IndexTotal int64 `json:"index_total"`
				} `json:"indexing"`
				Bulk struct {
					TotalOperations int64 `json:"total_operations"`
				} `json:"bulk"`
			} `json:"primaries"`
		} `json:"_all"`
	}
	if err = json.Unmarshal(b, &s); err != nil {
		return c, fmt.Errorf("%s: %w", nodeStatsPath, err)
	}
	cpu, err := processCPU(n.pid)
	if err != nil {
		return c, err
	}
	c.Documents, c.Requests, c.CPUNanos = s.All.Primaries.Indexing.IndexTotal, s.All.Primaries.Bulk.TotalOperations, cpu.Nanoseconds()
	return c, nil
}

// nodeReport is what a run with -es-env adds: the node and its CPU at rest.
type nodeReport struct {
	Endpoint  string  `json:"endpoint"`
	Version   string  `json:"version"`
	IdleCores float64 `json:"idle_cpu_cores"` // the node's CPU at rest, over 5 s before the runs
	Warmup    string  `json:"warmup"`
}

// runRealNode measures the collector against the real node of -es-env: after a warm-up of each
// signal that is not counted (the node's JIT and first merges), -repeats rounds, each over every
// size of request (the first run's, then -sizes, in an order that turns each round) and every
// signal, so that a drift of the node shows in every row alike. Each run sends fresh realistic
// records (a body is never sent twice: a time series data stream would answer it as a duplicate)
// and measures the collector's CPU time and the node's, per million documents the node indexed.
func runRealNode(o options, rep *report, cpus string) error {
	if o.corpus != corpusRealistic {
		return errors.New("-es-env sends the realistic records only: a time series data stream keeps one document per series and timestamp, and the uniform records repeat")
	}
	node, err := loadESNode(o.esEnv)
	if err != nil {
		return err
	}
	if err = node.installTemplates(o.templates); err != nil {
		return err
	}
	nr := &nodeReport{Endpoint: node.endpoint, Warmup: (o.shortWarmup + o.shortWindow).String()}
	if b, _, doErr := node.do(http.MethodGet, "/_nodes/_local?filter_path=nodes.*.version", nil); doErr == nil {
		var v struct {
			Nodes map[string]struct {
				Version string `json:"version"`
			} `json:"nodes"`
		}
		if json.Unmarshal(b, &v) == nil {
			for _, nd := range v.Nodes {
				nr.Version = nd.Version
			}
		}
	}
	if nr.IdleCores, err = node.busyCores(5 * time.Second); err != nil {
		return err
	}
	rep.Node = nr
	fmt.Printf("real node: Elasticsearch %s at %s (pid %d), at rest on %.2f CPUs\n", nr.Version, node.endpoint, node.pid, nr.IdleCores)

	// One source of fresh records per signal for the whole measurement, from 100 minutes ago
	// (inside the look-back of a new time series data stream), so that no series is sent twice
	// at one time; metrics move on by a millisecond per request.
	sources := map[string]*benchdata.Realistic{}
	for _, sig := range o.signals {
		g := benchdata.NewRealistic(benchdata.RealisticSeed)
		g.Base, g.MetricStep = time.Now().Add(-100*time.Minute), time.Millisecond
		sources[sig] = g
	}
	spec := func(sig string, n int) (runSpec, func()) {
		src, stop := newFresh(sig, sources[sig], n)
		return runSpec{
			signal: sig, exporter: exporterES, settings: o.exporterConfig, conn: node.connection(), records: n,
			source: src, sinkURL: node.endpoint, sink: node,
		}, stop
	}
	for _, sig := range o.signals {
		sp, stop := spec(sig, o.records[sig])
		sp.warmup, sp.window = o.shortWarmup, o.shortWindow
		fmt.Printf("warm-up of the node: %s (not counted)\n", sig)
		_, _, runErr := measureRun(o, sp, cpus)
		stop()
		if runErr != nil {
			return fmt.Errorf("warm-up (%s): %w", sig, runErr)
		}
	}
	collectors, err := nodeCollectors(o, rep.Machine.GoVersion)
	if err != nil {
		return err
	}
	rep.Collectors = collectors
	routes, closeRoutes, err := nodeRoutes(o, node)
	if err != nil {
		return err
	}
	defer closeRoutes()
	for _, rt := range routes {
		if rt.proxy != nil {
			rep.AddedRoundTrips = append(rep.AddedRoundTrips, rt.delay.String())
			fmt.Printf("delay proxy: %s to %s, each request held %s\n", rt.url, node.endpoint, rt.delay)
		}
	}
	group := 0 // turns the order of the collectors from one run of them to the next
	for round := range o.repeats {
		for i := range len(o.sizes) + 1 {
			// Each round starts at another size, so that no size is always measured first.
			k := (i + round) % (len(o.sizes) + 1)
			for _, sig := range o.signals {
				n := o.records[sig]
				if k > 0 {
					n = o.sizes[k-1]
				}
				for j := range routes {
					// Each round starts at another delay too.
					rt := routes[(j+round)%len(routes)]
					for c := range collectors {
						// Each (size, signal, delay) starts with another collector, so that none is
						// always measured first.
						col := collectors[(c+group)%len(collectors)]
						// The node merges and refreshes what the last run wrote for a while after
						// it: wait for that to end, so that this run is not billed for it.
						settled, err := node.settle(nr.IdleCores)
						if err != nil {
							return err
						}
						sp, stop := spec(sig, n)
						sp.warmup, sp.window = o.shortWarmup, o.shortWindow
						sp.collector, sp.conn, sp.sinkURL = col.Path, rt.conn, rt.url
						var tags []string
						if len(collectors) > 1 {
							tags = append(tags, col.Name)
						}
						if rt.proxy != nil {
							tags = append(tags, rt.delay.String())
						}
						sp.tag = strings.Join(tags, "-")
						r, _, err := measureRun(o, sp, cpus)
						stop()
						where := "straight to the node"
						if rt.proxy != nil {
							where = "added round trip " + rt.delay.String()
						}
						if err != nil {
							return fmt.Errorf("%s at %d records, collector %s, %s, round %d: %w", sig, n, col.Name, where, round+1, err)
						}
						r.Round, r.Collector = round+1, col.Name
						r.NodeSettleSeconds = settled.Seconds()
						if rt.proxy != nil {
							r.AddedRoundTrip, r.Proxied = rt.delay.String(), true
						}
						fmt.Printf("%s/%d, collector %s, %s, round %d: Elasticsearch %.1f CPU s per million documents, %.0f documents per bulk request (the node settled in %.0f s)\n",
							sig, n, col.Name, where, round+1, r.sinkCPUPerMillion(), r.DocsPerRequest, settled.Seconds())
						rep.Runs = append(rep.Runs, r)
					}
					group++
				}
			}
		}
	}
	if err := writeResults(o, *rep); err != nil {
		return err
	}
	if len(o.delays) > 0 || len(o.compare) > 0 {
		printLatencyReport(os.Stdout, o, *rep)
	} else {
		printNodeReport(os.Stdout, o, *rep)
	}
	return nil
}

// Before each run the node is given up to settleMax to come back within settleMargin CPUs of
// its CPU at rest, measured over settleSample at a time.
const (
	settleMax    = 60 * time.Second
	settleMargin = 0.05
	settleSample = time.Second
)

// settleSentence says in a report what settle does before each run.
func settleSentence() string {
	return fmt.Sprintf("Before each run the node came back to within %.2f CPUs of that (waiting up to %s), so that no run is billed for the merges and refreshes of the run before it.",
		settleMargin, settleMax)
}

// settle waits until the node's CPU over settleSample is within settleMargin of idle CPUs, or
// settleMax has passed, and returns how long it waited.
func (n *esNode) settle(idle float64) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < settleMax {
		cores, err := n.busyCores(settleSample)
		if err != nil {
			return 0, err
		}
		if cores <= idle+settleMargin {
			break
		}
	}
	return time.Since(start), nil
}

// busyCores is the node's CPU over the next d, in CPUs.
func (n *esNode) busyCores(d time.Duration) (float64, error) {
	c0, err := processCPU(n.pid)
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	c1, err := processCPU(n.pid)
	if err != nil {
		return 0, err
	}
	return (c1 - c0).Seconds() / d.Seconds(), nil
}

// nodeCollectors returns -collector (named -collector-name) and the builds of -compare, each
// with the Go version it was built with; the names must differ.
func nodeCollectors(o options, goVersion string) ([]namedCollector, error) {
	collectors := []namedCollector{{Name: o.collectorName, Path: o.collector, GoVersion: goVersion}}
	for _, c := range o.compare {
		bi, err := buildinfo.ReadFile(c.Path)
		if err != nil {
			return nil, fmt.Errorf("-compare %s=%s: %w", c.Name, c.Path, err)
		}
		c.GoVersion = bi.GoVersion
		collectors = append(collectors, c)
	}
	for i, c := range collectors {
		for _, d := range collectors[:i] {
			if c.Name == d.Name {
				return nil, fmt.Errorf("two collectors named %q (-collector-name, -compare)", c.Name)
			}
		}
	}
	return collectors, nil
}

// route is how the collector reaches the node: straight, or through a delay proxy.
type route struct {
	proxy *delayProxy // nil: straight to the node
	delay time.Duration
	url   string // the exporter's endpoint
	conn  string // the exporter's credentials and CA
}

// nodeRoutes returns the routes of -delays, a delay proxy for each, or the one straight to the
// node without -delays; closeRoutes stops the proxies.
func nodeRoutes(o options, node *esNode) (routes []route, closeRoutes func(), err error) {
	closeRoutes = func() {
		for _, rt := range routes {
			if rt.proxy != nil {
				rt.proxy.Close()
			}
		}
	}
	if len(o.delays) == 0 {
		return []route{{url: node.endpoint, conn: node.connection()}}, closeRoutes, nil
	}
	for _, d := range o.delays {
		p, err := newDelayProxy(node.endpoint, node.tlsConfig, d)
		if err != nil {
			closeRoutes()
			return nil, nil, err
		}
		routes = append(routes, route{proxy: p, delay: d, url: p.URL()})
		ca, err := filepath.Abs(filepath.Join(o.out, "delay-proxy-"+d.String()+"-ca.pem"))
		if err == nil {
			err = p.writeCA(ca)
		}
		if err != nil {
			closeRoutes()
			return nil, nil, err
		}
		routes[len(routes)-1].conn = node.connectionWith(ca)
	}
	return routes, closeRoutes, nil
}
