// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintReport(t *testing.T) {
	var rep report
	rep.Machine.CPUs, rep.Machine.CPUModel, rep.Machine.GoVersion = 2, "Test CPU", "go1.26.8"
	rep.Records, rep.Conns = map[string]int{"logs": 1000}, 32
	rep.Runs = []result{
		{
			Signal: "logs", Exporter: "elasticsearch", WindowSeconds: 10, Records: 5_000_000, Documents: 5_000_000,
			DocsPerSec: 500_000, CollectorCPU: 10, CPUPerMillion: 2, SinkCPU: 1, GeneratorCPU: 0.5,
			BodyBytesPerDoc: 9.5, RawBytesPerDoc: 480, RSSMeanMiB: 100, HWMMiB: 120, GrowthMiBPerMin: 0.5,
			Split:   &split{Total: 10, Parts: map[string]float64{partExporter: 5, partReceiver: 2, partGC: 1, partRest: 1, partExporterHelp: 1}, UnderPush: 4.9},
			Ceiling: &ceiling{EncodeNs: 200, GzipNs: 200},
		},
		{Signal: "logs", Exporter: "debug", WindowSeconds: 10, Records: 15_000_000, DocsPerSec: 1_500_000, CPUPerMillion: 1, HWMMiB: 80},
	}
	var out strings.Builder
	printReport(&out, options{signals: []string{"logs"}, out: ".bin/cost"}, rep)
	got := out.String()
	assert.Contains(t, got, "| logs | 500k | 2.00 | 1.00 | 120 | 9.5 | 480 | 0.20 | 0.10 |")
	// The exporter: 50% of 2,000 ns per document; 1,000 / (200 + 200) = 2.5.
	assert.Contains(t, got, "| logs | 50% | 49% | 10% | 20% | 10% | 10% | 1000 |")
	assert.Contains(t, got, "| logs | 1000 | 200 | 200 | 400 | 2.50 |")
	// Bound: 2 × 64 MiB + 80 MiB.
	assert.Contains(t, got, "| logs | 100 | 120 | +0.5 | 80 | 208 | yes | 1500k | 1.00 |")

	rep.Runs[0].Split, rep.Runs[0].Ceiling = nil, nil
	out.Reset()
	printReport(&out, options{signals: []string{"logs"}}, rep)
	assert.NotContains(t, out.String(), "CPU profile of the collector", "no empty tables")
}
