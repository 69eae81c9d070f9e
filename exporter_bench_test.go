// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// bulkServer starts a server that answers GET / with a version and each bulk request with
// answer, given the number of documents the request holds; the body is not decoded.
func bulkServer(tb testing.TB, answer func(w http.ResponseWriter, n int)) string {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		if r.URL.Path != "/_bulk" {
			_, _ = io.WriteString(w, `{"version":{"number":"9.1.0"}}`)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n, _ := strconv.Atoi(r.Header.Get("X-Elastic-Event-Count"))
		answer(w, n)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// bulkSink answers every bulk request with one 201 item per document, without decoding the
// body, so that a benchmark measures the exporter and not a fake server's parsing.
func bulkSink(tb testing.TB) string {
	tb.Helper()
	var mu sync.Mutex
	responses := map[int][]byte{}
	return bulkServer(tb, func(w http.ResponseWriter, n int) {
		mu.Lock()
		resp, ok := responses[n]
		if !ok {
			resp = []byte(`{"errors":false,"items":[` +
				strings.TrimSuffix(strings.Repeat(`{"create":{"_index":"i","status":201}},`, n), ",") + `]}`)
			responses[n] = resp
		}
		mu.Unlock()
		_, _ = w.Write(resp)
	})
}

// benchmarkLogs returns n small log records in one resource and scope.
func benchmarkLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	rl.Resource().Attributes().PutStr("host.name", "web-1")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("checkout.logger")
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i))
		r.SetSeverityNumber(plog.SeverityNumberInfo)
		r.SetSeverityText("INFO")
		r.Body().SetStr("order placed for customer " + strconv.Itoa(i))
		r.Attributes().PutStr("http.method", "POST")
		r.Attributes().PutInt("http.status_code", 201)
	}
	ld.MarkReadOnly()
	return ld
}

// BenchmarkPushLogs measures the whole push path of the factory-built exporter: encoding,
// gzip at level 1, the HTTP round trip to a loopback sink and reading the bulk response.
func BenchmarkPushLogs(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			cfg := newTestConfig(bulkSink(b))
			e, err := newExporter(cfg, testSettings())
			require.NoError(b, err)
			require.NoError(b, e.start(context.Background(), componenttest.NewNopHost()))
			b.Cleanup(func() { require.NoError(b, e.shutdown(context.Background())) })
			ld := benchmarkLogs(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := e.pushLogs(ctx, ld); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
