// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// printLatencyReport writes the runs against a real node with -delays or -compare: one row per
// signal, records per request, added round trip and collector, with the range over the rounds
// (lowest–highest, median in parentheses; the one value when there is one round) of documents
// per second, documents per bulk request, the collector's and the node's CPU per million
// documents the node indexed, and their sum.
func printLatencyReport(w io.Writer, o options, rep report) {
	m, nd := rep.Machine, rep.Node
	fmt.Fprintf(w, "\n## Results against a real Elasticsearch, by added round trip and collector\n\nMachine: %d CPUs (%s), GOMAXPROCS=2; load average at start %.2f %.2f %.2f, "+
		"other processes busy on %.2f CPUs. Layout: %s; the node shares the machine.\n", m.CPUs, m.CPUModel, m.LoadStart[0], m.LoadStart[1], m.LoadStart[2], m.BusyStart, m.Layout)
	if nd != nil {
		fmt.Fprintf(w, "Node: Elasticsearch %s at %s, the otel stand-in templates; at rest it used %.2f CPUs (counted in its figures below, not subtracted). "+
			"Each signal warmed the node for %s first, straight and with the first collector, not counted. %s\n", nd.Version, nd.Endpoint, nd.IdleCores, nd.Warmup, settleSentence())
	}
	var cols []string
	for _, c := range rep.Collectors {
		cols = append(cols, fmt.Sprintf("%s = `%s` (%s)", c.Name, c.Path, c.GoVersion))
	}
	fmt.Fprintf(w, "Collectors: %s; each at its exporter's defaults (endpoint and credentials only)", strings.Join(cols, ", "))
	if rep.ExporterConfig != "" {
		fmt.Fprintf(w, " plus `%s`", strings.ReplaceAll(rep.ExporterConfig, "\n", `\n`))
	}
	fmt.Fprintln(w, ".")
	if len(rep.AddedRoundTrips) > 0 {
		fmt.Fprintf(w, "Added round trip: every run goes through a proxy in this process (HTTPS on both sides, keep-alive, up to %d idle connections to the node) that holds each request "+
			"that long before forwarding it unchanged; 0s is the same proxy without the hold, so rows differ only in the delay. It models network latency "+
			"once per request, not bandwidth nor the handshakes of new connections. The proxy's CPU is this process's, in neither figure below.\n", proxyIdleConns)
	} else {
		fmt.Fprintln(w, "Added round trip: none, straight to the node.")
	}
	fmt.Fprintf(w, "Load: OTLP/HTTP protobuf, uncompressed, fresh %s records in every request; %d connections (saturation); %d round(s), each over every size, signal, delay and collector, "+
		"the order of the delays and of the collectors turned from one to the next; warm-up %s, window %s per run. "+
		"CPU: the processes' own time from /proc/<pid>/stat per million documents the node indexed in the window.\n\n",
		rep.Corpus, rep.Conns, o.repeats, o.shortWarmup, o.shortWindow)

	type rowKey struct {
		signal    string
		n         int
		delay     time.Duration // -1: straight to the node
		collector string
	}
	rows := map[rowKey][]result{}
	var order []rowKey
	for _, r := range rep.Runs {
		k := rowKey{r.Signal, r.RecordsPerRequest, -1, r.Collector}
		if r.Proxied {
			k.delay, _ = time.ParseDuration(r.AddedRoundTrip)
		}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], r)
	}
	collectorIndex := func(name string) int {
		return slices.IndexFunc(rep.Collectors, func(c namedCollector) bool { return c.Name == name })
	}
	slices.SortStableFunc(order, func(a, b rowKey) int {
		if c := slices.Index(o.signals, a.signal) - slices.Index(o.signals, b.signal); c != 0 {
			return c
		}
		if a.n != b.n {
			return b.n - a.n
		}
		if a.delay != b.delay {
			return int((a.delay - b.delay) / time.Microsecond)
		}
		return collectorIndex(a.collector) - collectorIndex(b.collector)
	})
	fmt.Fprintln(w, "| signal | records/request | added round trip | collector | documents/s | documents per bulk request | collector CPU s/M | Elasticsearch CPU s/M | collector + Elasticsearch s/M | failed requests |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
	esPerM := result.sinkCPUPerMillion
	for _, k := range order {
		rs := rows[k]
		col := func(f func(r result) float64, format string) string { return spread(column(rs, f), format) }
		delay := "none"
		if k.delay >= 0 {
			delay = k.delay.String()
		}
		var failed int64
		for _, r := range rs {
			failed += r.Failures
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d |\n", k.signal, k.n, delay, k.collector,
			col(func(r result) float64 { return r.DocsPerSec / 1e3 }, "%.1fk"),
			col(func(r result) float64 { return r.DocsPerRequest }, "%.0f"),
			col(func(r result) float64 { return r.CPUPerMillion }, "%.2f"),
			col(esPerM, "%.1f"),
			col(func(r result) float64 { return r.CPUPerMillion + esPerM(r) }, "%.1f"),
			failed)
	}
	fmt.Fprintf(w, "\nAll figures: %s/results.json.\n", o.out)
}

// spread writes values as lowest–highest (median), or the one value when there is one.
func spread(v []float64, format string) string {
	switch len(v) {
	case 0:
		return "–"
	case 1:
		return fmt.Sprintf(format, v[0])
	}
	return valueRange(v, format)
}

// valueRange formats the lowest and highest of v, and its median in parentheses, each with
// format; v is not changed, and must not be empty.
func valueRange(v []float64, format string) string {
	v = slices.Clone(v)
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf(format+"–"+format+" ("+format+")", v[0], v[len(v)-1], med)
}
