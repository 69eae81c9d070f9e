// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
)

// The realistic corpora of testdata: bulk bodies the exporter wrote (mapping mode otel) for the
// lab's realistic records (benchdata.NewRealistic(benchdata.RealisticSeed): real log lines as
// bodies, random ids and addresses, Kubernetes resources), 300 logs and 200 spans, written
// once and kept here so that this package needs nothing of the lab.
var realisticCorpora = []string{"logs", "spans"}

// BenchmarkBodyEncoding measures the compression of a realistic bulk body alone, per document:
// gzip at level 1 (as docappender writes it, klauspost's gzip), snappy (the session's client,
// encoding.go) and none (a copy, what docappender's buffer costs). It reports the encoded bytes
// per document (B/doc) and the time per document (ns/doc).
func BenchmarkBodyEncoding(b *testing.B) {
	for _, corpus := range realisticCorpora {
		body, docs := readCorpus(b, corpus)
		for _, enc := range []string{"gzip1", "snappy", "none"} {
			b.Run("corpus="+corpus+"/enc="+enc, func(b *testing.B) {
				var e bodyEncoder
				var out bytes.Buffer
				gw, _ := gzip.NewWriterLevel(&out, 1)
				req, err := http.NewRequest(http.MethodPost, "/_bulk", http.NoBody)
				require.NoError(b, err)
				size := 0
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					switch enc {
					case "gzip1":
						out.Reset()
						gw.Reset(&out)
						_, _ = gw.Write(body)
						_ = gw.Close()
						size = out.Len()
					case "snappy":
						require.NoError(b, e.encode(req, bytes.NewReader(body), true))
						size = e.sent
					case "none":
						out.Reset()
						out.Write(body)
						size = out.Len()
					}
				}
				b.ReportMetric(float64(size)/float64(docs), "B/doc")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*docs), "ns/doc")
			})
		}
	}
}

// BenchmarkSendEncoding measures Send of the realistic corpora with each compression, against
// the in-memory stub: adding the documents to the request, compressing it, and decoding the
// response; per document. snappy is docappender at level 0 and the session's client encoding
// the body.
func BenchmarkSendEncoding(b *testing.B) {
	for _, corpus := range realisticCorpora {
		body, docs := readCorpus(b, corpus)
		var batch Batch
		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		for i := 1; i < len(lines); i += 2 {
			start := len(batch.Buf)
			batch.Buf = append(batch.Buf, lines[i]...)
			batch.Add(start, Item{Index: "logs-generic.otel-default", RequireDataStream: true})
		}
		for _, enc := range []string{"gzip1", "snappy", "none"} {
			b.Run("corpus="+corpus+"/enc="+enc, func(b *testing.B) {
				stub := &sizeStub{}
				cfg := Config{Client: stub, MaxBulkBytes: 8 << 20}
				switch enc {
				case "gzip1":
					cfg.CompressionLevel = 1
				case "snappy":
					cfg.CompressionLevel, cfg.Snappy = 1, true
				}
				ix, err := New(cfg)
				require.NoError(b, err)
				ix.EnableSnappy()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ix.Send(context.Background(), &batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(stub.last.Load())/float64(docs), "B/doc")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*docs), "ns/doc")
			})
		}
	}
}
