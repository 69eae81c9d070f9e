// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// Until the start-up check says the node decodes snappy, bodies are gzip; then snappy. The
// bytes flushed are those sent, the request buffer counts the uncompressed request.
func TestSnappyAfterEnable(t *testing.T) {
	node := &snappyNode{t: t}
	ix, logs := newSnappyIndexer(t, node)
	tb, tel := newTelemetry(t)
	ix.cfg.Telemetry = tb
	res, err := ix.Send(context.Background(), batchOf(`{"a":1}`, `{"a":2}`))
	require.NoError(t, err)
	assert.Equal(t, 2, res.Indexed)
	gzipped := countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.bytes")

	ix.EnableSnappy()
	doc := `{"message":"` + strings.Repeat("snappy ", 200) + `"}`
	res, err = ix.Send(context.Background(), batchOf(doc))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Indexed)
	assert.Equal(t, []string{"gzip", "snappy"}, node.encodings)
	assert.Equal(t, node.lengths[1], countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.bytes")-gzipped)
	assert.Less(t, node.lengths[1], int64(len(doc)), "compressed")
	assert.Zero(t, logs.Len())
	assert.GreaterOrEqual(t, ix.RequestBufferBytes(1000), 1000, "the uncompressed request is held")
}

// A snappy request that the node answers as if it had read the snappy bytes as JSON is sent
// again at once with gzip, nothing is rejected, one Warn line says so, and snappy stays off
// even when EnableSnappy is called again.
func TestSnappyFallsBackToGzip(t *testing.T) {
	node := &snappyNode{t: t, drop: true}
	ix, logs := newSnappyIndexer(t, node)
	tb, tel := newTelemetry(t)
	ix.cfg.Telemetry = tb
	ix.EnableSnappy()

	res, err := ix.Send(context.Background(), batchOf(`{"a":1}`, `{"a":2}`, `{"a":3}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 3}, res)
	res, err = ix.Send(context.Background(), batchOf(`{"a":4}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1}, res)
	ix.EnableSnappy()
	_, err = ix.Send(context.Background(), batchOf(`{"a":5}`))
	require.NoError(t, err)

	assert.Equal(t, []string{"snappy", "gzip", "gzip", "gzip"}, node.encodings)
	assert.Equal(t, 5, node.docs)
	assert.Equal(t, map[string]int64{"indexed  201": 5}, docCounts(t, tel), "nothing rejected nor retried")
	assert.Zero(t, retried(t, tel))
	assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.bulk_requests.attempts"),
		"the resend with gzip is part of the attempt")
	require.Equal(t, 1, logs.Len())
	entry := logs.All()[0]
	assert.Equal(t, "Elasticsearch did not decode a snappy bulk request body (a node, proxy or load balancer between the exporter "+
		"and Elasticsearch drops Content-Encoding: snappy); the request was sent again with gzip, and bulk requests are sent "+
		"with gzip until the exporter restarts", entry.Message)
	assert.Equal(t, "x_content_parse_exception", entry.ContextMap()["error.type"])
}

// Another 400 to a snappy request is the request's own failure: not sent again, snappy stays on.
func TestSnappyOther400IsNotAFallback(t *testing.T) {
	calls := 0
	c := &compactClient{codec: &bodyCodec{}, enc: &bodyEncoder{}, off: func(string) { t.Fatal("turned off") }, next: clientFunc(func(req *http.Request) (*http.Response, error) {
		calls++
		assert.Equal(t, "snappy", req.Header.Get("Content-Encoding"))
		return stubStatus(http.StatusBadRequest, `{"error":{"type":"illegal_argument_exception","reason":"Malformed action/metadata line [1]"},"status":400}`)(req)
	})}
	c.codec.state.Store(snappyOn)
	req, err := http.NewRequest(http.MethodPost, "/_bulk", strings.NewReader("{}\n"))
	require.NoError(t, err)
	resp, err := c.Perform(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, 1, calls)
	assert.Equal(t, snappyOn, c.codec.state.Load())
	assert.Equal(t, int(req.ContentLength), c.enc.sent, "the bytes sent are counted")
}
