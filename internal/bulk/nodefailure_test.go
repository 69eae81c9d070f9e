// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// A node dies after reading a bulk request, before answering. The Elasticsearch client does not
// send the request elsewhere; the Indexer retries it, and the retry goes to another node, since
// the client set the dead node aside. The documents are indexed, and both nodes received them:
// had the dead node stored them, they would be stored twice (without an _id, nothing tells).
func TestSendRetriesOnAnotherNodeWhenANodeDies(t *testing.T) {
	var mu sync.Mutex
	received := map[string][]string{} // request bodies, by node
	node := func(name string, dies bool) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("node %s: %v", name, err)
				return
			}
			mu.Lock()
			received[name] = append(received[name], string(raw))
			mu.Unlock()
			if dies {
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					_ = conn.Close()
				}
				return
			}
			n := bytes.Count(raw, []byte("\n")) / 2
			w.Header().Set("X-Elastic-Product", "Elasticsearch")
			_, _ = io.WriteString(w, `{"items":[`+strings.TrimSuffix(strings.Repeat(itemCreated+",", n), ",")+`]}`)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	dying, a, c := node("dying", true), node("a", false), node("c", false)

	client, err := esclient.New(context.Background(), esclient.Config{
		HTTP:      confighttp.NewDefaultClientConfig(),
		Endpoints: esclient.Endpoints{Endpoints: []string{dying.URL, a.URL, c.URL}}, // the first request goes to dying
	}, componenttest.NewNopHost(), componenttest.NewNopTelemetrySettings(), component.BuildInfo{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.Close(context.Background())) })
	ix, err := New(Config{
		Client: client, MaxBulkBytes: 1 << 20,
		Retry: RetryConfig{Enabled: true, MaxRetries: 3, InitialInterval: time.Millisecond, MaxInterval: time.Millisecond},
	})
	require.NoError(t, err)

	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 2}, res)
	require.Len(t, received["dying"], 1)
	retried := slices.Concat(received["a"], received["c"])
	require.Len(t, retried, 1, "one retry, to another node")
	assert.Equal(t, received["dying"][0], retried[0], "the same documents reached both nodes")
	assert.Contains(t, retried[0], `{"n":1}`)
}
