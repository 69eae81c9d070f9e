package integrationtest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/elastic/mock-es/pkg/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/metric/noop"
	"go.uber.org/zap/zaptest"

	elasticsearchexporter "github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// TestAgainstMockES pushes log records through the factory-built exporter, with the sending
// queue off and the exporter's retries on, to Elastic's mock-es in deterministic mode, which
// fails some documents the first time or two it sees them; a wrapper in front of it fails
// some whole bulk requests. Every push must succeed, every record must be indexed once, and
// the exporter's telemetry must count exactly the indexed documents and the failures that were
// injected.
//
// mock-es reads a bulk body with a bufio.Scanner of the default size, so a line over 64 KiB
// ends its reading and the answer lacks the remaining items; the documents here are far
// smaller (checked in the handler).
//
// It needs neither the collector binary nor a node.
func TestAgainstMockES(t *testing.T) {
	const (
		pushes  = 10
		perPush = 400
		records = pushes * perPush
	)

	inj := newMockInjector()
	handler := api.NewDeterministicAPIHandler(mockUUID("00000000-0000-4000-8000-000000000000"), "mock-cluster",
		noop.NewMeterProvider(), time.Now().Add(24*time.Hour), 0, 0, inj.document)
	srv := httptest.NewServer(inj.wrap(handler))
	t.Cleanup(srv.Close)

	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	factory := elasticsearchexporter.NewFactory()
	set := exportertest.NewNopSettings(factory.Type())
	set.TelemetrySettings = tel.NewTelemetrySettings()
	set.Logger = zaptest.NewLogger(t)

	cfg := factory.CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = []string{srv.URL}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.Retry.Enabled = true
	cfg.Retry.InitialInterval = time.Millisecond
	cfg.Retry.MaxInterval = 10 * time.Millisecond
	require.NoError(t, componenttest.CheckConfigStruct(cfg))

	exp, err := factory.CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			assert.NoError(t, exp.Shutdown(context.Background()))
		}
	})

	for p := range pushes {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := exp.ConsumeLogs(ctx, mockLogs(p*perPush, perPush))
		cancel()
		require.NoError(t, err, "push %d", p)
	}
	require.NoError(t, exp.Shutdown(context.Background()))
	stopped = true

	// What the server saw: each record indexed once, after the failures the rules call for.
	inj.mu.Lock()
	defer inj.mu.Unlock()
	wantItem429 := records / 10       // seq%10 == 3: 429 once
	wantItem503 := 2 * (records / 25) // seq%25 == 7: 503 twice
	require.Empty(t, inj.unreadable, "documents the handler could not read")
	assert.Len(t, inj.indexed, records, "distinct records indexed by mock-es")
	for seq, n := range inj.indexed {
		if n != 1 {
			t.Errorf("record %d indexed %d times", seq, n)
		}
	}
	assert.Equal(t, wantItem429, inj.item429, "documents answered 429")
	assert.Equal(t, wantItem503, inj.item503, "documents answered 503")
	assert.Positive(t, inj.request503, "whole requests answered 503")
	assert.Positive(t, inj.request429, "whole requests answered 429")
	t.Logf("mock-es: %d bulk requests (%d answered 503 and %d answered 429 whole, carrying %d documents); "+
		"%d documents answered 429 and %d answered 503; %d records indexed",
		inj.requests, inj.request503, inj.request429, inj.docsInFailedRequests, inj.item429, inj.item503, len(inj.indexed))

	// What the exporter counted.
	assert.Equal(t, map[string]int64{"indexed": records},
		countertest.MustSumBy(t, tel, "otelcol.elasticsearch.docs.fate", "fate"),
		"otelcol.elasticsearch.docs.fate by fate: one fate per record")
	assert.Equal(t, map[string]int64{"success": records},
		countertest.MustSumBy(t, tel, "otelcol.elasticsearch.docs.processed", "outcome"),
		"otelcol.elasticsearch.docs.processed by outcome: a retried document is counted once, as contrib counts it")

	attempts := countertest.MustSumBy(t, tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome")
	assert.Equal(t, map[string]int64{
		"success":       int64(inj.requests - inj.request503 - inj.request429),
		"failed_server": int64(inj.request503),
		"too_many":      int64(inj.request429),
	}, attempts, "otelcol.elasticsearch.bulk_requests.attempts by outcome")
	// A request answered 503 or 429 whole is answered item by item when sent again: one
	// request, as contrib counts it.
	assert.Equal(t, map[string]int64{"success": int64(inj.requests - inj.request503 - inj.request429)},
		countertest.MustSumBy(t, tel, "otelcol.elasticsearch.bulk_requests.count", "outcome"),
		"otelcol.elasticsearch.bulk_requests.count by outcome")

	assert.Equal(t, int64(wantItem429+wantItem503), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried"),
		"otelcol.elasticsearch.docs.retried: the documents that failed on their own, once per resend")
	assert.Equal(t, int64(inj.docsInFailedRequests), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried_http_request"),
		"otelcol.elasticsearch.docs.retried_http_request: the documents of the requests that failed whole, once per resend")
}

// mockInjector decides the answer to each bulk request and each document, deterministically:
//
//   - bulk requests are numbered from 1 as they arrive; request k is answered 503 as a whole
//     when k%5 == 1 and 429 when k%5 == 3, before mock-es reads it (mock-es itself can fail a
//     whole request only with 413, and only at random);
//   - a document is read by mock-es, which asks document(): the record with loadgen-style
//     sequence number seq is answered 429 the first time when seq%10 == 3, 503 the first two
//     times when seq%25 == 7, and 201 otherwise.
type mockInjector struct {
	mu                   sync.Mutex
	requests             int
	request503           int
	request429           int
	docsInFailedRequests int
	seen                 map[int]int // seq -> times mock-es has read the document
	indexed              map[int]int // seq -> times answered 201
	item429, item503     int
	unreadable           []string
}

func newMockInjector() *mockInjector {
	return &mockInjector{seen: map[int]int{}, indexed: map[int]int{}}
}

func (m *mockInjector) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/_bulk" {
			next.ServeHTTP(w, r)
			return
		}
		m.mu.Lock()
		m.requests++
		k := m.requests
		m.mu.Unlock()
		status := 0
		switch k % 5 {
		case 1:
			status = http.StatusServiceUnavailable
		case 3:
			status = http.StatusTooManyRequests
		}
		if status == 0 {
			next.ServeHTTP(w, r)
			return
		}
		n := bulkItems(r)
		m.mu.Lock()
		if status == http.StatusServiceUnavailable {
			m.request503++
		} else {
			m.request429++
		}
		m.docsInFailedRequests += n
		m.mu.Unlock()
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"type":"injected","reason":"request %d refused"},"status":%d}`, k, status)
	})
}

// bulkItems counts the items of a bulk request body: an action line and a document line each.
func bulkItems(r *http.Request) int {
	var rd io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return 0
		}
		defer zr.Close()
		rd = zr
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 16<<20)
	lines := 0
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			lines++
		}
	}
	return lines / 2
}

// document is mock-es's deterministic handler: the status of one bulk item.
func (m *mockInjector) document(_ api.Action, event []byte) int {
	var doc struct {
		Attributes struct {
			Seq *int `json:"test.seq"`
		} `json:"attributes"`
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(event) >= 64<<10 || json.Unmarshal(event, &doc) != nil || doc.Attributes.Seq == nil {
		m.unreadable = append(m.unreadable, string(event[:min(len(event), 200)]))
		return http.StatusBadRequest
	}
	seq := *doc.Attributes.Seq
	m.seen[seq]++
	switch n := m.seen[seq]; {
	case seq%10 == 3 && n == 1:
		m.item429++
		return http.StatusTooManyRequests
	case seq%25 == 7 && n <= 2:
		m.item503++
		return http.StatusServiceUnavailable
	}
	m.indexed[seq]++
	return http.StatusCreated
}

// mockLogs returns n log records numbered from first (attribute test.seq).
func mockLogs(first, n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "mock-es-test")
	recs := rl.ScopeLogs().AppendEmpty().LogRecords()
	now := time.Now()
	for i := first; i < first+n; i++ {
		r := recs.AppendEmpty()
		r.SetTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Microsecond)))
		r.SetSeverityNumber(plog.SeverityNumberInfo)
		r.Body().SetStr(fmt.Sprintf("record %d", i))
		r.Attributes().PutInt("test.seq", int64(i))
	}
	return ld
}

type mockUUID string

func (u mockUUID) String() string { return string(u) }
