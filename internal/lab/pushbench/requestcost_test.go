// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pushbench

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/cputime"
)

// requestCostSizes are the records per push of BenchmarkRequestCost: small enough that each
// push is one bulk request and the fixed cost of a request shows against the cost per
// document.
var requestCostSizes = []int{1, 10, 50, 100}

// BenchmarkRequestCost measures what one bulk request costs the client, at 1, 10, 50 and 100 log
// records per request, of the realistic records and of the uniform ones (the best case), with the sink in a process of its own (processSink): cpu-ns/req is the
// benchmark process's CPU time per request (getrusage), allocs/op its allocations. Two ways of
// sending the same documents, one at a time (no b.RunParallel):
//
//   - impl=push: ConsumeLogs of the factory-built exporter at its defaults but with the
//     sending queue off, so that each call is one push and one bulk request (encoding, the
//     bulk session, gzip level 1, the HTTP exchange, reading the response, telemetry);
//   - impl=post: the floor, a bare net/http POST over a keep-alive connection of the body the
//     push sends, gzipped once beforehand, reading the same answer.
//
// internal/lab/cmd/benchtable fits a line through the four sizes: its intercept is the fixed cost
// of a request, its slope the cost of a document.
func BenchmarkRequestCost(b *testing.B) {
	sink := processSink(b)
	sig := benchmarkSignals[0] // logs
	for _, corpus := range []string{corpusRealistic, corpusUniform} {
		for _, n := range requestCostSizes {
			requestCostOf(b, sink, sig, corpus, n)
		}
	}
}

// requestCostOf measures both ways of sending n records of corpus.
func requestCostOf(b *testing.B, sink string, sig benchmarkSignal, corpus string, n int) {
	b.Helper()
	data := benchmarkData(sig, corpus, n)
	prefix := "corpus=" + corpus + "/records=" + strconv.Itoa(n)
	b.Run(prefix+"/impl=push", func(b *testing.B) {
		exp := sig.create(b, sink)
		ctx := b.Context()
		measureRequests(b, func() error { return sig.push(ctx, exp, data) })
	})
	b.Run(prefix+"/impl=post", func(b *testing.B) {
		body := capturedBody(b, sink, sig, data)
		var gz bytes.Buffer
		zw, err := gzip.NewWriterLevel(&gz, 1)
		require.NoError(b, err)
		_, err = zw.Write(body)
		require.NoError(b, err)
		require.NoError(b, zw.Close())
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		b.Cleanup(client.CloseIdleConnections)
		url := sink + "/_bulk?filter_path=" + bulk.AccountingFilterPath
		count := strconv.Itoa(n)
		ctx := b.Context()
		measureRequests(b, func() error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(gz.Bytes()))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/x-ndjson")
			req.Header.Set("Content-Encoding", "gzip")
			req.Header.Set("X-Elastic-Event-Count", count)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return err
		})
	})
}

// measureRequests runs do b.N times and reports the process's CPU time per call.
func measureRequests(b *testing.B, do func() error) {
	b.Helper()
	b.ReportAllocs()
	cpu0, ok0 := cputime.Process()
	for b.Loop() {
		if err := do(); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, ok1 := cputime.Process(); ok0 && ok1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/req")
	}
}
