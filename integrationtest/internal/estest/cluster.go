package estest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cluster is a cluster of several nodes started by `scripts/es.sh cluster-start`, described by
// the environment variables ES_CLUSTER_ENDPOINTS (comma-separated, node 1 first),
// ES_CLUSTER_USER, ES_CLUSTER_PASSWORD, ES_CLUSTER_CA_CERT and ES_CLUSTER_STATE_DIR, or by the
// env file the script writes, <repo>/.es/cluster/env (ES_CLUSTER_ENV_FILE names another file).
// Nodes are numbered from 1, as the script numbers them.
type Cluster struct {
	Config             // the configuration of node 1 (Endpoint), shared by every node
	Nodes    []*Client // one client per node, Nodes[0] is node 1
	StateDir string    // ES_STATE_DIR of the script that runs the cluster
	script   string
}

const clusterStartHint = "start a cluster with `scripts/es.sh cluster-start` (it writes .es/cluster/env), " +
	"or set ES_CLUSTER_ENDPOINTS with ES_CLUSTER_USER, ES_CLUSTER_PASSWORD, ES_CLUSTER_CA_CERT and ES_CLUSTER_STATE_DIR"

// ClusterFromEnv returns the configured cluster after checking that node 1 answers. Without a
// configured cluster the test is skipped, or fails when ES_REQUIRED=1 (see [SkipOrFail]).
func ClusterFromEnv(t testing.TB) *Cluster {
	t.Helper()
	vals, source, err := lookupClusterEnv()
	if err != nil {
		t.Fatalf("estest: %v", err)
	}
	if vals["ES_CLUSTER_ENDPOINTS"] == "" {
		SkipOrFail(t, "no Elasticsearch cluster configured", clusterStartHint)
	}
	mod, err := ModuleDir()
	if err != nil {
		t.Fatalf("estest: %v", err)
	}
	c := &Cluster{StateDir: vals["ES_CLUSTER_STATE_DIR"], script: filepath.Join(filepath.Dir(mod), "scripts", "es.sh")}
	for ep := range strings.SplitSeq(vals["ES_CLUSTER_ENDPOINTS"], ",") {
		cfg := Config{
			Endpoint: strings.TrimRight(strings.TrimSpace(ep), "/"),
			User:     vals["ES_CLUSTER_USER"], Password: vals["ES_CLUSTER_PASSWORD"],
			CACert: vals["ES_CLUSTER_CA_CERT"], Source: source,
		}
		n, err := NewClient(cfg)
		if err != nil {
			t.Fatalf("estest: %v", err)
		}
		c.Nodes = append(c.Nodes, n)
	}
	c.Config = c.Nodes[0].Config
	if err := c.Nodes[0].Ping(); err != nil {
		t.Fatalf("estest: cluster node 1 at %s (from %s) does not answer: %v; %s", c.Endpoint, source, err, clusterStartHint)
	}
	return c
}

func lookupClusterEnv() (map[string]string, string, error) {
	if ep := os.Getenv("ES_CLUSTER_ENDPOINTS"); ep != "" {
		vals := map[string]string{}
		for _, k := range []string{"ES_CLUSTER_ENDPOINTS", "ES_CLUSTER_USER", "ES_CLUSTER_PASSWORD", "ES_CLUSTER_CA_CERT", "ES_CLUSTER_STATE_DIR"} {
			vals[k] = os.Getenv(k)
		}
		return vals, "environment", nil
	}
	path := os.Getenv("ES_CLUSTER_ENV_FILE")
	if path == "" {
		mod, err := ModuleDir()
		if err != nil {
			return nil, "", nil //nolint:nilerr // no module, no env file: not configured
		}
		path = filepath.Join(filepath.Dir(mod), ".es", "cluster", "env")
		if _, err := os.Stat(path); err != nil {
			return nil, "", nil //nolint:nilerr // no env file: not configured
		}
	}
	vals, err := readEnvFile(path)
	return vals, path, err
}

// Client returns a client for the whole cluster through node 1.
func (c *Cluster) Client() *Client { return c.Nodes[0] }

// Endpoints returns the nodes' URLs, node 1 first.
func (c *Cluster) Endpoints() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Endpoint
	}
	return out
}

// Script runs scripts/es.sh with args against this cluster's state folder and returns its
// standard output; it fails the test with the script's output when it fails.
func (c *Cluster) Script(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(c.script, args...) //nolint:gosec // the repository's scripts/es.sh, with the test's arguments
	cmd.Env = os.Environ()
	if c.StateDir != "" {
		cmd.Env = append(cmd.Env, "ES_STATE_DIR="+c.StateDir)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("estest: %s %s: %v\n%s%s", c.script, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// AddNode starts one more node that joins the cluster and returns its client.
func (c *Cluster) AddNode(t testing.TB) *Client {
	t.Helper()
	out := strings.TrimSpace(c.Script(t, "node-add"))
	lines := strings.Split(out, "\n")
	cfg := c.Config
	cfg.Endpoint = strings.TrimSpace(lines[len(lines)-1])
	n, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("estest: node-add printed %q: %v", out, err)
	}
	c.Nodes = append(c.Nodes, n)
	return n
}

// Health is the part of GET _cluster/health a test reads.
type Health struct {
	Status           string `json:"status"`
	NumberOfNodes    int    `json:"number_of_nodes"`
	UnassignedShards int    `json:"unassigned_shards"`
	TimedOut         bool   `json:"timed_out"`
}

// WaitHealth waits up to timeout, asking node `via` (0-based), until the cluster has nodes
// nodes and the given status, and fails the test with the last answer otherwise.
func (c *Cluster) WaitHealth(t testing.TB, via, nodes int, status string, timeout time.Duration) Health {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last Health
	var lastErr string
	for {
		q := fmt.Sprintf("/_cluster/health?wait_for_status=%s&wait_for_nodes=%d&timeout=5s", status, nodes)
		code, body, err := c.Nodes[via].Do(http.MethodGet, q, nil)
		switch {
		case err != nil:
			lastErr = err.Error()
		case code == http.StatusOK:
			if jerr := json.Unmarshal(body, &last); jerr == nil && !last.TimedOut {
				return last
			}
			lastErr = truncate(body)
		default:
			lastErr = fmt.Sprintf("%d %s", code, truncate(body))
		}
		if time.Now().After(deadline) {
			t.Fatalf("estest: the cluster did not reach %s with %d nodes within %s; last answer: %s", status, nodes, timeout, lastErr)
		}
		time.Sleep(time.Second)
	}
}

// Master returns the name of the elected master node, asked through node via (0-based).
func (c *Cluster) Master(t testing.TB, via int) string {
	t.Helper()
	return strings.TrimSpace(string(c.Nodes[via].MustDo(t, http.MethodGet, "/_cat/master?h=node", nil)))
}

// NodeStat is one node's counters from GET _nodes/stats.
type NodeStat struct {
	Name string
	// CoordinatingBytes is indexing_pressure.memory.total.coordinating_in_bytes: the bytes of
	// the index operations this node coordinated, that is received in bulk requests.
	CoordinatingBytes int64
	// HTTPOpened is http.total_opened: the HTTP connections the node accepted.
	HTTPOpened int64
	// Requests sums the request_count of the node's HTTP clients (http.clients, open and
	// recently closed) by user agent.
	Requests map[string]int64
}

// NodeStats returns each node's counters by node name, asked through node via (0-based).
func (c *Cluster) NodeStats(t testing.TB, via int) map[string]NodeStat {
	t.Helper()
	body := c.Nodes[via].MustDo(t, http.MethodGet, "/_nodes/stats/indexing_pressure,http", nil)
	var r struct {
		Nodes map[string]struct {
			Name             string `json:"name"`
			IndexingPressure struct {
				Memory struct {
					Total struct {
						CoordinatingInBytes int64 `json:"coordinating_in_bytes"`
					} `json:"total"`
				} `json:"memory"`
			} `json:"indexing_pressure"`
			HTTP struct {
				TotalOpened int64 `json:"total_opened"`
				Clients     []struct {
					Agent        string `json:"agent"`
					RequestCount int64  `json:"request_count"`
				} `json:"clients"`
			} `json:"http"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("estest: decoding _nodes/stats: %v", err)
	}
	out := map[string]NodeStat{}
	for _, n := range r.Nodes {
		st := NodeStat{
			Name: n.Name, CoordinatingBytes: n.IndexingPressure.Memory.Total.CoordinatingInBytes,
			HTTPOpened: n.HTTP.TotalOpened, Requests: map[string]int64{},
		}
		for _, cl := range n.HTTP.Clients {
			st.Requests[cl.Agent] += cl.RequestCount
		}
		out[n.Name] = st
	}
	return out
}

// InstallReplicatedLogsTemplate puts an index template for the data streams logs-<prefix>*.otel-*
// that is the logs stand-in template (see [OTelTemplates]) with a higher priority, two primary
// shards and one replica each, so that losing one node loses no acknowledged write. Its other
// index settings (the logsdb mode and the index sort) are kept.
func (c *Cluster) InstallReplicatedLogsTemplate(t testing.TB, prefix string) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(OTelTemplates()[0].Body, &body); err != nil {
		t.Fatalf("estest: the logs stand-in template: %v", err)
	}
	body["index_patterns"] = []string{"logs-" + prefix + "*.otel-*"}
	body["priority"] = 400
	tmpl, _ := body["template"].(map[string]any)
	if tmpl == nil {
		tmpl = map[string]any{}
		body["template"] = tmpl
	}
	settings, _ := tmpl["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
		tmpl["settings"] = settings
	}
	index, _ := settings["index"].(map[string]any)
	if index == nil {
		index = map[string]any{}
		settings["index"] = index
	}
	index["number_of_shards"], index["number_of_replicas"] = 2, 1
	c.Client().MustDo(t, http.MethodPut, "/_index_template/otelcol-es-cluster-"+url.PathEscape(prefix), body)
}
