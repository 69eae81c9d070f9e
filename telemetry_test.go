// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"bytes"
	"context"
	"net/http"
	"sync/atomic"
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
	cfg := elasticsearchexporter.DefaultWith()
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
	created := attribute.Int("http.response.status_code", 201)
	unroutable := attribute.String("error.type", "invalid_index_name")
	success := elasticsearchexporter.Outcome("success")
	indexed := elasticsearchexporter.Fate("indexed")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(success, created, tenant)},
		{Value: 1, Attributes: attribute.NewSet(success, created)},
		{Value: 1, Attributes: attribute.NewSet(tenant, elasticsearchexporter.Outcome("failed_client"), unroutable)},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(indexed, created, tenant)},
		{Value: 1, Attributes: attribute.NewSet(indexed, created)},
		{Value: 1, Attributes: attribute.NewSet(tenant, elasticsearchexporter.Fate("rejected"), unroutable)},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(tenant)},
		{Value: 1, Attributes: attribute.NewSet()},
	}, opts...)
	ok := attribute.Int("http.response.status_code", 200)
	metadatatest.AssertEqualElasticsearchBulkRequestsCount(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(success, ok, tenant)},
		{Value: 1, Attributes: attribute.NewSet(success, ok)},
	}, opts...)
	for _, name := range []string{"otelcol.elasticsearch.flushed.bytes", "otelcol.elasticsearch.flushed.uncompressed_bytes"} {
		assert.Positive(t, countertest.Sum(t, tel, name, tenant), name)
	}
}

// A record skipped for its _noindex hint has a fate and no outcome (contrib does not count
// it), and is not received.
func TestSkippedRecordsHaveNoOutcome(t *testing.T) {
	srv := fakees.New(t)
	set, tel := elasticsearchexporter.WithTelemetry(t)
	exp := elasticsearchexporter.NewLogsExporter(t, elasticsearchexporter.NewTestConfig(srv.URL), set)
	ld := elasticsearchexporter.TestLogs(2)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes().
		PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))

	created := attribute.Int("http.response.status_code", 201)
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(elasticsearchexporter.Outcome("success"), created)},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(elasticsearchexporter.Fate("indexed"), created)},
		{Value: 1, Attributes: attribute.NewSet(elasticsearchexporter.Fate("skipped"), attribute.String("error.type", "_noindex"))},
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{{Value: 1}}, opts...)
}

// Through the exporter, a push with every kind of outcome: its first request answered 503,
// then 429, then item by item (indexed, a duplicate, a document rejected and dead-lettered,
// one answered 429 and indexed when sent again alone), and a record that cannot be routed.
// The metrics named after contrib's sum to what contrib counts for the same events: each
// record once in docs.processed, the document sent again alone once in docs.retried, the
// documents of the request sent again twice each in docs.retried_http_request, the request
// resent whole once in bulk_requests.count; docs.fate sums to the records of the push.
func TestTelemetrySumsOfAMixedPush(t *testing.T) {
	srv := fakees.New(t)
	var requests, busy atomic.Int32
	srv.OnRequest = func(*http.Request, []fakees.Item) int {
		switch requests.Add(1) {
		case 1:
			return http.StatusServiceUnavailable
		case 2:
			return http.StatusTooManyRequests
		}
		return 0
	}
	srv.OnItem = func(it fakees.Item) fakees.Response {
		switch {
		case bytes.Contains(it.Document, []byte(`"log 1"`)):
			return fakees.Response{Status: http.StatusConflict, ErrorType: "version_conflict_engine_exception", Reason: "exists"}
		case bytes.Contains(it.Document, []byte(`"log 2"`)):
			return fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception", Reason: "bad"}
		case bytes.Contains(it.Document, []byte(`"log 3"`)) && busy.Add(1) == 1:
			return fakees.Response{Status: http.StatusTooManyRequests, ErrorType: "es_rejected_execution_exception", Reason: "busy"}
		}
		return fakees.Response{}
	}
	set, tel := elasticsearchexporter.WithTelemetry(t)
	cfg := elasticsearchexporter.NewTestConfig(srv.URL)
	cfg.Retry.MaxRetries = 5
	cfg.DeadLetter.Enabled = true
	cfg.DeadLetter.Index = "dlq"
	exp := elasticsearchexporter.NewLogsExporter(t, cfg, set)

	const records = 7 // six sent, one that cannot be routed
	ld := elasticsearchexporter.TestLogs(records)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(6).Attributes().PutStr("elasticsearch.index", "Bad*Index")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	require.Equal(t, int32(5), requests.Load(), "503, 429, the items, the document answered 429, the dead letter")

	const processed, fates = "otelcol.elasticsearch.docs.processed", "otelcol.elasticsearch.docs.fate"
	assert.Equal(t, int64(records), countertest.Sum(t, tel, processed), "one point per record, as contrib counts them")
	assert.Equal(t, map[string]int64{"success": 4, "failed_client": 3}, countertest.SumBy(t, tel, processed, "outcome"))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried"), "the document answered 429")
	assert.Equal(t, int64(12), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried_http_request"),
		"the request's 6 documents, after the 503 and after the 429")
	assert.Equal(t, int64(6), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.received"))
	assert.Equal(t, int64(records), countertest.Sum(t, tel, fates), "one fate per record of the push")
	assert.Equal(t, map[string]int64{"indexed": 4, "duplicate": 1, "dead_lettered": 1, "rejected": 1},
		countertest.SumBy(t, tel, fates, "fate"))
	assert.Equal(t, map[string]int64{"success": 3}, countertest.SumBy(t, tel, "otelcol.elasticsearch.bulk_requests.count", "outcome"),
		"the request resent after the 503 and the 429 is one request, as contrib counts it")
	assert.Equal(t, map[string]int64{"failed_server": 1, "too_many": 1, "success": 3},
		countertest.SumBy(t, tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome"))
}
