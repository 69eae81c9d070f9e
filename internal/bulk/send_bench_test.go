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
//
// With noItems, the stub answers {"errors":false,"items":[]} instead: docappender then decodes
// next to nothing, and Send must count no document as indexed (it reports the mismatch). The
// difference between the two measures what decoding the response costs in docappender.
type stubClient struct {
	noItems   bool
	mu        sync.Mutex
	responses map[string][]byte
}

func (c *stubClient) Perform(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	if c.noItems {
		body := io.NopCloser(strings.NewReader(`{"errors":false,"items":[]}`))
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: body}, nil
	}
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
// decoding the response (response=items). response=none measures the same without the
// response's items (see stubClient): an upper bound of what faster response decoding could
// give, not a way to run.
func BenchmarkSend(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, noItems := range []bool{false, true} {
			response := "items"
			if noItems {
				response = "none"
			}
			b.Run("docs="+strconv.Itoa(n)+"/response="+response, func(b *testing.B) {
				benchmarkSend(b, n, noItems)
			})
		}
	}
}

// BenchmarkSendSmallPushes measures many pushes of 50 documents at once (8 per GOMAXPROCS)
// under a cap of 2 bulk requests in flight, as a sending queue's consumers send them: the
// pushes that wait for a slot share a request.
func BenchmarkSendSmallPushes(b *testing.B) {
	b.SetParallelism(8)
	benchmarkSendWith(b, 50, false, ConcurrencyConfig{Max: 2})
}

func benchmarkSend(b *testing.B, n int, noItems bool) {
	b.Helper()
	benchmarkSendWith(b, n, noItems, ConcurrencyConfig{})
}

func benchmarkSendWith(b *testing.B, n int, noItems bool, concurrency ConcurrencyConfig) {
	b.Helper()
	ix, err := New(Config{
		Client: &stubClient{noItems: noItems}, CompressionLevel: 1, MaxBulkBytes: 5_000_000,
		Concurrency: concurrency, IdleSessions: 64,
	})
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
			if noItems {
				// Unanswered documents are never counted as indexed.
				if err == nil || res.Indexed != 0 || res.Dropped != n {
					b.Errorf("Send without items: %+v, %v", res, err)
					return
				}
				continue
			}
			if err != nil || res.Indexed != n {
				b.Errorf("Send: %+v, %v", res, err)
				return
			}
		}
	})
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
