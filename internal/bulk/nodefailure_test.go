// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// A node dies after reading a bulk request, before answering. The Elasticsearch client does not
// send the request elsewhere; the Indexer retries it, and the retry goes to another node, since
// the client set the dead node aside. The documents are indexed, and both nodes received them:
// had the dead node stored them, they would be stored twice (without an _id, nothing tells).
func TestSendRetriesOnAnotherNodeWhenANodeDies(t *testing.T) {
	dying, a, c := fakees.New(t), fakees.New(t), fakees.New(t)
	dying.Faults = fakees.Faults{DropConnectionRate: 1} // every bulk request read, then its connection closed

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
	require.Len(t, dying.Bodies(), 1)
	retried := slices.Concat(a.Bodies(), c.Bodies())
	require.Len(t, retried, 1, "one retry, to another node")
	assert.Equal(t, dying.Bodies()[0], retried[0], "the same documents reached both nodes")
	assert.Contains(t, string(retried[0]), `{"n":1}`)
}
