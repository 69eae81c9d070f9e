// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDelays(t *testing.T) {
	d, err := parseDelays("")
	require.NoError(t, err)
	assert.Empty(t, d)
	d, err = parseDelays("0s,5ms, 20ms,50ms")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond}, d)
	_, err = parseDelays("5")
	require.Error(t, err)
	_, err = parseDelays("-1ms")
	require.Error(t, err)
}

func TestParseCompare(t *testing.T) {
	c, err := parseCompare("today=.bin/otelcol-es-today,old=/tmp/otelcol")
	require.NoError(t, err)
	assert.Equal(t, []namedCollector{{Name: "today", Path: ".bin/otelcol-es-today"}, {Name: "old", Path: "/tmp/otelcol"}}, c)
	for _, bad := range []string{"today", "=x", "today=", "a/b=x"} {
		_, err := parseCompare(bad)
		assert.Error(t, err, bad)
	}
}

func TestNodeCollectorsNames(t *testing.T) {
	_, err := nodeCollectors(options{collector: "x", collectorName: "new"}, "go1.26.8")
	require.NoError(t, err)
	_, err = nodeCollectors(options{collector: "x", collectorName: "new", compare: []namedCollector{{Name: "today", Path: "/nonexistent"}}}, "go1.26.8")
	assert.Error(t, err, "a binary that is not there")
}

func TestPrintLatencyReport(t *testing.T) {
	var rep report
	rep.Machine.CPUs, rep.Machine.CPUModel = 2, "Test CPU"
	rep.Conns, rep.Corpus = 32, corpusRealistic
	rep.Node = &nodeReport{Endpoint: "https://127.0.0.1:9200", Version: "9.5.4", IdleCores: 0.05, Warmup: "17s"}
	rep.Collectors = []namedCollector{{Name: "new", Path: ".bin/otelcol-es", GoVersion: "go1.26.8"}, {Name: "today", Path: ".bin/otelcol-es-today", GoVersion: "go1.26.8"}}
	rep.AddedRoundTrips = []string{"0s", "20ms"}
	run := func(collector, delay string, round int, docsPerSec, perReq, colPerM float64) result {
		docs := int64(docsPerSec * 10)
		return result{
			Signal: "logs", Exporter: exporterES, RecordsPerRequest: 50, Round: round, Collector: collector,
			AddedRoundTrip: delay, Proxied: true, WindowSeconds: 10, Documents: docs, DocsPerSec: docsPerSec,
			DocsPerRequest: perReq, CPUPerMillion: colPerM, SinkCPU: 5 * float64(docs) / 1e6,
		}
	}
	// Out of order, as the rounds turn them.
	rep.Runs = []result{
		run("today", "20ms", 1, 10_000, 50, 4),
		run("new", "20ms", 1, 40_000, 2000, 2),
		run("new", "0s", 1, 50_000, 2500, 2),
		run("today", "0s", 1, 30_000, 60, 3.5),
		run("new", "20ms", 2, 44_000, 2200, 2.5),
		run("today", "20ms", 2, 11_000, 50, 4.5),
		run("today", "0s", 2, 32_000, 70, 3),
		run("new", "0s", 2, 52_000, 2600, 2.1),
	}
	rep.Runs[1].Failures = 3
	var out strings.Builder
	printLatencyReport(&out, options{signals: []string{"logs"}, repeats: 2, out: ".bin/cost-latency"}, rep)
	got := out.String()
	assert.Contains(t, got, "new = `.bin/otelcol-es` (go1.26.8), today = `.bin/otelcol-es-today` (go1.26.8)")
	assert.Contains(t, got, "0s is the same proxy without the hold")
	rows := []string{
		"| logs | 50 | 0s | new | 50.0k–52.0k (51.0k) | 2500–2600 (2550) | 2.00–2.10 (2.05) | 5.0–5.0 (5.0) | 7.0–7.1 (7.0) | 0 |",
		"| logs | 50 | 0s | today | 30.0k–32.0k (31.0k) | 60–70 (65) | 3.00–3.50 (3.25) | 5.0–5.0 (5.0) | 8.0–8.5 (8.2) | 0 |",
		"| logs | 50 | 20ms | new | 40.0k–44.0k (42.0k) | 2000–2200 (2100) | 2.00–2.50 (2.25) | 5.0–5.0 (5.0) | 7.0–7.5 (7.2) | 3 |",
		"| logs | 50 | 20ms | today | 10.0k–11.0k (10.5k) | 50–50 (50) | 4.00–4.50 (4.25) | 5.0–5.0 (5.0) | 9.0–9.5 (9.2) | 0 |",
	}
	last := -1
	for _, row := range rows {
		i := strings.Index(got, row)
		require.GreaterOrEqual(t, i, 0, "missing row %s in\n%s", row, got)
		assert.Greater(t, i, last, "rows by delay, then collector in the order given")
		last = i
	}

	// One round, straight to the node: single values, delay none.
	rep.AddedRoundTrips = nil
	rep.Runs = []result{run("new", "", 1, 50_000, 2500, 2)}
	rep.Runs[0].Proxied = false
	out.Reset()
	printLatencyReport(&out, options{signals: []string{"logs"}, repeats: 1, out: ".bin/cost-latency"}, rep)
	assert.Contains(t, out.String(), "| logs | 50 | none | new | 50.0k | 2500 | 2.00 | 5.0 | 7.0 | 0 |")
	assert.Contains(t, out.String(), "Added round trip: none, straight to the node.")
}
