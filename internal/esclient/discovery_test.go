// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// (e) Discovery over https: the seed node lists itself and a second node; the discovered nodes
// are reached over https, trusted through tls::ca_file, and sent the same credentials as the
// seed, also when the only credentials are the endpoint URL's user info.
func TestDiscoveryKeepsSchemeTLSAndCredentials(t *testing.T) {
	tests := []struct {
		name     string
		userInfo string
		edit     func(*Config)
		want     string
	}{
		{name: "user and password", edit: func(c *Config) { c.User, c.Password = "elastic", "s3cret" }, want: "Basic ZWxhc3RpYzpzM2NyZXQ="},
		{name: "api_key", edit: func(c *Config) { c.APIKey = "id:key" }, want: "APIKey aWQ6a2V5"},
		{name: "URL user info only", userInfo: "elastic:s3cret@", edit: func(*Config) {}, want: "Basic ZWxhc3RpYzpzM2NyZXQ="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			auth := map[string][]string{} // by node, for GET /
			var nodesHTTP string
			handler := func(name string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("X-Elastic-Product", "Elasticsearch")
					if r.URL.Path == "/_nodes/http" {
						_, _ = fmt.Fprint(w, nodesHTTP)
						return
					}
					mu.Lock()
					auth[name] = append(auth[name], r.Header.Get("Authorization"))
					mu.Unlock()
					_, _ = fmt.Fprint(w, `{}`)
				}
			}
			seed := httptest.NewTLSServer(handler("seed"))
			t.Cleanup(seed.Close)
			other := httptest.NewTLSServer(handler("other"))
			t.Cleanup(other.Close)
			nodesHTTP = fmt.Sprintf(`{"nodes":{"n1":{"roles":["data"],"http":{"publish_address":%q}},"n2":{"roles":["data"],"http":{"publish_address":%q}}}}`,
				seed.Listener.Addr().String(), other.Listener.Addr().String())

			// Both servers present httptest's certificate, for 127.0.0.1.
			ca := filepath.Join(t.TempDir(), "ca.pem")
			require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: seed.Certificate().Raw}), 0o600))
			cfg := testConfig("https://" + tt.userInfo + seed.Listener.Addr().String())
			cfg.HTTP.TLS.CAFile = ca
			cfg.DiscoverOnStart = true
			tt.edit(&cfg)
			c, _ := newTestClient(t, cfg)
			require.NoError(t, c.transport.DiscoverNodesContext(context.Background()))

			discovered := sortedURLs(c)
			want := []string{"https://" + seed.Listener.Addr().String(), "https://" + other.Listener.Addr().String()}
			slices.Sort(want)
			assert.Equal(t, want, discovered, "the configured scheme, no user info")

			for range 4 {
				get(t, c)
			}
			assert.Equal(t, map[string][]string{"seed": {tt.want, tt.want}, "other": {tt.want, tt.want}}, auth)
		})
	}
}

// (f) The URL of a discovered node is the scheme of the first endpoint and the node's
// http.publish_address: of "host/ip:port" the host name and port, of "ip:port" the IP and port.
// The endpoint's path is not kept, master-only nodes are skipped, and an IPv6 address
// published without a host name ("[::1]:9200") gives a URL no request can use, "[:9200": the
// transport cuts the address at its first ':'.
func TestDiscoveryPublishAddressForms(t *testing.T) {
	nodes := &fakeNodes{nodesHTTP: `{"nodes":{
		"n1":{"roles":["data","ingest"],"http":{"publish_address":"es-1.example/10.0.0.1:9201"}},
		"n2":{"roles":["data"],"http":{"publish_address":"10.0.0.2:9202"}},
		"n3":{"roles":["data"],"http":{"publish_address":"[::1]:9203"}},
		"n4":{"roles":["master"],"http":{"publish_address":"10.0.0.4:9204"}},
		"n5":{"roles":["data"],"http":{"publish_address":"es-5.example/[2001:db8::5]:9205"}}
	}}`}
	cfg := testConfig("https://seed.example:9200/prefix")
	sendThrough(&cfg, nodes)
	c, _ := newTestClient(t, cfg)
	require.NoError(t, c.transport.DiscoverNodesContext(context.Background()))
	got := sortedURLs(c)
	assert.Equal(t, []string{
		"https://10.0.0.2:9202",
		"https://[:9203",
		"https://es-1.example:9201",
		"https://es-5.example:9205",
	}, got)
}

// A node joining the cluster is listed by `_nodes/http` before its HTTP server has published an
// address; the transport would make of it the URL "https://:", to which every request fails. It
// is left out until a discovery finds its address.
func TestDiscoveryLeavesOutANodeWithoutPublishAddress(t *testing.T) {
	nodes := &fakeNodes{nodesHTTP: `{"nodes":{
		"a":{"roles":["data"],"http":{"publish_address":"es-a:9200"}},
		"joining":{"roles":["data"]}
	}}`}
	cfg := testConfig("https://es-a:9200")
	sendThrough(&cfg, nodes)
	c, _ := newTestClient(t, cfg)
	require.NoError(t, c.transport.DiscoverNodesContext(context.Background()))
	assert.Equal(t, []string{"https://es-a:9200"}, sortedURLs(c))

	nodes.mu.Lock()
	nodes.nodesHTTP = `{"nodes":{
		"a":{"roles":["data"],"http":{"publish_address":"es-a:9200"}},
		"joining":{"roles":["data"],"http":{"publish_address":"es-c:9200"}}
	}}`
	nodes.mu.Unlock()
	require.NoError(t, c.transport.DiscoverNodesContext(context.Background()))
	assert.Equal(t, []string{"https://es-a:9200", "https://es-c:9200"}, sortedURLs(c))
}

// Discovery replaces a single endpoint by the nodes found, and a discovery that fails keeps the
// endpoints: the exporter logs it and sends to the configured endpoints.
func TestDiscoveryFailureKeepsEndpoints(t *testing.T) {
	nodes := &fakeNodes{}
	nodes.setDown("seed.example:9200", true)
	cfg := testConfig("http://seed.example:9200")
	sendThrough(&cfg, nodes)
	cfg.DiscoverOnStart = true
	c, logs := newTestClient(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // CheckServer stops after the first version check
	c.CheckServer(ctx)
	assert.Equal(t, 1, logs.FilterMessageSnippet("node discovery failed; using the configured endpoints").Len())
	assert.Equal(t, []string{"http://seed.example:9200"}, c.RedactedURLs())
}

func TestUserInfoCredentials(t *testing.T) {
	parse := func(s ...string) []*url.URL {
		out := make([]*url.URL, len(s))
		for i, u := range s {
			var err error
			out[i], err = url.Parse(u)
			require.NoError(t, err)
		}
		return out
	}
	tests := []struct {
		name           string
		cfg            Config
		urls           []*url.URL
		user, password string
		warn           bool
	}{
		{name: "user set", cfg: Config{User: "u", Password: "p"}, urls: parse("https://x:y@a"), user: "u", password: "p"},
		{name: "api_key set", cfg: Config{APIKey: "k"}, urls: parse("https://x:y@a")},
		{name: "from the URL", urls: parse("https://x:y@a"), user: "x", password: "y"},
		{name: "same on every URL", urls: parse("https://x:y@a", "https://b", "https://x:y@c"), user: "x", password: "y"},
		{name: "no password", urls: parse("https://x@a")},
		{name: "different", urls: parse("https://x:y@a", "https://x:z@b")},
		{name: "different, with discovery", cfg: Config{DiscoverOnStart: true}, urls: parse("https://x:y@a", "https://w:y@b"), warn: true},
		{name: "none", urls: parse("https://a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.WarnLevel)
			user, password := userInfoCredentials(tt.cfg, tt.urls, zap.New(core))
			assert.Equal(t, tt.user, user)
			assert.Equal(t, tt.password, password)
			assert.Equal(t, tt.warn, logs.Len() == 1)
		})
	}
}

// A discovery keeps the state of the nodes it finds again: one set aside stays aside until its
// timer. A node set aside that discovery no longer finds stays out after its timer
// (nodePool's correction: the transport's timer would put it back among the nodes in use).
func TestDiscoveryDropsNodeSetAside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{nodesHTTP: `{"nodes":{
			"a":{"roles":["data"],"http":{"publish_address":"es-a:9200"}},
			"b":{"roles":["data"],"http":{"publish_address":"es-b:9200"}}
		}}`}
		c, _ := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB, nodeC))
		nodes.setDown(nodeB, true)
		nodes.setDown(nodeC, true)
		require.ErrorIs(t, sendUntil(t, c, nodes, nodeB), errNodeDown)
		require.ErrorIs(t, sendUntil(t, c, nodes, nodeC), errNodeDown)
		nodes.setDown(nodeB, false)
		nodes.setDown(nodeC, false)
		require.NoError(t, c.transport.DiscoverNodesContext(context.Background())) // finds a and b
		assert.Equal(t, []string{nodeA, nodeA}, hostsOf(t, c, nodes, 2), "b is still set aside")

		time.Sleep(time.Minute)
		synctest.Wait()
		assert.ElementsMatch(t, []string{nodeA, nodeA, nodeA, nodeB, nodeB, nodeB}, hostsOf(t, c, nodes, 6), "b is back, c is not")
		assert.Equal(t, []string{"http://es-a:9200", "http://es-b:9200"}, c.RedactedURLs())
	})
}

// Periodic discovery warns once while it fails, keeping the nodes in use, and says when it
// works again.
func TestPeriodicDiscoveryLogsFailureOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{} // answers /_nodes/http with {}: no nodes to read
		cfg := fakeNodesConfig(nodes, nodeA)
		cfg.DiscoverInterval = time.Minute
		c, logs := newTestClient(t, cfg)
		time.Sleep(3*time.Minute + time.Second)
		synctest.Wait()
		failed := logs.FilterMessageSnippet("Elasticsearch node discovery failed").All()
		require.Len(t, failed, 1, "one warning for three failed discoveries")
		assert.Equal(t, []any{"http://" + nodeA}, failed[0].ContextMap()["nodes"])
		assert.Equal(t, []string{"http://" + nodeA}, c.RedactedURLs())

		nodes.mu.Lock()
		nodes.nodesHTTP = `{"nodes":{"a":{"roles":["data"],"http":{"publish_address":"es-a:9200"}},"b":{"roles":["data"],"http":{"publish_address":"es-b:9200"}}}}`
		nodes.mu.Unlock()
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, 1, logs.FilterMessage("Elasticsearch node discovery works again").Len())
		assert.ElementsMatch(t, []string{"http://" + nodeA, "http://" + nodeB}, c.RedactedURLs())
	})
}

// With periodic discovery and one discovered node down, a discovery that the node does not
// answer is asked of the next node: every round succeeds, and none is logged, where the
// transport's discovery alone (one node asked per round) failed at every other interval,
// logging "discovery failed" and "works again" in turn. When no node answers, one warning;
// when one answers again, one line.
func TestPeriodicDiscoveryWithOneNodeDownLogsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{nodesHTTP: `{"nodes":{
			"a":{"roles":["data"],"http":{"publish_address":"es-a:9200"}},
			"b":{"roles":["data"],"http":{"publish_address":"es-b:9200"}}
		}}`}
		cfg := fakeNodesConfig(nodes, nodeA, nodeB)
		cfg.DiscoverInterval = time.Minute
		c, logs := newTestClient(t, cfg)
		nodes.setDown(nodeB, true)
		time.Sleep(6*time.Minute + time.Second)
		synctest.Wait()
		require.Positive(t, nodes.count(nodeB), "discovery was asked of the node that is down")
		assert.Zero(t, logs.FilterMessageSnippet("Elasticsearch node discovery").Len(), "every round was answered by a node")
		assert.Equal(t, []string{"http://" + nodeA, "http://" + nodeB}, sortedURLs(c), "b is still listed by the cluster")

		nodes.setDown(nodeA, true)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		failed := logs.FilterMessageSnippet("Elasticsearch node discovery failed").All()
		require.Len(t, failed, 1, "one warning for three rounds that no node answered")

		nodes.setDown(nodeA, false)
		nodes.setDown(nodeB, false)
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, 1, logs.FilterMessage("Elasticsearch node discovery works again").Len())
		assert.Equal(t, 1, logs.FilterMessageSnippet("Elasticsearch node discovery failed").Len())
	})
}

// Discovery at start is asked of the next endpoint when the first does not answer.
func TestDiscoveryOnStartAsksNextEndpoint(t *testing.T) {
	nodes := &fakeNodes{nodesHTTP: `{"nodes":{"c":{"roles":["data"],"http":{"publish_address":"es-c:9200"}}}}`}
	nodes.setDown(nodeA, true)
	cfg := fakeNodesConfig(nodes, nodeA, nodeB)
	cfg.DiscoverOnStart = true
	c, logs := newTestClient(t, cfg)
	require.NoError(t, c.discover(t.Context()))
	assert.Equal(t, []string{"http://" + nodeC}, c.RedactedURLs())
	assert.Equal(t, 1, nodes.count(nodeA), "asked first, no answer")
	assert.Equal(t, 1, nodes.count(nodeB), "asked next, answered")
	assert.Zero(t, logs.FilterMessageSnippet("discovery failed").Len())
}
