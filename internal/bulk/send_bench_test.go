// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// stubClient answers every bulk request in memory with one 201 item per document, after
// reading the body, so that a benchmark of Send measures the Indexer and docappender without
// HTTP.
type stubClient struct {
	mu        sync.Mutex
	responses map[string][]byte
}

func (c *stubClient) Perform(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	n := req.Header.Get("X-Elastic-Event-Count")
	c.mu.Lock()
	resp, ok := c.responses[n]
	if !ok {
		count, _ := strconv.Atoi(n)
		resp = []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(
			`{"create":{"_index":".ds-logs-generic.otel-default-2026.11.30-000001","status":201}},`, count), ",") + `]}`)
		if c.responses == nil {
			c.responses = map[string][]byte{}
		}
		c.responses[n] = resp
	}
	c.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(resp))}, nil
}

// BenchmarkSend measures Send of small documents (about 400 bytes each) at gzip level 1,
// against an in-memory stub: adding the documents to the bulk request, compressing it and
// decoding the response.
func BenchmarkSend(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("docs="+strconv.Itoa(n), func(b *testing.B) {
			ix, err := New(Config{Client: &stubClient{}, CompressionLevel: 1, MaxBulkBytes: 5_000_000})
			if err != nil {
				b.Fatal(err)
			}
			var batch Batch
			for i := range n {
				start := len(batch.Buf)
				batch.Buf = append(batch.Buf, `{"@timestamp":"1700000000000.`...)
				batch.Buf = strconv.AppendInt(batch.Buf, int64(i), 10)
				batch.Buf = append(batch.Buf, `","data_stream":{"type":"logs","dataset":"generic","namespace":"default"},`+
					`"severity_text":"INFO","severity_number":9,"attributes":{"http.method":"POST","http.status_code":201},`+
					`"resource":{"attributes":{"service.name":"checkout","host.name":"web-1"}},"scope":{"name":"checkout.logger"},`+
					`"body":{"text":"order placed for customer `...)
				batch.Buf = strconv.AppendInt(batch.Buf, int64(i), 10)
				batch.Buf = append(batch.Buf, `"}}`...)
				batch.Add(start, Item{Index: "logs-generic.otel-default", RequireDataStream: true})
			}
			b.SetBytes(int64(len(batch.Buf)))
			b.ReportAllocs()
			ctx := b.Context()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					res, err := ix.Send(ctx, &batch)
					if err != nil || res.Indexed != n {
						b.Errorf("Send: %+v, %v", res, err)
						return
					}
				}
			})
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
