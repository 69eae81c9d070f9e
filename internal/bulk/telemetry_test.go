// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatatest"
)

// Attributes of the self-telemetry, as contrib's dashboards query them.
var (
	success      = attribute.String("outcome", "success")
	failedClient = attribute.String("outcome", "failed_client")
	failedServer = attribute.String("outcome", "failed_server")
	tooMany      = attribute.String("outcome", "too_many")
	timedOut     = attribute.String("outcome", "timeout")
	internal     = attribute.String("outcome", "internal_server_error")
	failureStore = attribute.String("outcome", "failure_store")
)

// itemNotEnabled is a document refused by a data stream without a failure store.
const itemNotEnabled = `{"create":{"_index":"i","status":400,"failure_store":"not_enabled","error":{"type":"document_parsing_exception","reason":"x"}}}`

// errRefused is what dialing a port nobody listens on returns.
var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// Each situation records contrib's instruments under contrib's names and units, with
// contrib's outcome for the same situation, and this exporter's fate in a metric of its own;
// no attribute is recorded empty, and no status code is made up.
func TestTelemetryPerSituation(t *testing.T) {
	type answers = []func() (*http.Response, error)
	type points = []metricdata.DataPoint[int64]
	rejectedExecution := errorType("es_rejected_execution_exception")
	tests := []struct {
		name    string
		docs    int
		retry   func(*RetryConfig) // changes to: 2 retries, retry_on_status 429, 502, 503, 504
		client  clientFunc         // instead of answers
		answers answers
		maxBulk int // 1 MiB when 0
		// the points of docs.processed, docs.fate, bulk_requests.count and .attempts (nil:
		// those of count); docs.retried and docs.retried_http_request
		wantDocs, wantFates, wantRequests, wantAttempts points
		wantRetried, wantRetriedRequest                 int64
	}{
		{
			name: "201 indexed", docs: 2, answers: answers{items(itemCreated, itemCreated)},
			wantDocs:     points{point(2, success, code(201))},
			wantFates:    points{point(2, fate("indexed"), code(201))},
			wantRequests: points{point(1, success, code(200))},
		},
		{
			name: "409 duplicate", docs: 1, answers: answers{items(itemConflict)},
			wantDocs:     points{point(1, failedClient, code(409), errorType("version_conflict_engine_exception"))},
			wantFates:    points{point(1, fate("duplicate"), code(409), errorType("version_conflict_engine_exception"))},
			wantRequests: points{point(1, success, code(200))},
		},
		{
			name: "400 mapper_parsing_exception rejected", docs: 1, answers: answers{items(itemRejected)},
			wantDocs:     points{point(1, failedClient, code(400), errorType("mapper_parsing_exception"))},
			wantFates:    points{point(1, fate("rejected"), code(400), errorType("mapper_parsing_exception"))},
			wantRequests: points{point(1, success, code(200))},
		},
		{
			// contrib does not count an attempt of a document that is sent again, only the retry
			name: "item 429 retried, then indexed", docs: 2,
			answers:      answers{items(itemCreated, item429), items(itemCreated)},
			wantDocs:     points{point(2, success, code(201))},
			wantFates:    points{point(2, fate("indexed"), code(201))},
			wantRequests: points{point(2, success, code(200))},
			wantRetried:  1,
		},
		{
			name: "item 429 retries exhausted", docs: 1, answers: repeat(3, items(item429)),
			wantDocs:     points{point(1, tooMany, code(429), rejectedExecution)},
			wantFates:    points{point(1, fate("dropped"), code(429), rejectedExecution)},
			wantRequests: points{point(3, success, code(200))},
			wantRetried:  2,
		},
		{
			name: "request 429 retried, then indexed", docs: 1, answers: answers{status(429), items(itemCreated)},
			wantDocs:  points{point(1, success, code(201))},
			wantFates: points{point(1, fate("indexed"), code(201))},
			// one request as contrib counts it, with the result of its last attempt
			wantRequests:       points{point(1, success, code(200))},
			wantAttempts:       points{point(1, tooMany, code(429)), point(1, success, code(200))},
			wantRetriedRequest: 1,
		},
		{
			name: "request 429 retries exhausted", docs: 2, answers: repeat(3, status(429)),
			wantDocs:           points{point(2, tooMany, code(429))},
			wantFates:          points{point(2, fate("dropped"), code(429))},
			wantRequests:       points{point(1, tooMany, code(429))},
			wantAttempts:       points{point(3, tooMany, code(429))},
			wantRetriedRequest: 4,
		},
		{
			name: "request 503 retries exhausted", docs: 1, answers: repeat(3, status(503)),
			wantDocs:           points{point(1, failedServer, code(503))},
			wantFates:          points{point(1, fate("dropped"), code(503))},
			wantRequests:       points{point(1, failedServer, code(503))},
			wantAttempts:       points{point(3, failedServer, code(503))},
			wantRetriedRequest: 2,
		},
		{
			name: "request 500, not retried", docs: 1, answers: answers{status(500)},
			wantDocs:     points{point(1, failedServer, code(500))},
			wantFates:    points{point(1, fate("rejected"), code(500))},
			wantRequests: points{point(1, failedServer, code(500))},
		},
		{
			name: "request 400", docs: 2, answers: answers{status(400)},
			wantDocs:     points{point(2, failedClient, code(400))},
			wantFates:    points{point(2, fate("rejected"), code(400))},
			wantRequests: points{point(1, failedClient, code(400))},
		},
		{
			name: "request 401", docs: 1, answers: answers{status(401)},
			wantDocs:     points{point(1, failedClient, code(401))},
			wantFates:    points{point(1, fate("rejected"), code(401))},
			wantRequests: points{point(1, failedClient, code(401))},
		},
		{
			name: "request 403", docs: 1, answers: answers{status(403)},
			wantDocs:     points{point(1, failedClient, code(403))},
			wantFates:    points{point(1, fate("rejected"), code(403))},
			wantRequests: points{point(1, failedClient, code(403))},
		},
		{
			name: "request 413 for a single document", docs: 1, answers: answers{status(413)},
			wantDocs:     points{point(1, failedClient, code(413), errorType("request_entity_too_large"))},
			wantFates:    points{point(1, fate("rejected"), code(413), errorType("request_entity_too_large"))},
			wantRequests: points{point(1, failedClient, code(413))},
		},
		{
			name: "request timeout", docs: 1, retry: func(r *RetryConfig) { r.Enabled = false }, client: untilDeadline,
			wantDocs:     points{point(1, timedOut)},
			wantFates:    points{point(1, fate("dropped"))},
			wantRequests: points{point(1, timedOut)},
		},
		{
			name: "connection refused", docs: 1, answers: repeat(3, fail(errRefused)),
			wantDocs:           points{point(1, internal)},
			wantFates:          points{point(1, fate("dropped"))},
			wantRequests:       points{point(1, internal)},
			wantAttempts:       points{point(3, internal)},
			wantRetriedRequest: 2,
		},
		{
			// as contrib counts it: a success, and once more as failure_store
			name: "failure store used", docs: 2, answers: answers{items(itemStored, itemCreated)},
			wantDocs:     points{point(2, success, code(201)), point(1, failureStore, storeStatus("used"))},
			wantFates:    points{point(1, fate("indexed"), code(201)), point(1, fate("failure_store"), storeStatus("used"), code(201))},
			wantRequests: points{point(1, success, code(200))},
		},
		{
			name: "failure store not enabled, counted as contrib does", docs: 1, answers: answers{items(itemNotEnabled)},
			wantDocs: points{
				point(1, failedClient, code(400), errorType("document_parsing_exception")),
				point(1, failureStore, storeStatus("not_enabled")),
			},
			wantFates:    points{point(1, fate("rejected"), code(400), errorType("document_parsing_exception"))},
			wantRequests: points{point(1, success, code(200))},
		},
		{
			name: "a failed request ends the push: the rest take its outcome", docs: 2, answers: answers{status(400)},
			maxBulk:      1, // one document per request
			wantDocs:     points{point(1, failedClient, code(400)), point(1, failedClient, errorType("not_attempted"))},
			wantFates:    points{point(1, fate("rejected"), code(400)), point(1, fate("dropped"), errorType("not_attempted"))},
			wantRequests: points{point(1, failedClient, code(400))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retry := RetryConfig{Enabled: true, MaxRetries: 2, InitialInterval: 1, RetryOnStatus: []int{429, 502, 503, 504}}
			if tt.retry != nil {
				tt.retry(&retry)
			}
			var c elastictransport.Interface = script(t, tt.answers...)
			if tt.client != nil {
				c = tt.client
			}
			maxBulk := tt.maxBulk
			if maxBulk == 0 {
				maxBulk = 1 << 20
			}
			tb, tel := newTelemetry(t)
			ix, err := New(Config{Client: c, MaxBulkBytes: maxBulk, Retry: retry, Telemetry: tb, RequestTimeout: 20 * time.Millisecond})
			require.NoError(t, err)
			var docs []string
			for i := range tt.docs {
				docs = append(docs, `{"n":`+strconv.Itoa(i)+`}`)
			}
			_, _ = ix.Send(context.Background(), batchOf(docs...))

			opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
			metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, tt.wantDocs, opts...)
			metadatatest.AssertEqualElasticsearchDocsFate(t, tel, tt.wantFates, opts...)
			metadatatest.AssertEqualElasticsearchBulkRequestsCount(t, tel, tt.wantRequests, opts...)
			if tt.wantAttempts == nil {
				tt.wantAttempts = tt.wantRequests
			}
			metadatatest.AssertEqualElasticsearchBulkRequestsAttempts(t, tel, tt.wantAttempts, opts...)
			metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{point(int64(tt.docs))}, opts...)
			for name, want := range map[string]int64{
				"otelcol.elasticsearch.docs.retried":              tt.wantRetried,
				"otelcol.elasticsearch.docs.retried_http_request": tt.wantRetriedRequest,
			} {
				if want == 0 {
					_, err := tel.GetMetric(name)
					require.Error(t, err, "%s: nothing counted", name)
					continue
				}
				got := countertest.Points(t, tel, name)
				require.Len(t, got, 1, name)
				assert.Equal(t, want, got[0].Value, name)
				assert.Zero(t, got[0].Attributes.Len(), "%s: no metadata keys, no attributes", name)
			}
			latency := make([]metricdata.HistogramDataPoint[float64], len(tt.wantRequests))
			for i, p := range tt.wantRequests {
				latency[i] = metricdata.HistogramDataPoint[float64]{Attributes: p.Attributes}
			}
			metadatatest.AssertEqualElasticsearchBulkRequestsLatency(t, tel, latency, append(opts, metricdatatest.IgnoreValue())...)
			requestDocs := make([]metricdata.HistogramDataPoint[int64], len(tt.wantRequests))
			for i, p := range tt.wantRequests {
				requestDocs[i] = metricdata.HistogramDataPoint[int64]{Attributes: p.Attributes}
			}
			metadatatest.AssertEqualElasticsearchBulkRequestsDocuments(t, tel, requestDocs, append(opts, metricdatatest.IgnoreValue())...)
			assert.Equal(t, int64(tt.docs), sumWithOutcome(t, tel), "each document received is counted once with an outcome")
			assert.Equal(t, int64(tt.docs), fateSum(t, tel), "each document received has one fate")
		})
	}
}

// The latency histogram has contrib's bucket boundaries.
func TestLatencyBuckets(t *testing.T) {
	tb, tel := newTelemetry(t)
	ix, err := New(Config{Client: script(t, items(itemCreated)), MaxBulkBytes: 1 << 20, Telemetry: tb})
	require.NoError(t, err)
	_, err = ix.Send(context.Background(), batchOf(`{"n":0}`))
	require.NoError(t, err)
	m, err := tel.GetMetric("otelcol.elasticsearch.bulk_requests.latency")
	require.NoError(t, err)
	h, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok)
	require.Len(t, h.DataPoints, 1)
	assert.Equal(t, []float64{
		0, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
		25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
	}, h.DataPoints[0].Bounds)
}

// With metadata_keys, every point of every metric of a Send carries each key that the client
// metadata holds, lower-cased, with its values; a key the metadata lacks adds nothing.
func TestTelemetryMetadataKeys(t *testing.T) {
	tb, tel := newTelemetry(t)
	ix, err := New(Config{
		Client: script(t, items(itemCreated, item429), items(itemCreated)), MaxBulkBytes: 1 << 20, Telemetry: tb,
		Retry:        RetryConfig{Enabled: true, MaxRetries: 2, InitialInterval: 1, RetryOnStatus: []int{429}},
		MetadataKeys: []string{"X-Tenant", "X-Absent"},
	})
	require.NoError(t, err)
	ctx := client.NewContext(context.Background(), client.Info{
		Metadata: client.NewMetadata(map[string][]string{"x-tenant": {"a", "b"}}),
	})
	_, err = ix.Send(ctx, batchOf(`{"n":0}`, `{"n":1}`))
	require.NoError(t, err)

	tenant := attribute.StringSlice("x-tenant", []string{"a", "b"})
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		point(2, tenant, success, code(201)),
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		point(2, tenant, fate("indexed"), code(201)),
	}, opts...)
	metadatatest.AssertEqualElasticsearchBulkRequestsCount(t, tel, []metricdata.DataPoint[int64]{
		point(2, tenant, success, code(200)),
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsReceived(t, tel, []metricdata.DataPoint[int64]{point(2, tenant)}, opts...)
	metadatatest.AssertEqualElasticsearchDocsRetried(t, tel, []metricdata.DataPoint[int64]{point(1, tenant)}, opts...)
	for _, name := range []string{"otelcol.elasticsearch.flushed.bytes", "otelcol.elasticsearch.flushed.uncompressed_bytes"} {
		m, err := tel.GetMetric(name)
		require.NoError(t, err)
		sum, ok := m.Data.(metricdata.Sum[int64])
		require.True(t, ok)
		require.Len(t, sum.DataPoints, 1, name)
		assert.Equal(t, attribute.NewSet(tenant), sum.DataPoints[0].Attributes, name)
	}
}

// The bytes of a request are counted once, as contrib counts them, when its last attempt was
// answered, and not when no answer came; the attempts of a request sent again whole are one
// request.
func TestFlushedBytesOfAnsweredRequests(t *testing.T) {
	send := func(answers ...func() (*http.Response, error)) (uncompressed, compressed int64) {
		tb, tel := newTelemetry(t)
		ix, err := New(Config{
			Client: script(t, answers...), MaxBulkBytes: 1 << 20, Telemetry: tb, CompressionLevel: 1,
			Retry: RetryConfig{Enabled: true, MaxRetries: 2, InitialInterval: 1, RetryOnStatus: []int{503}},
		})
		require.NoError(t, err)
		_, _ = ix.Send(context.Background(), batchOf(`{"n":0}`))
		return countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.uncompressed_bytes"),
			countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.bytes")
	}
	one, oneCompressed := send(items(itemCreated))
	require.Positive(t, one)
	require.Positive(t, oneCompressed)
	n, c := send(fail(errRefused), status(503), items(itemCreated))
	assert.Equal(t, one, n, "one request, its last attempt answered 201")
	assert.Equal(t, oneCompressed, c)
	n, c = send(status(503), status(503), fail(errRefused))
	assert.Zero(t, n, "the last attempt got no answer")
	assert.Zero(t, c)
	n, _ = send(fail(errRefused), status(503), status(503))
	assert.Equal(t, one, n, "the last attempt was answered 503")
}

// The attribute sets kept for the telemetry's points tell the metadata of one Send from
// another's: the same outcome and status under two tenants are two points.
func TestPointSetsKeepMetadataApart(t *testing.T) {
	tb, tel := newTelemetry(t)
	ix, err := New(Config{
		Client: script(t, items(itemCreated), items(itemCreated), items(itemCreated)), MaxBulkBytes: 1 << 20, Telemetry: tb,
		MetadataKeys: []string{"X-Tenant"},
	})
	require.NoError(t, err)
	send := func(tenant string) {
		ctx := context.Background()
		if tenant != "" {
			ctx = client.NewContext(ctx, client.Info{Metadata: client.NewMetadata(map[string][]string{"x-tenant": {tenant}})})
		}
		_, err := ix.Send(ctx, batchOf(`{"n":0}`))
		require.NoError(t, err)
	}
	send("a")
	send("b")
	send("")
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualElasticsearchBulkRequestsCount(t, tel, []metricdata.DataPoint[int64]{
		point(1, attribute.StringSlice("x-tenant", []string{"a"}), success, code(200)),
		point(1, attribute.StringSlice("x-tenant", []string{"b"}), success, code(200)),
		point(1, success, code(200)),
	}, opts...)
}

// Past maxPointSets attribute sets, the points with a new set are still recorded with it; the
// cache stops growing.
func TestPointSetsBounded(t *testing.T) {
	ix, err := New(Config{Client: okClient(`{}`), MaxBulkBytes: 1 << 20})
	require.NoError(t, err)
	s := ix.getSession()
	for i := range maxPointSets + 10 {
		r := docRecord{fate: OutcomeRejected, errorType: fmt.Sprintf("type_%d", i), status: 400}
		set := ix.points.options(s, r).add[0]
		want := metric.WithAttributeSet(attribute.NewSet(
			attribute.String("fate", OutcomeRejected), attribute.String("error.type", r.errorType), attribute.Int("http.response.status_code", 400)))
		assert.Equal(t, want, set, "point %d", i)
	}
	assert.Equal(t, int64(maxPointSets), ix.points.n.Load())
}

// Recording a bulk request's telemetry allocates nothing once its attribute set is known.
func TestRecordRequestAllocatesNothing(t *testing.T) {
	tb, _ := newTelemetry(t)
	ix, err := New(Config{Client: okClient(`{}`), MaxBulkBytes: 1 << 20, Telemetry: tb})
	require.NoError(t, err)
	s := ix.getSession()
	require.NoError(t, ix.takeBody(s)) // a request's telemetry is recorded while it holds its body
	ctx := context.Background()
	ix.setMetadata(ctx, s)
	record := func() {
		ix.recordReceived(ctx, s, 1)
		ix.recordAttempt(ctx, s, outcomeSuccess, 200, time.Now(), time.Now())
		ix.recordRequest(ctx, s)
		ix.recordDocs(ctx, s, docRecord{fate: OutcomeIndexed, outcome: outcomeSuccess, status: 201}, 1)
	}
	record()
	assert.Zero(t, testing.AllocsPerRun(100, record))
}

// In a push with every kind of outcome, the metrics named after contrib's sum to what contrib
// counts for the same events, and docs.fate to the documents of the push: each document once
// in docs.processed, each document-level resend in docs.retried, each document of a resent
// request in docs.retried_http_request, and no point of either kind in docs.processed; a
// request resent whole is one request in bulk_requests.count, its attempts are in
// bulk_requests.attempts.
func TestTelemetrySumsOfAMixedPush(t *testing.T) {
	tb, tel := newTelemetry(t)
	ix, err := New(Config{
		Client: script(t,
			status(503), // the whole request: its 6 documents are sent again
			status(429), // and again
			items(itemCreated, itemConflict, itemRejected, item429, itemCreated, itemCreated),
			items(itemCreated), // the document answered 429, sent again alone
			items(itemCreated), // the dead letter of the rejected document
		),
		MaxBulkBytes: 1 << 20, Telemetry: tb, DeadLetterIndex: "dlq",
		Retry: RetryConfig{Enabled: true, MaxRetries: 5, InitialInterval: 1, RetryOnStatus: []int{429, 503}},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`, `{"n":5}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 4, Duplicate: 1, Rejected: 1, DeadLettered: 1}, res)

	const processed = "otelcol.elasticsearch.docs.processed"
	assert.Equal(t, int64(6), countertest.Sum(t, tel, processed), "one point per document, as contrib counts them")
	assert.Equal(t, map[string]int64{"success": 4, "failed_client": 2}, countertest.SumBy(t, tel, processed, "outcome"))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried"), "the document answered 429")
	assert.Equal(t, int64(12), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried_http_request"),
		"6 documents, sent again after the 503 and after the 429")
	assert.Equal(t, int64(6), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.received"))
	const fates = "otelcol.elasticsearch.docs.fate"
	assert.Equal(t, int64(6), countertest.Sum(t, tel, fates), "one fate per document of the push")
	assert.Equal(t, map[string]int64{"indexed": 4, "duplicate": 1, "dead_lettered": 1}, countertest.SumBy(t, tel, fates, "fate"))
	assert.Equal(t, map[string]int64{"success 200": 3}, countertest.SumBy(t, tel, "otelcol.elasticsearch.bulk_requests.count",
		"outcome", "http.response.status_code"), "the 503 and the 429 are attempts of the request answered item by item")
	assert.Equal(t, map[string]int64{"failed_server 503": 1, "too_many 429": 1, "success 200": 3}, requestCounts(t, tel))
}

// Records a push never sent are counted by the same writer as the documents of a Send, with the
// same attribute rules: the metadata attributes, the fate, and, for a rejection, contrib's
// outcome failed_client in docs.processed; with a dead-letter index, a rejection that was never
// sent is not held for a dead letter. The repairs of the report are counted in docs.repaired with
// their reason and the metadata attributes; what was added twice is counted once, summed. A
// report that was reset counts nothing.
func TestRecordPreSend(t *testing.T) {
	tb, tel := newTelemetry(t)
	ix, err := New(Config{
		Client: script(t), MaxBulkBytes: 1 << 20, Telemetry: tb,
		MetadataKeys: []string{"X-Tenant"}, DeadLetterIndex: "dead",
	})
	require.NoError(t, err)
	ctx := client.NewContext(context.Background(), client.Info{
		Metadata: client.NewMetadata(map[string][]string{"x-tenant": {"a"}}),
	})
	var r PreSend
	ix.RecordPreSend(ctx, &r)
	r.Unsent(UnsentRejected, "invalid_index_name", 3)
	r.Unsent(UnsentSkipped, "_noindex", 1)
	r.Unsent(UnsentSkipped, "_noindex", 1)
	r.Unsent(UnsentRetryable, "inflight_bytes_wait", 4)
	r.Unsent(UnsentSkipped, "none", 0)
	r.Repaired("invalid_utf8", 2)
	r.Repaired("invalid_utf8", 1)
	r.Repaired("none", 0)
	assert.Equal(t, 2, r.Count(UnsentSkipped, "_noindex"))
	ix.RecordPreSend(ctx, &r)
	r.Reset()
	assert.True(t, r.Empty())
	ix.RecordPreSend(ctx, &r)

	tenant := attribute.StringSlice("x-tenant", []string{"a"})
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualElasticsearchDocsProcessed(t, tel, []metricdata.DataPoint[int64]{
		point(3, tenant, failedClient, errorType("invalid_index_name")),
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		point(3, tenant, fate("rejected"), errorType("invalid_index_name")),
		point(2, tenant, fate("skipped"), errorType("_noindex")),
		point(4, tenant, fate("retryable"), errorType("inflight_bytes_wait")),
	}, opts...)
	metadatatest.AssertEqualElasticsearchDocsRepaired(t, tel, []metricdata.DataPoint[int64]{
		point(3, tenant, attribute.String("reason", "invalid_utf8")),
	}, opts...)
}
