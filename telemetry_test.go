// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatatest"
)

// Through the exporter, with the default sending queue partitioned by metadata_keys: each
// configured key that the client metadata carries is an attribute of the self-telemetry,
// lower-cased as contrib names it; a push whose metadata lacks it records none. A record that
// cannot be routed is counted with contrib's outcome failed_client and is not received; the
// documents handed to the bulk session are.
func TestTelemetryMetadataKeysThroughTheQueue(t *testing.T) {
	srv := fakees.New(t)
	set, tel := elasticsearchexporter.WithTelemetry(t)
	cfg := elasticsearchexporter.NewFactory().CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = []string{srv.URL}
	cfg.MetadataKeys = []string{"X-Tenant"}
	q := cfg.QueueBatchConfig.Get()
	q.WaitForResult = true
	q.Batch.Get().FlushTimeout = time.Millisecond
	exp := elasticsearchexporter.NewLogsExporter(t, cfg, set)

	ld := elasticsearchexporter.TestLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Attributes().PutStr("elasticsearch.index", "Bad*Index")
	ctx := client.NewContext(context.Background(), client.Info{
		Metadata: client.NewMetadata(map[string][]string{"x-tenant": {"acme"}}),
	})
	require.NoError(t, exp.ConsumeLogs(ctx, ld))
	require.NoError(t, exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1)))
	require.Len(t, srv.Accepted(), 3)

	tenant := attribute.StringSlice("x-tenant", []string{"acme"})
	indexed := []attribute.KeyValue{elasticsearchexporter.Outcome("success"), elasticsearchexporter.Fate("indexed"), attribute.Int("http.response.status_code", 201)}
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(append(indexed, tenant)...)},
		{Value: 1, Attributes: attribute.NewSet(indexed...)},
		{Value: 1, Attributes: attribute.NewSet(tenant, elasticsearchexporter.Outcome("failed_client"), elasticsearchexporter.Fate("rejected"),
			attribute.String("error.type", "invalid_index_name"))},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(tenant)},
		{Value: 1, Attributes: attribute.NewSet()},
	}, opts...)
	success := []attribute.KeyValue{elasticsearchexporter.Outcome("success"), attribute.Int("http.response.status_code", 200)}
	metadatatest.AssertEqualElasticsearchBulkRequestsCount(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(append(success, tenant)...)},
		{Value: 1, Attributes: attribute.NewSet(success...)},
	}, opts...)
	for _, name := range []string{"otelcol.elasticsearch.flushed.bytes", "otelcol.elasticsearch.flushed.uncompressed_bytes"} {
		assert.Positive(t, countertest.Sum(t, tel, name, tenant), name)
	}
}

// A record skipped for its _noindex hint is counted with its fate and no outcome (contrib
// does not count it), and is not received.
func TestSkippedRecordsHaveNoOutcome(t *testing.T) {
	srv := fakees.New(t)
	set, tel := elasticsearchexporter.WithTelemetry(t)
	exp := elasticsearchexporter.NewLogsExporter(t, elasticsearchexporter.NewTestConfig(srv.URL), set)
	ld := elasticsearchexporter.TestLogs(2)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes().
		PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))

	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(elasticsearchexporter.Outcome("success"), elasticsearchexporter.Fate("indexed"), attribute.Int("http.response.status_code", 201))},
		{Value: 1, Attributes: attribute.NewSet(elasticsearchexporter.Fate("skipped"), attribute.String("error.type", "_noindex"))},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{{Value: 1}}, opts...)
}
