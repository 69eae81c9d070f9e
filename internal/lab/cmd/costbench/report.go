// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// printReport writes the tables of a run in Markdown.
func printReport(w io.Writer, o options, rep report) {
	m := rep.Machine
	fmt.Fprintf(w, "\n## Results\n\nMachine: %d CPUs (%s), collector built with %s, GOMAXPROCS=2; load average at start %.2f %.2f %.2f, "+
		"other processes busy on %.2f CPUs.\n", m.CPUs, m.CPUModel, m.GoVersion, m.LoadStart[0], m.LoadStart[1], m.LoadStart[2], m.BusyStart)
	fmt.Fprintf(w, "Layout: %s.\n", m.Layout)
	if rep.ExporterConfig != "" {
		fmt.Fprintf(w, "Not the defaults: the exporter's settings add `%s`.\n", strings.ReplaceAll(rep.ExporterConfig, "\n", `\n`))
	}
	if rep.GoMemLimit != "" {
		fmt.Fprintf(w, "The collector runs with GOMEMLIMIT=%s.\n", rep.GoMemLimit)
	}
	if rep.MemoryLimiter != "" {
		fmt.Fprintf(w, "Its pipelines have a memory_limiter processor: `%s`.\n", strings.ReplaceAll(rep.MemoryLimiter, "\n", `\n`))
	}
	var per []string
	for _, sig := range o.signals {
		per = append(per, fmt.Sprintf("%s %d", sig, rep.Records[sig]))
	}
	if enc := encodingsOf(rep); enc != "" {
		fmt.Fprintf(w, "Bulk request bodies (Content-Encoding as the sink received them in the window): %s.\n", enc)
	}
	fmt.Fprintf(w, "Load: OTLP/HTTP protobuf, uncompressed, %s records (%s), records per request: %s; %d connections; warm-up %s, window %s, profile %s, baseline window %s.\n\n",
		rep.Corpus, corpusNote(rep.Corpus), strings.Join(per, ", "), rep.Conns, o.warmup, o.window, o.profile, o.baseline)

	var es []result
	for _, r := range runsOf(rep, exporterES) {
		if !r.Short {
			es = append(es, r)
		}
	}
	base := map[string]result{}
	baseAt := map[sizeKey]result{}
	for _, r := range runsOf(rep, exporterDebug) {
		if !r.Short {
			base[r.Signal] = r
		}
		baseAt[sizeKey{r.Signal, r.RecordsPerRequest}] = r
	}

	fmt.Fprintln(w, "| signal | documents/s | collector CPU s per million docs | collector cores | peak RSS (VmHWM) MiB | bytes sent/doc | JSON bytes/doc | compression ratio | docs/request | sink CPU s/M | generator CPU s/M | other processes (cores) | load avg 1m (end) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range es {
		perM := func(s float64) string {
			if r.Documents == 0 {
				return "–"
			}
			return fmt.Sprintf("%.2f", s/float64(r.Documents)*1e6)
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.0f | %.1f | %.0f | %s | %.0f | %s | %s | %.2f | %.2f |\n",
			r.Signal, thousands(r.DocsPerSec), r.CPUPerMillion, r.CollectorCPU/r.WindowSeconds, r.HWMMiB,
			r.BodyBytesPerDoc, r.RawBytesPerDoc, compression(r), r.DocsPerRequest, perM(r.SinkCPU), perM(r.GeneratorCPU), r.OtherCPUCores, r.LoadAvg[0])
	}

	var profiled, ceilinged bool
	for _, r := range es {
		profiled = profiled || r.Split != nil
		ceilinged = ceilinged || hasCeilingRow(r)
	}
	if profiled {
		printSplit(w, es)
	}
	if ceilinged {
		printCeiling(w, es)
	}
	printMemory(w, runsOf(rep, exporterES), baseAt, rep.Conns)
	printShort(w, o, rep, es)
	var profiles []string
	for _, r := range es {
		if r.Profile != "" {
			profiles = append(profiles, r.Profile)
		}
	}
	if len(profiles) > 0 {
		fmt.Fprintf(w, "\nProfiles: %s (go tool pprof -top <file>); all figures: %s/results.json.\n", strings.Join(profiles, ", "), o.out)
	}
}

func printSplit(w io.Writer, es []result) {
	fmt.Fprintln(w, "\nCPU profile of the collector (pprof extension, a window of its own), share of its samples:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| signal | exporter | of which under push* | exporterhelper queue and batching | receiver and pipeline | GC background | rest | exporter CPU ns/doc |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range es {
		if r.Split == nil {
			continue
		}
		s := r.Split
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %.0f |\n", r.Signal,
			pct(s.share(partExporter)), pct(s.UnderPush/s.Total), pct(s.share(partExporterHelp)),
			pct(s.share(partReceiver)), pct(s.share(partGC)), pct(s.share(partRest)),
			r.CPUPerMillion*1e3*s.share(partExporter))
	}
}

func printCeiling(w io.Writer, es []result) {
	fmt.Fprintln(w, "\nThe exporter's CPU per document against encoding and gzip level 1 alone for the same documents (one thread of the generator's process, the collector stopped):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| signal | exporter ns/doc | encode ns/doc | gzip 1 ns/doc | encode + gzip | exporter / (encode + gzip) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, r := range es {
		if !hasCeilingRow(r) {
			continue
		}
		exp := r.CPUPerMillion * 1e3 * r.Split.share(partExporter)
		c := r.Ceiling
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.2f |\n", r.Signal, exp, c.EncodeNs, c.GzipNs, c.total(), exp/c.total())
	}
}

// sizeKey names the runs of one signal at one size of request.
type sizeKey struct {
	signal  string
	records int
}

// printMemory writes, for every run of the Elasticsearch exporter (every signal and size), its
// peak RSS against the memory model (memmodel.go) and above the debug exporter's behind the
// same sending_queue at the same size, and the exporter's own live heap (heap.go) against the
// in-flight cap.
func printMemory(w io.Writer, es []result, base map[sizeKey]result, conns int) {
	fmt.Fprintf(w, "\nMemory: peak RSS under saturation against the memory model (docs/delivery.md), beside the baseline, the debug exporter (verbosity basic) behind the same sending_queue at the same size; and the heap profile at the end of the window: what was live, and the part the exporter allocated (batches, sessions, compressors, buffers), which the in-flight cap (flow_control::max_inflight_bytes, %d MiB) bounds (heap.go; ×2 in RSS with GOGC=100):\n\n", inflightCap>>20)
	fmt.Fprintln(w, "| signal | records/request | OTLP KiB/request | RSS mean MiB | VmHWM MiB | model MiB | baseline VmHWM MiB | ours − baseline MiB | live heap MiB | exporter's heap MiB | within the cap | baseline docs/s |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, r := range es {
		within := "yes"
		if r.ExporterHeapMiB > float64(inflightCap>>20) {
			within = "no"
		}
		baseHWM, diff, baseDocs := "–", "–", "–"
		if b, ok := base[sizeKey{r.Signal, r.RecordsPerRequest}]; ok {
			baseHWM, diff, baseDocs = fmt.Sprintf("%.0f", b.HWMMiB), fmt.Sprintf("%+.0f", r.HWMMiB-b.HWMMiB), thousands(b.DocsPerSec)
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %s | %s | %.0f | %.0f | %s | %s |\n", r.Signal, r.RecordsPerRequest,
			float64(r.RequestBytes)/1024, r.RSSMeanMiB, r.HWMMiB, modelRSS(r, conns), baseHWM, diff,
			r.HeapLiveMiB, r.ExporterHeapMiB, within, baseDocs)
	}
}

// goals are the bounds that the runs at other sizes are held to: the collector's CPU per
// million documents at that many records per request against the first run's (small pushes
// share bulk requests: at 50 records at most twice the 1,000-record figure). Other sizes have
// none.
var goals = map[int]float64{50: 2.0}

// referenceGoal bounds the Elasticsearch exporter's collector CPU per million documents against
// otlphttp's, same signal, same size, same run: no more than the OTLP path costs.
const referenceGoal = 1.0

// printShort writes the runs at other sizes and of the otlphttp reference beside the first run
// of each signal, then their ratios against the goals.
func printShort(w io.Writer, o options, rep report, es []result) {
	var short []result
	for _, r := range rep.Runs {
		if r.Short {
			short = append(short, r)
		}
	}
	if len(short) == 0 {
		return
	}
	first := map[string]result{}
	for _, r := range es {
		first[r.Signal] = r
	}
	fmt.Fprintf(w, "\nOther sizes of request, and core's otlphttp exporter (at its defaults: protobuf, gzip, a sending queue of 1,000 requests "+
		"that refuses when full; then with block_on_overflow) to the OTLP sink, at every size; warm-up %s, window %s, same load. "+
		"Documents are log records, spans and metric data points for both exporters; only what the sink counted is billed. "+
		"Refused: requests answered otherwise than 200 in the window (the generator sends them again after 10 ms). "+
		"Arrived: of the records accepted during the run, what the sink counted once the load stopped. "+
		"Bytes sent per document and their compression: gzip of the bulk JSON for ours, of the OTLP protobuf for otlphttp:\n\n", o.shortWarmup, o.shortWindow)
	fmt.Fprintln(w, "| signal | exporter | settings | records/request | documents/s | collector CPU s per million docs | × the first run | refused requests | arrived | VmHWM MiB | bytes sent/doc | compression | sink CPU s/M | other processes (cores) |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
	row := func(r result, ratio string) {
		settings := "defaults"
		if r.Settings != "" {
			settings = "`" + r.Settings + "`"
		}
		sinkPerM := "–"
		if r.Documents > 0 {
			sinkPerM = fmt.Sprintf("%.2f", r.sinkCPUPerMillion())
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %.2f | %s | %s | %s | %.0f | %.1f | %s | %s | %.2f |\n", r.Signal, r.Exporter, settings,
			r.RecordsPerRequest, thousands(r.DocsPerSec), r.CPUPerMillion, ratio, refused(r), arrived(r), r.HWMMiB, r.BodyBytesPerDoc, compression(r), sinkPerM, r.OtherCPUCores)
	}
	for _, sig := range o.signals {
		f, ok := first[sig]
		if !ok {
			continue
		}
		row(f, "1")
		for _, r := range short {
			if r.Signal == sig {
				row(r, ratio(r.CPUPerMillion, f.CPUPerMillion))
			}
		}
	}

	fmt.Fprintln(w, "\nRatios of the collector's CPU per million documents, ours against itself at the first run's size and against otlphttp at the same size (goals in parentheses):")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| signal | records/request | ours CPU s/M | otlphttp defaults | otlphttp block_on_overflow | ours / ours at the first run's size (%s) | ours / otlphttp defaults (≤ %.1f) | ours / otlphttp block_on_overflow (≤ %.1f) |\n", sizeGoals(), referenceGoal, referenceGoal)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, sig := range o.signals {
		f, ok := first[sig]
		if !ok {
			continue
		}
		for _, n := range append([]int{f.RecordsPerRequest}, o.sizes...) {
			ours := f
			if n != f.RecordsPerRequest {
				ours = result{}
				for _, r := range short {
					if r.Signal == sig && r.Exporter == exporterES && r.RecordsPerRequest == n {
						ours = r
					}
				}
			}
			cells := []string{sig, strconv.Itoa(n), cpuCell(ours.CPUPerMillion)}
			ref := map[string]float64{}
			for _, r := range short {
				if r.Signal == sig && r.Exporter == exporterOTLPHTTP && r.RecordsPerRequest == n {
					ref[r.Settings] = r.CPUPerMillion
				}
			}
			cells = append(cells, cpuCell(ref[""]), cpuCell(ref[blockOnOverflowShown]))
			self := "1"
			if n != f.RecordsPerRequest && ours.CPUPerMillion > 0 {
				self = verdict(ours.CPUPerMillion/f.CPUPerMillion, goals[n])
			}
			cells = append(cells, self)
			for _, settings := range []string{"", blockOnOverflowShown} {
				cell := "–"
				if ref[settings] > 0 && ours.CPUPerMillion > 0 {
					cell = verdict(ours.CPUPerMillion/ref[settings], referenceGoal)
				}
				cells = append(cells, cell)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
}

// cpuCell writes a CPU time per million documents, or – where there is none.
func cpuCell(v float64) string {
	if v <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

// compression writes how many times smaller the bytes sent are than the bytes before
// compression (bulk JSON or OTLP protobuf).
func compression(r result) string {
	if r.BodyBytesPerDoc <= 0 || r.RawBytesPerDoc <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", r.RawBytesPerDoc/r.BodyBytesPerDoc)
}

// hasCeilingRow tells whether run r has a row in the ceiling table: it was profiled, encoding
// and gzip were measured alone, and it sent gzip (gzip alone compares with nothing that a run
// without gzip did).
func hasCeilingRow(r result) bool {
	return r.Split != nil && r.Ceiling != nil && (r.BodyEncoding == "" || r.BodyEncoding == "gzip")
}

// encodingsOf names the Content-Encoding of each signal's main Elasticsearch run, e.g. "logs
// snappy, spans snappy"; empty when the sink counted none.
func encodingsOf(rep report) string {
	var parts []string
	for _, r := range runsOf(rep, exporterES) {
		if !r.Short && r.BodyEncoding != "" {
			parts = append(parts, r.Signal+" "+r.BodyEncoding)
		}
	}
	return strings.Join(parts, ", ")
}

// corpusNote says what the records of a corpus are.
func corpusNote(corpus string) string {
	if corpus == corpusUniform {
		return "the push benchmarks' small records, which differ only in a counter and a timestamp and compress 40-50×: the best case"
	}
	return "benchdata.Realistic: Kubernetes-shaped resources, several per request, log lines of real servers' formats, traces with parent links, a few hundred series per resource"
}

// blockOnOverflowShown is blockOnOverflow as a result's Settings holds it.
var blockOnOverflowShown = strings.ReplaceAll(blockOnOverflow, "\n", `\n`)

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// sizeGoals writes goals as "≤ 2.0 at 50", by size.
func sizeGoals() string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(goals)) {
		parts = append(parts, fmt.Sprintf("≤ %.1f at %d", goals[n], n))
	}
	return strings.Join(parts, ", ")
}

// verdict writes a ratio and whether it is within bound (no bound: 0).
func verdict(v, bound float64) string {
	switch {
	case bound == 0:
		return fmt.Sprintf("%.2f", v)
	case v <= bound:
		return fmt.Sprintf("%.2f (met)", v)
	}
	return fmt.Sprintf("%.2f (not met)", v)
}

// refused writes the requests of the window that were not answered 200, and their share.
func refused(r result) string {
	if r.Failures == 0 {
		return "0"
	}
	accepted := r.Records / int64(max(r.RecordsPerRequest, 1))
	return fmt.Sprintf("%d (%s)", r.Failures, pct(float64(r.Failures)/float64(r.Failures+accepted)))
}

// arrived writes whether the sink counted every record accepted during the run.
func arrived(r result) string {
	if r.ArrivedTotal == r.AcceptedTotal {
		return fmt.Sprintf("all %d", r.AcceptedTotal)
	}
	return fmt.Sprintf("%d of %d", r.ArrivedTotal, r.AcceptedTotal)
}

func runsOf(rep report, exporter string) []result {
	var out []result
	for _, r := range rep.Runs {
		if r.Exporter == exporter {
			out = append(out, r)
		}
	}
	return out
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

// thousands writes a rate in thousands, e.g. 812k.
func thousands(v float64) string { return fmt.Sprintf("%.0fk", v/1e3) }

// printNodeReport writes the runs against a real node: per signal and size of request, the
// range over the rounds (lowest–highest, median in parentheses) of documents per second,
// documents per bulk request, the collector's and the node's CPU per million documents the
// node indexed, and their sum.
func printNodeReport(w io.Writer, o options, rep report) {
	m, nd := rep.Machine, rep.Node
	fmt.Fprintf(w, "\n## Results against a real Elasticsearch\n\nMachine: %d CPUs (%s), collector built with %s, GOMAXPROCS=2; load average at start %.2f %.2f %.2f, "+
		"other processes busy on %.2f CPUs. Layout: %s; the node shares the machine.\n", m.CPUs, m.CPUModel, m.GoVersion, m.LoadStart[0], m.LoadStart[1], m.LoadStart[2], m.BusyStart, m.Layout)
	fmt.Fprintf(w, "Node: Elasticsearch %s at %s, the otel stand-in templates; at rest it used %.2f CPUs (counted in its figures below, not subtracted). "+
		"Each signal warmed the node for %s first, not counted. %s\n", nd.Version, nd.Endpoint, nd.IdleCores, nd.Warmup, settleSentence())
	if rep.ExporterConfig != "" {
		fmt.Fprintf(w, "Not the defaults: the exporter's settings add `%s`.\n", strings.ReplaceAll(rep.ExporterConfig, "\n", `\n`))
	}
	fmt.Fprintf(w, "Load: OTLP/HTTP protobuf, uncompressed, fresh %s records (%s) in every request; %d connections; %d rounds, each over every size and signal; warm-up %s, window %s per run. "+
		"CPU: the processes' own time from /proc/<pid>/stat per million documents the node indexed in the window.\n\n",
		rep.Corpus, corpusNote(rep.Corpus), rep.Conns, o.repeats, o.shortWarmup, o.shortWindow)
	type rowKey struct {
		signal string
		n      int
	}
	rows := map[rowKey][]result{}
	var order []rowKey
	for _, r := range rep.Runs {
		k := rowKey{r.Signal, r.RecordsPerRequest}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], r)
	}
	slices.SortStableFunc(order, func(a, b rowKey) int {
		if c := slices.Index(o.signals, a.signal) - slices.Index(o.signals, b.signal); c != 0 {
			return c
		}
		return b.n - a.n
	})
	fmt.Fprintln(w, "| signal | records/request | documents/s | documents per bulk request | collector CPU s/M | Elasticsearch CPU s/M | both s/M | Elasticsearch / collector |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	both := map[rowKey]float64{}
	for _, k := range order {
		rs := rows[k]
		col := func(f func(r result) float64, format string) string { return valueRange(column(rs, f), format) }
		esPerM := result.sinkCPUPerMillion
		sum := func(r result) float64 { return r.CPUPerMillion + esPerM(r) }
		var sums []float64
		for _, r := range rs {
			sums = append(sums, sum(r))
		}
		slices.Sort(sums)
		both[k] = sums[len(sums)/2]
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", k.signal, k.n,
			col(func(r result) float64 { return r.DocsPerSec / 1e3 }, "%.1fk"),
			col(func(r result) float64 { return r.DocsPerRequest }, "%.0f"),
			col(func(r result) float64 { return r.CPUPerMillion }, "%.2f"),
			col(esPerM, "%.1f"), col(sum, "%.1f"),
			col(func(r result) float64 { return esPerM(r) / r.CPUPerMillion }, "%.1f"))
	}
	fmt.Fprintln(w, "\nCollector + Elasticsearch CPU per document at each size against the first run's size, medians:")
	fmt.Fprintln(w)
	for _, sig := range o.signals {
		f, ok := both[rowKey{sig, o.records[sig]}]
		if !ok || f == 0 {
			continue
		}
		var cells []string
		for _, n := range o.sizes {
			if v, ok := both[rowKey{sig, n}]; ok {
				cells = append(cells, fmt.Sprintf("at %d: %.2f×", n, v/f))
			}
		}
		fmt.Fprintf(w, "- %s (first size %d): %s\n", sig, o.records[sig], strings.Join(cells, ", "))
	}
	fmt.Fprintf(w, "\nAll figures: %s/results.json.\n", o.out)
}
