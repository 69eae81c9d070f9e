// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// These tests pin the behavior of elastic-transport-go (v8.8.0) that the exporter relies on
// with several nodes: round-robin, a failed request not sent again, a failed node set aside
// and taken back on a schedule, requests still sent when every node is set aside. Node faults
// come from fakeNodes, an HTTP transport that answers for named hosts without a network, and
// time from a synctest bubble; a request that a real node dies in the middle of goes to
// httptest servers.

const (
	nodeA = "es-a:9200"
	nodeB = "es-b:9200"
	nodeC = "es-c:9200"
)

// (a) Requests go to the endpoints in turn, in their order.
func TestTransportRoundRobin(t *testing.T) {
	nodes := &fakeNodes{}
	c, _ := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB, nodeC))
	assert.Equal(t, []string{nodeA, nodeB, nodeC, nodeA, nodeB, nodeC}, hostsOf(t, c, nodes, 6))
}

// (b) A node dies while a POST _bulk is in flight, after it read the request: the client
// returns the error and does not send the request to another node (retries are off in the
// transport, and net/http does not replay a POST); it sets the node aside, and the next
// requests go to the other nodes. Whether the dead node stored the documents is unknown: the
// bulk indexer sends them again, which duplicates them unless they have an _id (a duplicate
// then comes back 409).
func TestTransportRequestToDyingNodeIsNotResent(t *testing.T) {
	const body = `{"create":{}}` + "\n{}\n"
	servers := map[string]*fakees.Server{}
	var urls []string
	for _, name := range []string{"a", "b", "c"} {
		srv := fakees.New(t)
		if name == "b" {
			srv.Faults = fakees.Faults{DropConnectionRate: 1} // reads each bulk request, then closes its connection
		}
		servers[name] = srv
		urls = append(urls, srv.URL)
	}
	cfg := testConfig("")
	cfg.Endpoints = Endpoints{Endpoints: urls}
	c, logs := newTestClient(t, cfg)

	post := func() error {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "/_bulk",
			strings.NewReader(body))
		require.NoError(t, err)
		resp, err := c.Perform(req)
		if resp != nil {
			require.NoError(t, resp.Body.Close())
		}
		return err
	}
	require.NoError(t, post()) // a
	require.Error(t, post())   // b dies
	for range 4 {              // a and c only
		require.NoError(t, post())
	}
	received := map[string]int{}
	for name, srv := range servers {
		for _, b := range srv.Bodies() {
			// The request as sent: an action line and a document, each a line of its own.
			got := strings.SplitAfter(string(b), "\n")
			want := strings.SplitAfter(body, "\n")
			require.Len(t, got, len(want), "node %s: %q", name, b)
			for i := range want[:len(want)-1] {
				assert.JSONEq(t, want[i], got[i], "node %s, line %d", name, i)
			}
			assert.Empty(t, got[len(got)-1], "node %s: the body ends with a newline", name)
		}
		received[name] = len(srv.Bodies())
	}
	assert.Equal(t, map[string]int{"a": 3, "b": 1, "c": 2}, received)

	down := logs.FilterMessageSnippet("Elasticsearch node does not answer").All()
	require.Len(t, down, 1)
	assert.Equal(t, servers["b"].URL, down[0].ContextMap()["node"])
	assert.Equal(t, "/_bulk", down[0].ContextMap()["path"])
}

// (c) A node that fails is set aside for resurrectAfter(failures in a row), then taken back
// for one request; while it keeps failing, the wait doubles. Once it answers, its count starts
// again: its next failure sets it aside for 60s (nodePool's correction: the transport alone
// never resets the count once its timer has taken the node back).
func TestTransportResurrectionSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{}
		c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB))
		nodes.setDown(nodeB, true)
		require.ErrorIs(t, sendUntil(t, c, nodes, nodeB), errNodeDown)
		var total time.Duration
		for n := 1; n <= 7; n++ {
			want := resurrectAfter(n)
			total += want
			time.Sleep(want - time.Second)
			synctest.Wait()
			assert.Equal(t, []string{nodeA, nodeA, nodeA}, hostsOf(t, c, nodes, 3), "failure %d: b is set aside for %s", n, want)
			time.Sleep(time.Second)
			synctest.Wait()
			if n < 7 {
				require.ErrorIs(t, sendUntil(t, c, nodes, nodeB), errNodeDown, "failure %d: b is taken back after %s", n, want)
			}
		}
		nodes.setDown(nodeB, false)
		require.NoError(t, sendUntil(t, c, nodes, nodeB))
		back := logs.FilterMessage("Elasticsearch node answers again").All()
		require.Len(t, back, 1)
		assert.Equal(t, "http://"+nodeB, back[0].ContextMap()["node"])
		assert.Equal(t, total, back[0].ContextMap()["down_for"])
		assert.EqualValues(t, 7, back[0].ContextMap()["failed_requests"])
		assert.Equal(t, 1, logs.FilterMessageSnippet("Elasticsearch node does not answer").Len(), "one line per outage")

		// After answering, the count starts again.
		nodes.setDown(nodeB, true)
		require.ErrorIs(t, sendUntil(t, c, nodes, nodeB), errNodeDown)
		nodes.setDown(nodeB, false)
		time.Sleep(time.Minute - time.Second)
		synctest.Wait()
		assert.Equal(t, []string{nodeA, nodeA}, hostsOf(t, c, nodes, 2))
		time.Sleep(time.Second)
		synctest.Wait()
		require.NoError(t, sendUntil(t, c, nodes, nodeB), "b is back after 60s, not after 32 minutes")
	})
}

// (d) When every node is set aside, a request still goes out: to the set-aside node with the
// fewest failures, taken back at once. No request is refused for want of a node. At the first
// answer, every node is taken back (nodePool's correction: the transport alone keeps the
// others out until their timers, up to 32 minutes, and sends everything to one node).
func TestTransportAllNodesDown(t *testing.T) {
	nodes := &fakeNodes{}
	nodes.setDown(nodeA, true)
	nodes.setDown(nodeB, true)
	c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB))
	for range 10 {
		_, err := send(context.Background(), t, c, nodes)
		require.ErrorIs(t, err, errNodeDown, "each request reaches a node")
	}
	assert.Len(t, nodes.hits, 10)
	assert.Equal(t, 2, logs.FilterMessageSnippet("Elasticsearch node does not answer").Len(), "one line per node, not per request")

	nodes.setDown(nodeA, false)
	nodes.setDown(nodeB, false)
	hosts := hostsOf(t, c, nodes, 4)
	assert.ElementsMatch(t, []string{nodeA, nodeA, nodeB, nodeB}, hosts, "both in use again at the first answer")
	assert.Equal(t, 2, logs.FilterMessage("Elasticsearch node answers again").Len())
}

// A request the caller cancels (as at shutdown) or whose time runs out sets its node aside
// too: the client counts any error of the round trip. Only the timeout is logged as the
// node's failure.
func TestTransportCanceledRequestSetsNodeAside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{}
		c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB))
		require.Equal(t, []string{nodeA}, hostsOf(t, c, nodes, 1))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		host, err := send(ctx, t, c, nodes)
		require.Equal(t, nodeB, host)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{nodeA, nodeA}, hostsOf(t, c, nodes, 2), "b is set aside")
		assert.Zero(t, logs.FilterMessageSnippet("Elasticsearch node").Len(), "a canceled request is not the node's failure")

		time.Sleep(time.Minute)
		synctest.Wait()
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		nodes.setDown(nodeA, true) // a answers after the deadline
		time.Sleep(2 * time.Second)
		host, err = send(ctx, t, c, nodes)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		down := logs.FilterMessageSnippet("Elasticsearch node does not answer").All()
		require.Len(t, down, 1)
		assert.Equal(t, "http://"+host, down[0].ContextMap()["node"])
	})
}

// BenchmarkPerformThreeNodes is the client's own cost per request, over three nodes that answer.
func BenchmarkPerformThreeNodes(b *testing.B) {
	nodes := &fakeNodes{}
	cfg := fakeNodesConfig(nodes, nodeA, nodeB, nodeC)
	c, err := New(context.Background(), cfg, testHost{}, componenttest.NewNopTelemetrySettings(), component.BuildInfo{})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, c.Close(context.Background())) })
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", http.NoBody)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		nodes.mu.Lock()
		nodes.hits = nodes.hits[:0]
		nodes.mu.Unlock()
		resp, err := c.Perform(req)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
	}
}
