// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// The forward proxies of scripts/proxy.sh (tinyproxy), between the exporter and the node: one
// that allows CONNECT to the node's port, one that refuses it. Each test reads what its
// requests did from the proxy's own log, from where the log ended when the test began.

// proxies is the env of scripts/proxy.sh.
type proxies struct {
	url, log                 string // the proxy that allows CONNECT to the node's port
	refusingURL, refusingLog string // the proxy that answers 403 to a CONNECT to the node
}

// proxiesFromEnv reads the proxies from the environment (scripts/integration.sh exports
// them), else from the env file of scripts/proxy.sh.
func proxiesFromEnv(t *testing.T) proxies {
	t.Helper()
	vals := map[string]string{}
	for _, k := range []string{"PROXY_URL", "PROXY_LOG", "PROXY_REFUSING_URL", "PROXY_REFUSING_LOG"} {
		vals[k] = os.Getenv(k)
	}
	if vals["PROXY_URL"] == "" {
		mod, err := estest.ModuleDir()
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(filepath.Dir(mod), ".proxy", "env"))
		if err != nil {
			estest.SkipOrFail(t, "no forward proxy runs (PROXY_URL is empty and .proxy/env cannot be read: "+err.Error()+")",
				"start them with `scripts/proxy.sh start` (it installs tinyproxy when missing)")
		}
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
				vals[k] = v
			}
		}
	}
	p := proxies{vals["PROXY_URL"], vals["PROXY_LOG"], vals["PROXY_REFUSING_URL"], vals["PROXY_REFUSING_LOG"]}
	for k, v := range vals {
		require.NotEmpty(t, v, "%s of scripts/proxy.sh", k)
	}
	return p
}

// proxyLog reads what a proxy logs from now on.
type proxyLog struct {
	path  string
	start int64
}

func tailProxyLog(t *testing.T, path string) *proxyLog {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err, "the proxy's log")
	return &proxyLog{path: path, start: fi.Size()}
}

// since returns the lines logged since tailProxyLog.
func (l *proxyLog) since(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(l.path)
	require.NoError(t, err)
	if int64(len(b)) < l.start {
		return string(b)
	}
	return string(b[l.start:])
}

// waitFor waits until the proxy has logged a line that holds want since tailProxyLog.
func (l *proxyLog) waitFor(t *testing.T, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(l.since(t), want) }, 30*time.Second, 20*time.Millisecond,
		"the proxy's log %s does not show %q; it logged:\n%s", l.path, want, l.since(t))
}

// hostPort is the host and port of an endpoint URL.
func hostPort(t *testing.T, endpoint string) (host, port string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	require.NotEmpty(t, u.Port(), "the node's endpoint %s names no port", endpoint)
	return u.Hostname(), u.Port()
}

// TestProxyURLTunnelsToTheNode: with proxy_url, the exporter reaches the node over HTTPS
// through the proxy's CONNECT tunnel, and a document is indexed.
func TestProxyURLTunnelsToTheNode(t *testing.T) {
	p := proxiesFromEnv(t)
	s := newSuite(t)
	host, port := hostPort(t, s.es.Endpoint)
	tail := tailProxyLog(t, p.log)

	cfg := s.config()
	cfg.ProxyURL = p.url
	exp := s.logsExporter(t, cfg)
	s.waitConnected(t)
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(2)))

	docs := s.search(t, "logs-"+s.id+".otel-default", s.id)
	assert.Len(t, docs, 2)
	assert.Equal(t, int64(2), s.docs(t, "indexed"))
	// tinyproxy logs each CONNECT it is asked for, and the connection it opened for it.
	tail.waitFor(t, "CONNECT "+host+":"+port+" HTTP/1.1")
	assert.Contains(t, tail.since(t), `Established connection to host "`+host+`"`)
	t.Logf("the proxy's log:\n%s", tail.since(t))
}

// TestProxyRefusingTheTunnelIsNamed: a proxy that refuses the CONNECT to the node (tinyproxy
// allows CONNECT to listed ports only, and the node's is not one) makes the start-up check
// say that the proxy of proxy_url refused, with the proxy's answer.
func TestProxyRefusingTheTunnelIsNamed(t *testing.T) {
	p := proxiesFromEnv(t)
	s := newSuite(t)
	host, port := hostPort(t, s.es.Endpoint)
	tail := tailProxyLog(t, p.refusingLog)

	cfg := s.config()
	cfg.ProxyURL = p.refusingURL
	s.logsExporter(t, cfg)
	var line string
	require.Eventually(t, func() bool {
		warned := s.logs.FilterMessageSnippet("Elasticsearch version check failed").All()
		if len(warned) == 0 {
			return false
		}
		line = fmt.Sprint(warned[0].ContextMap()["error"])
		return true
	}, 30*time.Second, 20*time.Millisecond, "the version check did not warn")
	t.Logf("the start-up line's error: %s", line)
	// tinyproxy answers "403 Access violation"; Go's error keeps the reason phrase only.
	assert.Contains(t, line, "the proxy "+p.refusingURL+" (proxy_url) did not open a tunnel to "+host+":"+port+
		`: it answered the CONNECT with "Access violation"; check that the proxy allows CONNECT to that host and port, or change proxy_url`)
	tail.waitFor(t, "Refused CONNECT method on port "+port)
}

// TestUnreachableProxyIsNamed: a proxy_url where nothing listens is named as such.
func TestUnreachableProxyIsNamed(t *testing.T) {
	s := newSuite(t)
	cfg := s.config()
	cfg.ProxyURL = "http://" + freeAddr(t)
	s.logsExporter(t, cfg)
	require.Eventually(t, func() bool {
		for _, e := range s.logs.FilterMessageSnippet("Elasticsearch version check failed").All() {
			if strings.Contains(fmt.Sprint(e.ContextMap()["error"]),
				"cannot connect to the proxy "+cfg.ProxyURL+" (proxy_url); check proxy_url and that the proxy runs") {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "the version check did not name the unreachable proxy")
}

// TestCollectorThroughProxy runs the otelcol-es binary, a process of its own, so that it reads
// HTTPS_PROXY afresh (net/http reads the proxy environment once per process). Go never sends
// a request for "localhost" or a loopback IP address through the environment's proxy, whatever
// HTTPS_PROXY and NO_PROXY say; a node on loopback is therefore also named 127.1, which Go
// takes for a host name, not an address, and which the proxy resolves to 127.0.0.1. Its
// certificate (scripts/es.sh) is for localhost and 127.0.0.1, hence
// tls::server_name_override.
func TestCollectorThroughProxy(t *testing.T) {
	p := proxiesFromEnv(t)
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)
	host, port := hostPort(t, es.Endpoint)

	type run struct {
		name, endpoint, proxyURL, httpsProxy string
		proxied                              bool
		connect                              string // the CONNECT request the proxy logs
	}
	tests := []run{{name: "proxy_url", endpoint: es.Endpoint, proxyURL: p.url, proxied: true, connect: "CONNECT " + host + ":" + port}}
	if host == "127.0.0.1" || host == "localhost" {
		tests = append(tests,
			run{name: "HTTPS_PROXY", endpoint: "https://127.1:" + port, httpsProxy: p.url, proxied: true, connect: "CONNECT 127.1:" + port},
			run{name: "HTTPS_PROXY and a loopback address", endpoint: es.Endpoint, httpsProxy: p.url, proxied: false})
	} else {
		tests = append(tests, run{name: "HTTPS_PROXY", endpoint: es.Endpoint, httpsProxy: p.url, proxied: true, connect: "CONNECT " + host + ":" + port})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := tailProxyLog(t, p.log)
			run := newLogsRun(t, "proxy")
			serverName := ""
			if strings.Contains(tt.endpoint, "127.1:") {
				serverName = "localhost"
			}
			cfgPath := writeProxyCollectorConfig(t, es.Config, run.httpAddr, tt.proxyURL, serverName)
			node := es.Config
			node.Endpoint = tt.endpoint
			env := append(collectorEnv(node), "HTTPS_PROXY="+tt.httpsProxy, "https_proxy=", "HTTP_PROXY=", "http_proxy=",
				"NO_PROXY=", "no_proxy=", "ALL_PROXY=", "all_proxy=")
			col := startCollector(t, bin, cfgPath, env)
			col.waitListening(t, run.httpAddr)

			n := run.sendAndCount(t, es, col, 3, 3, "proxy-test")
			require.Equal(t, 3, n, "the 3 log records did not reach %s; collector output:\n%s", run.index, col.output())
			assert.Contains(t, col.output(), "Connected to Elasticsearch")

			code, err := col.stop(30 * time.Second)
			require.NoError(t, err)
			assert.Equal(t, 0, code)
			logged := tail.since(t)
			if tt.proxied {
				assert.Contains(t, logged, tt.connect+" HTTP/1.1", "the proxy's log")
			} else {
				assert.NotContains(t, logged, "CONNECT ", "a loopback endpoint went through the proxy of HTTPS_PROXY")
			}
			t.Logf("the proxy logged %d lines for this run", strings.Count(logged, "\n"))
		})
	}
}

// writeProxyCollectorConfig writes a collector configuration with one logs pipeline from the
// OTLP/HTTP receiver on httpAddr to the exporter, whose endpoint is ES_ENDPOINT, with
// proxy_url and tls::server_name_override when they are not empty.
func writeProxyCollectorConfig(t *testing.T, c estest.Config, httpAddr, proxyURL, serverName string) string {
	t.Helper()
	auth, _ := exporterAuthYAML(c)
	var extra strings.Builder
	if proxyURL != "" {
		extra.WriteString("    proxy_url: " + proxyURL + "\n")
	}
	if c.CACert != "" || serverName != "" {
		extra.WriteString("    tls:\n")
		if c.CACert != "" {
			extra.WriteString("      ca_file: ${env:ES_CA_CERT}\n")
		}
		if serverName != "" {
			extra.WriteString("      server_name_override: " + serverName + "\n")
		}
	}
	return pipelineConfig{httpAddr: httpAddr, exporter: auth + extra.String() + flushTimeout("200ms")}.write(t)
}
