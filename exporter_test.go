// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

func TestPushLogsSendsGzippedBulk(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(5)))

	items := srv.Accepted()
	require.Len(t, items, 5)
	req := srv.LastRequest()
	assert.Equal(t, "gzip", req.Header.Get("Content-Encoding"))
	assert.Equal(t, "5", req.Header.Get("X-Elastic-Event-Count"))
	for i, it := range items {
		op, meta := it.Op()
		assert.Equal(t, "create", op)
		assert.Equal(t, "logs-generic.otel-default", meta["_index"])
		assert.Equal(t, true, meta["require_data_stream"])
		assert.Contains(t, string(it.Document), fmt.Sprintf(`"body":{"text":"log %d"}`, i))
	}
	assert.Equal(t, int64(5), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.bulk_requests.count", outcome("success")))
	// The flushed bytes are those on the wire, gzipped; the uncompressed ones are the NDJSON.
	assert.Positive(t, req.ContentLength)
	assert.Equal(t, req.ContentLength, countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.bytes"))
	bodies := srv.Bodies()
	require.Len(t, bodies, 1)
	assert.Equal(t, int64(len(bodies[0])), countertest.Sum(t, tel, "otelcol.elasticsearch.flushed.uncompressed_bytes"))
	assert.Less(t, req.ContentLength, int64(len(bodies[0])))
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes"), "nothing is held once the push returned")
}

func TestInflightBytesWhileRetrying(t *testing.T) {
	srv := fakees.New(t)
	release := make(chan struct{})
	srv.OnRequest = func(*http.Request, []fakees.Item) int {
		<-release
		return 0
	}
	set, tel := withTelemetry(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	done := make(chan error, 1)
	go func() { done <- exp.ConsumeLogs(context.Background(), testLogs(10)) }()
	require.Eventually(t, func() bool {
		return countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes") > 1000
	}, 10*time.Second, 5*time.Millisecond, "the push's encoded documents are in flight")
	close(release)
	require.NoError(t, <-done)
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes"))
}

func TestPushTracesWritesSpansAndEvents(t *testing.T) {
	srv := fakees.New(t)
	exp := newTracesExporter(t, newTestConfig(srv.URL), testSettings())
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 3 {
		span := ss.Spans().AppendEmpty()
		span.SetName(fmt.Sprintf("span %d", i))
		span.Events().AppendEmpty().SetName("ev")
	}
	require.NoError(t, exp.ConsumeTraces(context.Background(), td))
	items := srv.Accepted()
	require.Len(t, items, 6)
	for i, it := range items {
		if i%2 == 0 {
			assert.Equal(t, "traces-generic.otel-default", it.Index())
		} else {
			assert.Equal(t, "logs-generic.otel-default", it.Index())
		}
	}
}

func TestStaticIndexHasNoRequireDataStream(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.LogsIndex = "my-logs"
	exp := newLogsExporter(t, cfg, testSettings())
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
	items := srv.Accepted()
	require.Len(t, items, 1)
	_, meta := items[0].Op()
	assert.Equal(t, map[string]any{"_index": "my-logs"}, meta)
	assert.NotContains(t, string(items[0].Document), `"data_stream"`)
}

func TestDynamicIDAndPipeline(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.LogsDynamicID.Enabled = true
	cfg.LogsDynamicPipeline.Enabled = true
	exp := newLogsExporter(t, cfg, testSettings())
	ld := testLogs(2)
	r := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	r.Attributes().PutStr("elasticsearch.document_id", "id-1")
	r.Attributes().PutStr("elasticsearch.ingest_pipeline", "pipe")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	items := srv.Accepted()
	require.Len(t, items, 2)
	_, meta := items[0].Op()
	assert.Equal(t, "id-1", meta["_id"])
	assert.Equal(t, "pipe", meta["pipeline"])
	assert.NotContains(t, string(items[0].Document), "elasticsearch.")
	_, meta = items[1].Op()
	assert.NotContains(t, meta, "_id")
}

// TestDynamicIDAndPipelineOfAnyType checks that an id or a pipeline of any attribute type is
// sent as pdata's AsString writes it, as in contrib, correctly escaped in the action line: the
// fake Elasticsearch decodes each action line as JSON, and the raw body must hold the escaped
// text. An empty string leaves the item without _id or pipeline.
func TestDynamicIDAndPipelineOfAnyType(t *testing.T) {
	tests := []struct {
		name   string
		value  func(pcommon.Value)
		want   string
		quoted string // the value as the action line holds it
	}{
		{name: "int", value: func(v pcommon.Value) { v.SetInt(42) }, want: "42", quoted: `"42"`},
		{name: "double", value: func(v pcommon.Value) { v.SetDouble(2.5) }, want: "2.5", quoted: `"2.5"`},
		{name: "bool", value: func(v pcommon.Value) { v.SetBool(true) }, want: "true", quoted: `"true"`},
		{name: "bytes", value: func(v pcommon.Value) { v.SetEmptyBytes().FromRaw([]byte{0xfb, 0xff}) }, want: "+/8=", quoted: `"+/8="`},
		{
			name: "map",
			value: func(v pcommon.Value) {
				m := v.SetEmptyMap()
				m.PutStr("k", `a"b\c`)
				m.PutInt("n", 1)
			},
			want:   `{"k":"a\"b\\c","n":1}`,
			quoted: `"{\"k\":\"a\\\"b\\\\c\",\"n\":1}"`,
		},
		{
			name: "slice",
			value: func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetStr("<x>")
				s.AppendEmpty().SetInt(2)
			},
			want:   `["<x>",2]`,
			quoted: `"[\"<x>\",2]"`, // the action line's writer leaves < and > as they are, as JSON allows
		},
		{name: "string", value: func(v pcommon.Value) { v.SetStr("id\n1") }, want: "id\n1", quoted: `"id\n1"`},
		{name: "empty string", value: func(v pcommon.Value) { v.SetStr("") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			cfg := newTestConfig(srv.URL)
			cfg.LogsDynamicID.Enabled = true
			cfg.LogsDynamicPipeline.Enabled = true
			cfg.TracesDynamicID.Enabled = true
			logs := newLogsExporter(t, cfg, testSettings())
			traces := newTracesExporter(t, cfg, testSettings())

			ld := testLogs(1)
			attrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
			tt.value(attrs.PutEmpty("elasticsearch.document_id"))
			tt.value(attrs.PutEmpty("elasticsearch.ingest_pipeline"))
			require.NoError(t, logs.ConsumeLogs(context.Background(), ld))

			td := ptrace.NewTraces()
			span := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			span.SetName("span")
			tt.value(span.Attributes().PutEmpty("elasticsearch.document_id"))
			require.NoError(t, traces.ConsumeTraces(context.Background(), td))

			items := srv.Accepted()
			require.Len(t, items, 2)
			_, logMeta := items[0].Op()
			_, spanMeta := items[1].Op()
			bodies := srv.Bodies()
			require.Len(t, bodies, 2)
			if tt.want == "" {
				assert.NotContains(t, logMeta, "_id")
				assert.NotContains(t, logMeta, "pipeline")
				assert.NotContains(t, spanMeta, "_id")
				return
			}
			assert.Equal(t, tt.want, logMeta["_id"])
			assert.Equal(t, tt.want, logMeta["pipeline"])
			assert.Equal(t, tt.want, spanMeta["_id"])
			assert.Contains(t, string(bodies[0]), `"_id":`+tt.quoted)
			assert.Contains(t, string(bodies[0]), `"pipeline":`+tt.quoted)
			assert.Contains(t, string(bodies[1]), `"_id":`+tt.quoted)
			assert.NotContains(t, string(items[0].Document), "elasticsearch.")
			assert.NotContains(t, string(items[1].Document), "elasticsearch.")
		})
	}
}

func TestItemRejectionIsCountedAndOthersIndexed(t *testing.T) {
	srv := fakees.New(t)
	srv.OnItem = failLog(1, fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception", Reason: "failed to parse field [i]"})
	set, tel := withTelemetry(t)
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(core)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	// Once the version check has seen 9.x, requests carry include_source_on_error=false, so
	// that Elasticsearch's error reasons reach the log without document sources.
	require.Eventually(t, func() bool { return logs.FilterMessage("Connected to Elasticsearch").Len() == 1 }, 10*time.Second, 5*time.Millisecond)

	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)), "a document rejected for good is a final outcome")
	assert.Len(t, srv.Accepted(), 2)
	assert.Equal(t, "false", srv.LastRequest().URL.Query().Get("include_source_on_error"))
	assert.Equal(t, int64(2), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected"),
		attribute.String("error.type", "document_parsing_exception"), attribute.Int("http.response.status_code", 400)))
	warn := logs.FilterMessage("Documents not indexed").All()
	require.Len(t, warn, 1)
	failures := warn[0].ContextMap()["failures"].(string)
	assert.Contains(t, failures, "document_parsing_exception")
	assert.Contains(t, failures, "failed to parse field [i]")
	assert.Contains(t, failures, "logs-generic.otel-default")
}

func TestItemRetryResendsOnlyFailedDocuments(t *testing.T) {
	srv := fakees.New(t)
	var failed atomic.Int32
	srv.OnItem = func(it fakees.Item) fakees.Response {
		if strings.Contains(string(it.Document), `"log 2"`) && failed.Add(1) <= 2 {
			return fakees.Response{Status: http.StatusTooManyRequests, ErrorType: "es_rejected_execution_exception"}
		}
		return fakees.Response{}
	}
	set, tel := withTelemetry(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(4)))

	bodies := srv.Bodies()
	require.Len(t, bodies, 3)
	assert.Equal(t, 8, strings.Count(string(bodies[0]), "\n"))
	assert.Equal(t, 2, strings.Count(string(bodies[1]), "\n"), "only the failed document is resent")
	assert.Contains(t, string(bodies[2]), `"log 2"`)
	items := srv.Accepted()
	assert.Len(t, items, 4, "each document indexed exactly once")
	assert.Equal(t, int64(2), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried"))
	assert.Equal(t, int64(4), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
}

func TestItemRetryExhaustedDropsAndFails(t *testing.T) {
	srv := fakees.New(t)
	srv.OnItem = failLog(0, fakees.Response{Status: http.StatusServiceUnavailable, ErrorType: "unavailable_shards_exception"})
	set, tel := withTelemetry(t)
	cfg := newTestConfig(srv.URL)
	cfg.Retry.MaxRetries = 3
	exp := newLogsExporter(t, cfg, set)
	err := exp.ConsumeLogs(context.Background(), testLogs(2))
	require.Error(t, err)
	assert.True(t, consumererror.IsPermanent(err), "part of the batch was indexed: resending it whole would duplicate")
	assert.Contains(t, err.Error(), "1 documents not sent after 4 attempts")
	assert.Equal(t, 4, srv.Requests())
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
}

func TestRequestLevelFailures(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		failures      int32
		wantErr       string
		wantPermanent bool
		wantRequests  int
		grace         time.Duration
	}{
		{name: "503 then success", status: http.StatusServiceUnavailable, failures: 1, wantRequests: 2},
		{name: "429 then success", status: http.StatusTooManyRequests, failures: 2, wantRequests: 3},
		{name: "503 exhausted is retryable", status: http.StatusServiceUnavailable, failures: 100, wantErr: "3 attempts", wantRequests: 3},
		{name: "400 is permanent", status: http.StatusBadRequest, failures: 100, wantErr: "HTTP 400", wantPermanent: true, wantRequests: 1},
		{name: "401 without grace names the credentials", status: http.StatusUnauthorized, failures: 100, wantErr: "bulk request answered HTTP 401, the credentials were refused; sent: none; set `user` and `password`, or `api_key`, or `auth::authenticator` (3 documents)", wantPermanent: true, wantRequests: 1},
		{name: "401 within the grace period is retried", status: http.StatusUnauthorized, failures: 2, grace: time.Minute, wantRequests: 3},
		{name: "403 within the grace period is retried", status: http.StatusForbidden, failures: 1, grace: time.Minute, wantRequests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			var n atomic.Int32
			srv.OnRequest = func(*http.Request, []fakees.Item) int {
				if n.Add(1) <= tt.failures {
					return tt.status
				}
				return 0
			}
			cfg := newTestConfig(srv.URL)
			cfg.Retry.MaxRetries = 2
			cfg.Retry.AuthGracePeriod = tt.grace
			exp := newLogsExporter(t, cfg, testSettings())
			err := exp.ConsumeLogs(context.Background(), testLogs(3))
			assert.Equal(t, tt.wantRequests, srv.Requests())
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Len(t, srv.Accepted(), 3)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			assert.Equal(t, tt.wantPermanent, consumererror.IsPermanent(err))
			assert.Empty(t, srv.Accepted())
		})
	}
}

// A bulk request answered 401 says which credentials were sent, the user's name and not its
// password, and what to check.
func TestBulk401NamesTheUser(t *testing.T) {
	srv := fakees.New(t)
	srv.OnRequest = func(*http.Request, []fakees.Item) int { return http.StatusUnauthorized }
	cfg := newTestConfig(srv.URL)
	cfg.Authentication.User = "writer"
	cfg.Authentication.Password = "pa55-secret"
	exp := newLogsExporter(t, cfg, testSettings())
	err := exp.ConsumeLogs(context.Background(), testLogs(1))
	require.ErrorContains(t, err, "bulk request answered HTTP 401, the credentials were refused; "+
		`sent: user "writer" (`+"`user`/`password`); check `user` and `password`")
	assert.NotContains(t, err.Error(), "pa55-secret")
}

func TestNetworkErrorIsRetryable(t *testing.T) {
	srv := fakees.New(t)
	url := srv.URL
	srv.Close()
	set, logs := observed()
	cfg := newTestConfig(url)
	exp := newLogsExporter(t, cfg, set)
	err := exp.ConsumeLogs(context.Background(), testLogs(1))
	require.Error(t, err)
	assert.False(t, consumererror.IsPermanent(err))
	assert.NotEmpty(t, logs.FilterMessage("Dropping documents: retries exhausted").All())
}

func TestBulkRequestsAreCutAtMaxSize(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	qc := exporterhelper.NewDefaultQueueConfig()
	batch := exporterhelper.NewDefaultBatchConfig()
	batch.Sizer = exporterhelper.RequestSizerTypeBytes
	batch.MaxSize = 2000
	batch.MinSize = 0
	qc.Batch = configoptional.Some(batch)
	cfg.QueueBatchConfig = configoptional.Some(qc)
	e, err := newExporter(cfg, testSettings())
	require.NoError(t, err)
	require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, e.shutdown(context.Background())) })

	require.NoError(t, e.pipeline.PushLogs(context.Background(), testLogs(50)))
	assert.Len(t, srv.Accepted(), 50)
	assert.Greater(t, srv.Requests(), 5)
	for i, body := range srv.Bodies() {
		assert.LessOrEqual(t, len(body), 2000, "request %d", i)
	}
}

func TestInvalidIndexNameIsRejectedAlone(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	ld := testLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Attributes().PutStr("elasticsearch.index", "Bad*Index")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	assert.Len(t, srv.Accepted(), 2)
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected"),
		attribute.String("error.type", "invalid_index_name")))
}

func TestStartWithServerDownWarnsAndRecovers(t *testing.T) {
	srv := fakees.New(t)
	url := srv.URL
	srv.Close()
	set, logs := observed()
	e, err := newExporter(newTestConfig(url), set)
	require.NoError(t, err)
	require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()), "an unreachable server must not stop the collector")
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("version check failed").Len() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, e.shutdown(context.Background()))
}

func TestCredentialsAreSent(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.Authentication.APIKey = "aWQ6a2V5"
	exp := newLogsExporter(t, cfg, testSettings())
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
	assert.Equal(t, "apikey awq6a2v5", strings.ToLower(srv.LastRequest().Header.Get("Authorization")))
}

func TestBodyLoggingAndFailedDocsInput(t *testing.T) {
	srv := fakees.New(t)
	srv.OnItem = failLog(0, fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception"})
	set, logs := observed()
	cfg := newTestConfig(srv.URL)
	cfg.Telemetry.LogRequestBody = true
	cfg.Telemetry.LogResponseBody = true
	cfg.Telemetry.LogFailedDocsInput = true
	cfg.Authentication.User = "elastic"
	cfg.Authentication.Password = "s3cret"
	exp := newLogsExporter(t, cfg, set)
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(2)))

	// Background checks (version, templates) log their requests too: look at the bulk ones.
	bulkOnly := func(e observer.LoggedEntry) bool { return e.ContextMap()["path"] == "/_bulk" }
	reqs := logs.FilterMessage("Elasticsearch request").Filter(bulkOnly).All()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].ContextMap()["body"], `"log 1"`, "the gzipped body is logged decompressed")
	resps := logs.FilterMessage("Elasticsearch response").Filter(bulkOnly).All()
	require.Len(t, resps, 1)
	assert.Contains(t, resps[0].ContextMap()["body"], `"status":400`)
	rejected := logs.FilterMessage("Document rejected").All()
	require.Len(t, rejected, 1)
	assert.Contains(t, rejected[0].ContextMap()["document"], `"log 0"`)
	for _, entry := range logs.All() {
		for _, v := range entry.ContextMap() {
			assert.NotContains(t, fmt.Sprint(v), "s3cret", "credentials must never be logged")
		}
	}
}

// Each push has the data streams it routes to checked for an index template (the checker's
// own tests, in internal/esclient, show that it warns once per data stream).
func TestPushesCheckTheirDataStreamsTemplates(t *testing.T) {
	srv := fakees.New(t)
	srv.HasTemplate = func(name string) bool { return name == "logs-generic.otel-default" }
	set, logs := observed()
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	ld := testLogs(4)
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	recs.At(1).Attributes().PutStr("data_stream.dataset", "orphan")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	require.Eventually(t, func() bool {
		return logs.FilterMessageSnippet("No index template matches data stream").Len() > 0
	}, 10*time.Second, 5*time.Millisecond)
	warns := logs.FilterMessageSnippet("No index template matches data stream").All()
	assert.Equal(t, "logs-orphan.otel-default", warns[0].ContextMap()["data_stream"])
}

func TestExportSucceedsOnceServerComesUp(t *testing.T) {
	// Reserve a port, then free it: nothing listens there when the exporter starts.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	set, logs := observed()
	cfg := newTestConfig("http://" + addr)
	cfg.Retry.MaxRetries = 0
	e, err := newExporter(cfg, set)
	require.NoError(t, err)
	require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, e.shutdown(context.Background())) })
	exp := logsPusher(func(ctx context.Context, ld plog.Logs) error { return e.pipeline.PushLogs(ctx, ld) })
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("version check failed").Len() == 1 },
		10*time.Second, 5*time.Millisecond, "one clear warning at start")
	err = exp.ConsumeLogs(context.Background(), testLogs(2))
	require.Error(t, err)
	assert.False(t, consumererror.IsPermanent(err), "nothing was indexed: the caller may resend")

	// The server comes up on the same address.
	srv := fakees.NewOn(t, addr)
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(2)))
	assert.Len(t, srv.Accepted(), 2)
	// The version check asks again 30 s after its failure (TestVersionCheckSucceedsOnceServerAnswers
	// in internal/esclient follows it on its real schedule); the push did not wait for it.
	assert.Equal(t, 1, logs.FilterMessageSnippet("version check failed").Len(), "the warning is logged once")
}

func TestTooLargeRequestIsSplit(t *testing.T) {
	srv := fakees.New(t)
	srv.OnRequest = func(_ *http.Request, items []fakees.Item) int {
		for _, it := range items {
			if strings.Contains(string(it.Document), `"huge`) {
				return http.StatusRequestEntityTooLarge
			}
		}
		if len(items) > 2 {
			return http.StatusRequestEntityTooLarge
		}
		return 0
	}
	set, tel := withTelemetry(t)
	core, logs := observer.New(zapcore.WarnLevel)
	set.Logger = zap.New(core)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)
	ld := testLogs(7)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(4).Body().SetStr("huge " + strings.Repeat("x", 1000))
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))

	assert.Len(t, srv.Accepted(), 6, "every other document is indexed once")
	seen := map[string]bool{}
	for _, it := range srv.Accepted() {
		assert.False(t, seen[string(it.Document)], "indexed twice: %s", it.Document)
		seen[string(it.Document)] = true
	}
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected"),
		attribute.String("error.type", "request_entity_too_large")))
	warn := logs.FilterMessage("Documents not indexed").All()
	require.Len(t, warn, 1)
	assert.Regexp(t, `a single document of \d+ bytes`, warn[0].ContextMap()["failures"])
}

func TestRetryAfterIsHonoured(t *testing.T) {
	srv := fakees.New(t)
	var calls atomic.Int32
	srv.RetryAfter = "1"
	srv.OnRequest = func(*http.Request, []fakees.Item) int {
		if calls.Add(1) == 1 {
			return http.StatusTooManyRequests
		}
		return 0
	}
	exp := newLogsExporter(t, newTestConfig(srv.URL), testSettings())
	start := time.Now()
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "the retry waited for Retry-After, not the 1ms backoff")
	assert.Len(t, srv.Accepted(), 1)
}

func TestAuthFailureBecomesPermanentAfterGrace(t *testing.T) {
	srv := fakees.New(t)
	srv.OnRequest = func(*http.Request, []fakees.Item) int { return http.StatusUnauthorized }
	cfg := newTestConfig(srv.URL)
	cfg.Retry.MaxRetries = -1 // without limit: only the grace period ends the retries
	cfg.Retry.AuthGracePeriod = 100 * time.Millisecond
	exp := newLogsExporter(t, cfg, testSettings())
	err := exp.ConsumeLogs(context.Background(), testLogs(1))
	require.ErrorContains(t, err, "HTTP 401")
	assert.True(t, consumererror.IsPermanent(err))
	assert.Greater(t, srv.Requests(), 2, "retried while the grace period lasted")
}

func TestDocumentStatusPolicy(t *testing.T) {
	tests := []struct {
		name      string
		requestRS []int
		docRS     []int
		status    int
		wantRetry bool
	}{
		{name: "unset: 429 from retry_on_status", requestRS: []int{429}, status: 429, wantRetry: true},
		{name: "unset: any 5xx", requestRS: []int{429}, status: 500, wantRetry: true},
		{name: "unset: 400 is final", requestRS: []int{429}, status: 400},
		{name: "set: only its statuses", requestRS: []int{429, 503}, docRS: []int{503}, status: 429},
		{name: "set: listed status", requestRS: []int{429}, docRS: []int{503}, status: 503, wantRetry: true},
		{name: "document 401 is final", requestRS: []int{429}, status: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			var calls atomic.Int32
			srv.OnItem = func(fakees.Item) fakees.Response {
				if calls.Add(1) == 1 {
					return fakees.Response{Status: tt.status, ErrorType: "x"}
				}
				return fakees.Response{}
			}
			cfg := newTestConfig(srv.URL)
			cfg.Retry.RetryOnStatus = tt.requestRS
			cfg.Retry.RetryOnDocumentStatus = tt.docRS
			exp := newLogsExporter(t, cfg, testSettings())
			require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
			if tt.wantRetry {
				assert.Len(t, srv.Accepted(), 1)
				assert.Equal(t, 2, srv.Requests())
			} else {
				assert.Empty(t, srv.Accepted())
				assert.Equal(t, 1, srv.Requests())
			}
		})
	}
}

func TestShutdownStopsRetrying(t *testing.T) {
	srv := fakees.New(t)
	srv.OnRequest = func(*http.Request, []fakees.Item) int { return http.StatusServiceUnavailable }
	cfg := defaultWith() // the sending queue on, retries without a near end
	cfg.Endpoints = []string{srv.URL}
	cfg.Retry.MaxRetries = -1
	cfg.Retry.InitialInterval = 10 * time.Millisecond
	cfg.Retry.MaxInterval = 50 * time.Millisecond
	cfg.QueueBatchConfig.Get().Batch.Get().FlushTimeout = 10 * time.Millisecond
	set, logs := observed()
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
	require.Eventually(t, func() bool { return srv.Requests() >= 3 }, 10*time.Second, 5*time.Millisecond, "retrying")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	require.NoError(t, exp.Shutdown(ctx))
	assert.Less(t, time.Since(start), 5*time.Second, "shutdown does not wait for an outage to end")
	dropped := logs.FilterMessage("Dropping documents: the exporter is shutting down").All()
	require.NotEmpty(t, dropped, "what was given up is logged, as given up because of the stop")
	assert.Contains(t, fmt.Sprint(dropped[0].ContextMap()["error"]), "shutting down")
}

func TestDeterministicIDsMakeReplaysDuplicates(t *testing.T) {
	srv := fakees.New(t)
	var mu sync.Mutex
	ids := map[string]bool{}
	srv.OnItem = func(it fakees.Item) fakees.Response {
		_, meta := it.Op()
		id, _ := meta["_id"].(string)
		mu.Lock()
		defer mu.Unlock()
		if ids[id] {
			return fakees.Response{Status: http.StatusConflict, ErrorType: "version_conflict_engine_exception"}
		}
		ids[id] = true
		return fakees.Response{}
	}
	set, tel := withTelemetry(t)
	core, logs := observer.New(zapcore.WarnLevel)
	set.Logger = zap.New(core)
	cfg := newTestConfig(srv.URL)
	cfg.DeterministicIDs.Enabled = true
	cfg.LogsDynamicID.Enabled = true
	exp := newLogsExporter(t, cfg, set)
	ld := testLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(2).Attributes().PutStr("elasticsearch.document_id", "mine")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld), "a replay is a final outcome")

	require.Len(t, ids, 3)
	assert.True(t, ids["mine"], "an explicit id wins")
	for id := range ids {
		if id != "mine" {
			assert.Regexp(t, `^[A-Za-z0-9_-]{22}$`, id)
		}
	}
	assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
	assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("duplicate")))
	warns := logs.FilterMessage("Documents not indexed").All()
	require.Len(t, warns, 1, "only the user-given id's 409 is worth a warning")
	assert.Contains(t, warns[0].ContextMap()["failures"], "1 duplicate")

	// Different records get different ids; the same record the same id.
	a := bulk.ContentID([]byte(`{"a":1}`))
	assert.Equal(t, a, bulk.ContentID([]byte(`{"a":1}`)))
	assert.NotEqual(t, a, bulk.ContentID([]byte(`{"a":2}`)))
}

func TestDeadLetterIndex(t *testing.T) {
	tests := []struct {
		name      string
		response  fakees.Response
		wantType  string
		wantError bool
	}{
		{name: "rejected for good", response: fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception", Reason: "bad field"}, wantType: "document_parsing_exception"},
		{name: "retries exhausted", response: fakees.Response{Status: http.StatusServiceUnavailable, ErrorType: "unavailable_shards_exception"}, wantType: "not_delivered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			srv.OnItem = func(it fakees.Item) fakees.Response {
				if strings.Contains(string(it.Document), `"log 1"`) && it.Index() != "dead-letters" {
					return tt.response
				}
				return fakees.Response{}
			}
			set, tel := withTelemetry(t)
			cfg := newTestConfig(srv.URL)
			cfg.Retry.MaxRetries = 1
			cfg.DeadLetter.Enabled = true
			cfg.DeadLetter.Index = "dead-letters"
			exp := newLogsExporter(t, cfg, set)
			require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)), "a dead-lettered document has a final outcome")

			var originals, letters []fakees.Item
			for _, it := range srv.Accepted() {
				if it.Index() == "dead-letters" {
					letters = append(letters, it)
				} else {
					originals = append(originals, it)
				}
			}
			assert.Len(t, originals, 2)
			require.Len(t, letters, 1)
			var letter fakees.DeadLetter
			require.NoError(t, json.Unmarshal(letter0(letters), &letter))
			assert.Contains(t, letter.Document, `"body":{"text":"log 1"}`)
			assert.True(t, json.Valid([]byte(letter.Document)), "the original document, as a string")
			assert.Equal(t, "logs-generic.otel-default", letter.Index)
			assert.Equal(t, tt.response.Status, letter.HTTP.Response.StatusCode)
			assert.Equal(t, tt.wantType, letter.Error.Type)
			_, err := time.Parse(time.RFC3339Nano, letter.Timestamp)
			require.NoError(t, err)
			assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dead_lettered")))
			assert.Equal(t, int64(2), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")),
				"the dead letter is not counted as an indexed document")
		})
	}
}

func TestDeadLetterFailureFailsThePush(t *testing.T) {
	srv := fakees.New(t)
	srv.OnItem = func(it fakees.Item) fakees.Response {
		if strings.Contains(string(it.Document), `log 0`) {
			return fakees.Response{Status: http.StatusServiceUnavailable, ErrorType: "unavailable_shards_exception"}
		}
		return fakees.Response{}
	}
	set, logs := observed()
	cfg := newTestConfig(srv.URL)
	cfg.Retry.MaxRetries = 1
	cfg.DeadLetter.Enabled = true
	exp := newLogsExporter(t, cfg, set)
	err := exp.ConsumeLogs(context.Background(), testLogs(2))
	require.Error(t, err, "the document is neither indexed nor dead-lettered")
	assert.NotEmpty(t, logs.FilterMessage("Documents could not be written to the dead-letter index").All())
}

func TestNoIndexHintSkipsRecords(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	logsExp := newLogsExporter(t, newTestConfig(srv.URL), set)
	ld := testLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Attributes().
		PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	require.NoError(t, logsExp.ConsumeLogs(context.Background(), ld))

	tracesExp := newTracesExporter(t, newTestConfig(srv.URL), set)
	td := ptrace.NewTraces()
	span := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.Attributes().PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	span.Events().AppendEmpty().SetName("kept")
	span.Events().AppendEmpty().Attributes().PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	require.NoError(t, tracesExp.ConsumeTraces(context.Background(), td))

	items := srv.Accepted()
	require.Len(t, items, 3, "two logs and the span event without the hint")
	assert.NotContains(t, string(items[0].Document)+string(items[1].Document), `"log 1"`)
	assert.Contains(t, string(items[2].Document), `"event_name":"kept"`)
	assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("skipped"),
		attribute.String("error.type", "_noindex")))
}

// TestPushGivingUpWaitingForRoomIsCounted holds the whole in-flight byte cap with a push that
// retries through an outage, and sends a second push whose context ends while it waits for
// room: it returns a non-permanent error, sends nothing, and its records are counted as a
// retryable failure. The first push is indexed once the outage ends.
func TestPushGivingUpWaitingForRoomIsCounted(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	cfg := newTestConfig(srv.URL)
	cfg.FlowControl.MaxInflightBytes = 1 // the first push runs alone; any other waits
	cfg.Retry.MaxRetries = -1
	exp := newLogsExporter(t, cfg, set)

	srv.StartOutage(time.Hour)
	first := make(chan error, 1)
	go func() { first <- exp.ConsumeLogs(context.Background(), testLogs(3)) }()
	require.Eventually(t, func() bool { return countertest.Sum(t, tel, "otelcol.elasticsearch.inflight.bytes") > 0 },
		10*time.Second, time.Millisecond, "the first push holds its room and is sending")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := exp.ConsumeLogs(ctx, testLogs(5))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, consumererror.IsPermanent(err), "the caller may send the records again")
	assert.Equal(t, int64(5), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("retryable"), attribute.String("error.type", "inflight_bytes_wait")))

	srv.StartOutage(0)
	require.NoError(t, <-first)
	assert.Len(t, srv.Accepted(), 3, "only the first push was sent")
}
