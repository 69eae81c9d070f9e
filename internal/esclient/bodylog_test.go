// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

func TestBodyLogging(t *testing.T) {
	srv := fakees.New(t)
	cfg := testConfig(srv.URL)
	cfg.LogRequestBody, cfg.LogResponseBody = true, true
	cfg.User, cfg.Password = "elastic", "s3cret"
	c, logs := newTestClient(t, cfg)

	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err := w.Write([]byte(`{"create":{"_index":"logs-a.otel-default"}}` + "\n" + `{"body":"log 1"}` + "\n"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "/_bulk", bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := c.Perform(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Contains(t, string(body), `"items"`, "the caller still reads the whole response")

	reqs := logs.FilterMessage("Elasticsearch request").All()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/_bulk", reqs[0].ContextMap()["path"])
	assert.Contains(t, reqs[0].ContextMap()["body"], `"log 1"`, "the gzipped body is logged decompressed")
	resps := logs.FilterMessage("Elasticsearch response").All()
	require.Len(t, resps, 1)
	assert.Contains(t, resps[0].ContextMap()["body"], `"items"`)
	for _, entry := range logs.All() {
		for _, v := range entry.ContextMap() {
			assert.NotContains(t, fmt.Sprint(v), "s3cret", "credentials must never be logged")
			assert.NotContains(t, fmt.Sprint(v), "ZWxhc3RpYzpzM2NyZXQ=", "credentials must never be logged")
		}
	}
}

func TestNoBodyLoggingByDefault(t *testing.T) {
	srv := fakees.New(t)
	c, logs := newTestClient(t, testConfig(srv.URL))
	get(t, c)
	assert.Zero(t, logs.FilterMessageSnippet("Elasticsearch re").Len())
}
