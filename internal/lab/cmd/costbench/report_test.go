// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintReport(t *testing.T) {
	var rep report
	rep.Machine.CPUs, rep.Machine.CPUModel, rep.Machine.GoVersion = 2, "Test CPU", "go1.26.8"
	rep.Records, rep.Conns, rep.Corpus = map[string]int{"logs": 1000}, 32, corpusRealistic
	rep.Runs = []result{
		{
			Signal: "logs", Exporter: "elasticsearch", WindowSeconds: 10, Records: 5_000_000, Documents: 5_000_000,
			DocsPerSec: 500_000, CollectorCPU: 10, CPUPerMillion: 2, SinkCPU: 1, GeneratorCPU: 0.5,
			BodyBytesPerDoc: 9.5, RawBytesPerDoc: 480, RSSMeanMiB: 100, HWMMiB: 120, GrowthMiBPerMin: 0.5,
			HeapLiveMiB: 90, ExporterHeapMiB: 40,
			Split:   &split{Total: 10, Parts: map[string]float64{partExporter: 5, partReceiver: 2, partGC: 1, partRest: 1, partExporterHelp: 1}, UnderPush: 4.9},
			Ceiling: &ceiling{EncodeNs: 200, GzipNs: 200},
		},
		{
			Signal: "logs", Exporter: "debug", RecordsPerRequest: 1000, WindowSeconds: 10, Records: 15_000_000, DocsPerSec: 1_500_000, CPUPerMillion: 1, HWMMiB: 80,
			RSSIdleMiB: 50, RequestBytes: 434_599, PdataPerByte: 2,
		},
	}
	rep.Runs[0].RecordsPerRequest, rep.Runs[0].AcceptedTotal, rep.Runs[0].ArrivedTotal = 1000, 7_000_000, 7_000_000
	rep.Runs[0].RSSIdleMiB, rep.Runs[0].RequestBytes, rep.Runs[0].PdataPerByte = 50, 434_599, 2
	var out strings.Builder
	printReport(&out, options{signals: []string{"logs"}, out: ".bin/cost"}, rep)
	got := out.String()
	assert.Contains(t, got, "| logs | 500k | 2.00 | 1.00 | 120 | 9.5 | 480 | 50.5× | 0 | 0.20 | 0.10 |")
	// The exporter: 50% of 2,000 ns per document; 1,000 / (200 + 200) = 2.5.
	assert.Contains(t, got, "| logs | 50% | 49% | 10% | 20% | 10% | 10% | 1000 |")
	assert.Contains(t, got, "| logs | 1000 | 200 | 200 | 400 | 2.50 |")
	// Model: 50 MiB + 2 × (32 × 434,599 × 3 + 48 requests in the 20 MiB queue × 434,599 × 2
	// + 64 MiB for the exporter + 32 idle sessions × (1 MiB + 5 MB × 9.5 / 480)); the exporter's
	// 40 MiB of heap within the 64 MiB cap.
	assert.Contains(t, got, "| logs | 1000 | 424 | 100 | 120 | 359 | 80 | +40 | 90 | 40 | yes | 1500k |")
	over := rep
	over.Runs = slices.Clone(rep.Runs)
	over.Runs[0].ExporterHeapMiB = 65
	out.Reset()
	printReport(&out, options{signals: []string{"logs"}, out: ".bin/cost"}, over)
	assert.Contains(t, out.String(), "| logs | 1000 | 424 | 100 | 120 | 359 | 80 | +40 | 90 | 65 | no | 1500k |")

	assert.NotContains(t, got, "Other sizes of request", "no short runs, no table")

	rep.Runs = append(rep.Runs,
		result{Signal: "logs", Exporter: exporterES, RecordsPerRequest: 50, Short: true, CPUPerMillion: 2.5, DocsPerSec: 100_000, Documents: 1_000_000, SinkCPU: 0.3, AcceptedTotal: 5, ArrivedTotal: 5},
		result{Signal: "logs", Exporter: exporterES, RecordsPerRequest: 512, Short: true, CPUPerMillion: 2.1, DocsPerSec: 400_000},
		result{
			Signal: "logs", Exporter: exporterOTLPHTTP, RecordsPerRequest: 1000, Short: true, CPUPerMillion: 4, DocsPerSec: 200_000,
			Records: 3_000_000, Failures: 1000, AcceptedTotal: 4_000_000, ArrivedTotal: 3_999_000,
		},
		result{Signal: "logs", Exporter: exporterOTLPHTTP, Settings: blockOnOverflowShown, RecordsPerRequest: 1000, Short: true, CPUPerMillion: 1, DocsPerSec: 300_000},
	)
	out.Reset()
	printReport(&out, options{signals: []string{"logs"}, sizes: []int{50, 512}}, rep)
	got = out.String()
	assert.Contains(t, got, "| logs | elasticsearch | defaults | 1000 | 500k | 2.00 | 1 | 0 | all 7000000 | 120 | 9.5 | 50.5× | 0.20 | 0.00 |")
	assert.Contains(t, got, "| logs | elasticsearch | defaults | 50 | 100k | 2.50 | 1.25 | 0 | all 5 | 0 | 0.0 | – | 0.30 | 0.00 |")
	// 3,000 requests accepted (3,000,000 records of 1,000) and 1,000 refused: a quarter refused.
	assert.Contains(t, got, "| logs | otlphttp | defaults | 1000 | 200k | 4.00 | 2.00 | 1000 (25%) | 3999000 of 4000000 | 0 | 0.0 | – | – | 0.00 |")
	assert.Contains(t, got, "| logs | otlphttp | `sending_queue:\\n  block_on_overflow: true` | 1000 | 300k | 1.00 | 0.50 |")
	// At 1,000 records: 2 / 4 = 0.5 ≤ 1; 2 / 1 = 2 > 1. At 50 records against the first run:
	// 2.5 / 2 = 1.25 ≤ 2; at 512 records 2.1 / 2 = 1.05, with no goal; no otlphttp runs at
	// those sizes.
	assert.Contains(t, got, "| ours / ours at the first run's size (≤ 2.0 at 50) | ours / otlphttp defaults (≤ 1.0) |")
	assert.Contains(t, got, "| logs | 1000 | 2.00 | 4.00 | 1.00 | 1 | 0.50 (met) | 2.00 (not met) |")
	assert.Contains(t, got, "| logs | 50 | 2.50 | – | – | 1.25 (met) | – | – |")
	assert.Contains(t, got, "| logs | 512 | 2.10 | – | – | 1.05 | – | – |")

	rep.Runs = rep.Runs[:2]
	rep.Runs[0].Split, rep.Runs[0].Ceiling = nil, nil
	out.Reset()
	printReport(&out, options{signals: []string{"logs"}}, rep)
	assert.NotContains(t, out.String(), "CPU profile of the collector", "no empty tables")
	assert.NotContains(t, out.String(), "Bulk request bodies", "no encodings counted")
}

// TestPrintReportEncoding: the header names the Content-Encoding the sink received, and gzip
// alone is not set against a run that sent snappy.
func TestPrintReportEncoding(t *testing.T) {
	var rep report
	rep.Records, rep.Conns, rep.Corpus = map[string]int{"logs": 1000, "spans": 1000}, 32, corpusRealistic
	rep.ExporterConfig = "compression: snappy"
	sp := &split{Total: 10, Parts: map[string]float64{partExporter: 5}}
	rep.Runs = []result{
		{Signal: "logs", Exporter: exporterES, Documents: 1, BodyEncoding: "snappy", Split: sp, Ceiling: &ceiling{EncodeNs: 200, GzipNs: 200}},
		{Signal: "spans", Exporter: exporterES, Documents: 1, BodyEncoding: "gzip 3, snappy 1"},
	}
	var out strings.Builder
	printReport(&out, options{signals: []string{"logs", "spans"}}, rep)
	got := out.String()
	assert.Contains(t, got, "Not the defaults: the exporter's settings add `compression: snappy`.\n")
	assert.Contains(t, got, "Bulk request bodies (Content-Encoding as the sink received them in the window): logs snappy, spans gzip 3, snappy 1.\n")
	assert.NotContains(t, got, "encoding and gzip level 1 alone")
}

func TestBodyEncoding(t *testing.T) {
	assert.Empty(t, bodyEncoding(nil, nil))
	assert.Equal(t, "snappy", bodyEncoding(map[string]int64{"snappy": 1}, map[string]int64{"snappy": 9}))
	assert.Equal(t, "gzip", bodyEncoding(map[string]int64{"snappy": 1}, map[string]int64{"snappy": 1, "gzip": 4}))
	assert.Equal(t, "snappy 5, gzip 2, none 2", bodyEncoding(nil, map[string]int64{"gzip": 2, "snappy": 5, "none": 2}))
}

// TestPrintNodeReport: per signal and size, the range over the rounds and its median, the node's
// CPU beside the collector's, and the ratio of their sum at another size to the first size's.
func TestPrintNodeReport(t *testing.T) {
	var rep report
	rep.Corpus, rep.Conns = corpusRealistic, 32
	rep.Node = &nodeReport{Version: "9.5.4", Endpoint: "https://127.0.0.1:9200", IdleCores: 0.02, Warmup: "17s"}
	run := func(n int, collector, esSeconds float64, round int) result {
		return result{
			Signal: "logs", Exporter: exporterES, RecordsPerRequest: n, Round: round, Documents: 1_000_000,
			DocsPerSec: 20_000, DocsPerRequest: float64(n), CPUPerMillion: collector, SinkCPU: esSeconds,
		}
	}
	rep.Runs = []result{run(1000, 2, 40, 1), run(50, 6, 120, 1), run(1000, 3, 50, 2), run(50, 5, 100, 2), run(1000, 2.5, 60, 3), run(50, 7, 110, 3)}
	var out strings.Builder
	printNodeReport(&out, options{signals: []string{"logs"}, records: map[string]int{"logs": 1000}, sizes: []int{50}, repeats: 3}, rep)
	got := out.String()
	assert.Contains(t, got, "Elasticsearch 9.5.4 at https://127.0.0.1:9200")
	assert.Contains(t, got, "| logs | 1000 | 20.0k–20.0k (20.0k) | 1000–1000 (1000) | 2.00–3.00 (2.50) | 40.0–60.0 (50.0) | 42.0–62.5 (53.0) | 16.7–24.0 (20.0) |")
	assert.Contains(t, got, "| logs | 50 | 20.0k–20.0k (20.0k) | 50–50 (50) | 5.00–7.00 (6.00) | 100.0–120.0 (110.0) | 105.0–126.0 (117.0) | 15.7–20.0 (20.0) |")
	// Medians of the sums: 117 / 53 (the middle of 42, 53, 62.5).
	assert.Contains(t, got, "- logs (first size 1000): at 50: 2.21×")
}
