// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A node that fails N requests in a row is logged once, with the error, and once when it
// answers again, with the count of failed requests; a second outage is logged again.
func TestNodeWatchLogsEachChangeOnce(t *testing.T) {
	nodes := &fakeNodes{}
	c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA))
	for outage := 1; outage <= 2; outage++ {
		nodes.setDown(nodeA, true)
		for range 5 {
			_, err := send(context.Background(), t, c, nodes)
			require.ErrorIs(t, err, errNodeDown)
		}
		down := logs.FilterMessageSnippet("Elasticsearch node does not answer").All()
		require.Len(t, down, outage)
		assert.Equal(t, "http://"+nodeA, down[outage-1].ContextMap()["node"])
		assert.Equal(t, errNodeDown.Error(), down[outage-1].ContextMap()["error"])
		assert.Equal(t, "GET", down[outage-1].ContextMap()["method"])

		nodes.setDown(nodeA, false)
		hostsOf(t, c, nodes, 3)
		back := logs.FilterMessage("Elasticsearch node answers again").All()
		require.Len(t, back, outage)
		assert.EqualValues(t, 5, back[outage-1].ContextMap()["failed_requests"])
	}
}

// A failed discovery request is not a node set aside: the watch leaves it to discovery's own
// log line, and still logs a failed request of another path.
func TestNodeWatchLeavesDiscoveryAlone(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	w := newNodeWatch(roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errNodeDown }), zap.New(core))
	for _, path := range []string{discoveryPath, "/_bulk"} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://es-a:9200"+path, http.NoBody)
		require.NoError(t, err)
		_, err = w.RoundTrip(req)
		require.ErrorIs(t, err, errNodeDown)
	}
	down := logs.FilterMessageSnippet("Elasticsearch node does not answer").All()
	require.Len(t, down, 1)
	assert.Equal(t, "/_bulk", down[0].ContextMap()["path"])
}

// While no node is failing, the watch adds no allocation to a request.
func TestNodeWatchCostsNoAllocation(t *testing.T) {
	resp := &http.Response{}
	w := newNodeWatch(roundTripFunc(func(*http.Request) (*http.Response, error) { return resp, nil }), zap.NewNop())
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://es-a:9200/", http.NoBody)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := w.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
