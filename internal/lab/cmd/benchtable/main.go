// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Command benchtable reads `go test -bench` output of BenchmarkPush, BenchmarkPushParallel and
// BenchmarkRequestCost on stdin.
//
// For the push benchmarks it prints, per mode, signal and records per push, the push path's
// rate and CPU per document next to the serializer's, gzip level 1's over the same request
// bodies, and pdata's OTLP JSON and protobuf marshalers' on the same data, as ratios, with the
// push path's bytes and allocations per document. Ratios are of CPU time per document
// (cpu-ns/event, the benchmark process's CPU, which leaves out the sink running in another
// process), or of events/s where the output has no CPU time. The ceiling column is the
// push/serializer ratio a push that did nothing but encode and compress would reach,
// serializer/(serializer+gzip) in CPU per document; push/(enc+gzip) is the push's CPU per
// document over that of encoding and gzip level 1 alone.
//
// For BenchmarkRequestCost it fits a line through CPU time (cpu-ns/req) and allocations per
// request against records per request, per implementation: the intercept is the fixed cost
// of one bulk request, the slope the cost of one document.
//
// With several runs of a benchmark (-count), the median of each value is used. `make bench`
// pipes its output here.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/linefit"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// key names one row of the table.
type key struct {
	parallel bool
	signal   string
	records  int
}

// sample holds the runs of one benchmark.
type sample struct {
	eventsPerSec, cpuPerEvent, cpuPerReq, bytesPerOp, allocsPerOp []float64
}

// costKey names one benchmark of BenchmarkRequestCost.
type costKey struct {
	impl    string
	records int
}

type results struct {
	rows    map[key]map[string]*sample // impl -> runs
	costs   map[costKey]*sample
	procs   map[int]bool
	cpu     string
	signals []string // in the order first seen
}

func run(r io.Reader, w io.Writer) error {
	res, err := parse(r)
	if err != nil {
		return err
	}
	if len(res.rows) == 0 && len(res.costs) == 0 {
		return errors.New("no BenchmarkPush or BenchmarkRequestCost results in the input")
	}
	if len(res.rows) > 0 {
		if err := res.print(w); err != nil {
			return err
		}
	}
	if len(res.costs) > 0 {
		return res.printCosts(w)
	}
	return nil
}

func parse(r io.Reader) (*results, error) {
	res := &results{rows: map[key]map[string]*sample{}, costs: map[costKey]*sample{}, procs: map[int]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			res.cpu = strings.TrimSpace(cpu)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			continue
		}
		var s *sample
		switch {
		case strings.HasPrefix(fields[0], "BenchmarkPush"):
			k, impl, procs, ok := parseName(fields[0])
			if !ok {
				continue
			}
			res.procs[procs] = true
			if res.rows[k] == nil {
				res.rows[k] = map[string]*sample{}
				if !slices.Contains(res.signals, k.signal) {
					res.signals = append(res.signals, k.signal)
				}
			}
			s = res.rows[k][impl]
			if s == nil {
				s = &sample{}
				res.rows[k][impl] = s
			}
		case strings.HasPrefix(fields[0], "BenchmarkRequestCost/"):
			k, ok := parseCostName(fields[0])
			if !ok {
				continue
			}
			s = res.costs[k]
			if s == nil {
				s = &sample{}
				res.costs[k] = s
			}
		default:
			continue
		}
		// fields[1] is the iteration count; then value-unit pairs.
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %w", fields[0], fields[i], err)
			}
			switch fields[i+1] {
			case "events/s":
				s.eventsPerSec = append(s.eventsPerSec, v)
			case "cpu-ns/event":
				s.cpuPerEvent = append(s.cpuPerEvent, v)
			case "cpu-ns/req":
				s.cpuPerReq = append(s.cpuPerReq, v)
			case "B/op":
				s.bytesPerOp = append(s.bytesPerOp, v)
			case "allocs/op":
				s.allocsPerOp = append(s.allocsPerOp, v)
			}
		}
	}
	return res, sc.Err()
}

// parseName splits BenchmarkPush[Parallel]/signal=S[/corpus=C]/records=N/impl=I[-P]; a corpus
// is written after the signal's name ("logs, realistic").
func parseName(name string) (k key, impl string, procs int, ok bool) {
	procs = 1
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if p, err := strconv.Atoi(name[i+1:]); err == nil {
			procs, name = p, name[:i]
		}
	}
	parts := strings.Split(name, "/")
	switch parts[0] {
	case "BenchmarkPush":
	case "BenchmarkPushParallel":
		k.parallel = true
	default:
		return key{}, "", 0, false
	}
	for _, p := range parts[1:] {
		name, value, _ := strings.Cut(p, "=")
		switch name {
		case "signal":
			k.signal = value + k.signal
		case "corpus":
			k.signal += ", " + value
		case "records":
			n, err := strconv.Atoi(value)
			if err != nil {
				return key{}, "", 0, false
			}
			k.records = n
		case "impl":
			impl = value
		}
	}
	return k, impl, procs, k.signal != "" && !strings.HasPrefix(k.signal, ",") && k.records > 0 && impl != ""
}

// parseCostName splits BenchmarkRequestCost[/corpus=C]/records=N/impl=I[-P]; a corpus is
// written after the implementation's name ("push, realistic").
func parseCostName(name string) (costKey, bool) {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	var k costKey
	for _, p := range strings.Split(name, "/")[1:] {
		name, value, _ := strings.Cut(p, "=")
		switch name {
		case "records":
			n, err := strconv.Atoi(value)
			if err != nil {
				return costKey{}, false
			}
			k.records = n
		case "impl":
			k.impl = value + k.impl
		case "corpus":
			k.impl += ", " + value
		}
	}
	return k, k.impl != "" && !strings.HasPrefix(k.impl, ",") && k.records > 0
}

func median(v []float64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

func (res *results) print(w io.Writer) error {
	procs := make([]string, 0, len(res.procs))
	for p := range res.procs {
		procs = append(procs, strconv.Itoa(p))
	}
	slices.Sort(procs)
	fmt.Fprintf(w, "\nPush path vs serializer and OTLP marshalers (GOMAXPROCS=%s", strings.Join(procs, ","))
	if res.cpu != "" {
		fmt.Fprintf(w, ", %s", res.cpu)
	}
	fmt.Fprintln(w, "); medians; events/s in records per second; CPU in ns per document of the benchmark process (the sink runs in another);"+
		" ratios of CPU per document (of events/s where the output has no cpu-ns/event)")
	for _, parallel := range []bool{false, true} {
		keys := make([]key, 0, len(res.rows))
		for k := range res.rows {
			if k.parallel == parallel {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		slices.SortFunc(keys, func(a, b key) int {
			if c := slices.Index(res.signals, a.signal) - slices.Index(res.signals, b.signal); c != 0 {
				return c
			}
			return a.records - b.records
		})
		mode := "serial (one pusher)"
		if parallel {
			mode = "parallel (b.RunParallel, GOMAXPROCS pushers)"
		}
		fmt.Fprintf(w, "\n%s\n\n", mode)
		fmt.Fprintln(w, "| signal | records | push events/s | push CPU ns/doc | serializer | gzip 1 | OTLP JSON | OTLP proto | push/serializer | ceiling | push/(enc+gzip) | push/OTLP JSON | push/OTLP proto | push B/doc | push allocs/doc |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, k := range keys {
			impls := res.rows[k]
			// cost is the CPU time per record, or where the output has none the time per
			// record that events/s gives.
			cost := func(impl string) (float64, bool) {
				s := impls[impl]
				if s == nil {
					return 0, false
				}
				if v, ok := median(s.cpuPerEvent); ok && v > 0 {
					return v, true
				}
				if v, ok := median(s.eventsPerSec); ok && v > 0 {
					return 1e9 / v, true
				}
				return 0, false
			}
			rate, hasRate := 0.0, false
			if s := impls["push"]; s != nil {
				rate, hasRate = median(s.eventsPerSec)
			}
			push, hasPush := cost("push")
			cells := []string{k.signal, strconv.Itoa(k.records), formatRate(rate, hasRate), formatNs(push, hasPush)}
			for _, impl := range []string{"serializer", "gzip", "otlpjson", "otlpproto"} {
				v, ok := cost(impl)
				cells = append(cells, formatNs(v, ok))
			}
			// ratio is a/b of two costs, written as a ratio of rates (b's rate is a's cost).
			ratio := func(a float64, aOK bool, b float64, bOK bool) string {
				if !aOK || !bOK || b == 0 {
					return "–"
				}
				return fmt.Sprintf("%.2f", a/b)
			}
			ser, serOK := cost("serializer")
			gz, gzOK := cost("gzip")
			cells = append(cells, ratio(ser, serOK, push, hasPush),
				// A push encodes and compresses every document: even if nothing else cost
				// anything, its rate could not beat 1/(1/serializer+1/gzip).
				ratio(ser, serOK, ser+gz, serOK && gzOK),
				ratio(push, hasPush, ser+gz, serOK && gzOK))
			for _, impl := range []string{"otlpjson", "otlpproto"} {
				v, ok := cost(impl)
				cells = append(cells, ratio(v, ok, push, hasPush))
			}
			perDoc := func(v []float64) string {
				m, ok := median(v)
				if !ok {
					return "–"
				}
				return fmt.Sprintf("%.2f", m/float64(k.records))
			}
			if s := impls["push"]; s != nil {
				cells = append(cells, perDoc(s.bytesPerOp), perDoc(s.allocsPerOp))
			} else {
				cells = append(cells, "–", "–")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	return nil
}

// printCosts prints the CPU time and allocations per request of BenchmarkRequestCost at each
// size, and the line fitted through them.
func (res *results) printCosts(w io.Writer) error {
	var impls []string
	var sizes []int
	for k := range res.costs {
		if !slices.Contains(impls, k.impl) {
			impls = append(impls, k.impl)
		}
		if !slices.Contains(sizes, k.records) {
			sizes = append(sizes, k.records)
		}
	}
	// push first, then the others by name.
	slices.SortFunc(impls, func(a, b string) int {
		ap, bp := strings.HasPrefix(a, "push"), strings.HasPrefix(b, "push")
		switch {
		case ap && !bp:
			return -1
		case bp && !ap:
			return 1
		}
		return strings.Compare(a, b)
	})
	slices.Sort(sizes)
	fmt.Fprintln(w, "\nCost of one bulk request (BenchmarkRequestCost; CPU of the client process, the sink in another); medians; fixed = intercept, per doc = slope of a least-squares line over records per request")
	fmt.Fprintln(w)
	head := []string{"impl"}
	for _, n := range sizes {
		head = append(head, fmt.Sprintf("CPU µs @%d", n))
	}
	head = append(head, "fixed CPU µs", "CPU µs/doc")
	for _, n := range sizes {
		head = append(head, fmt.Sprintf("allocs @%d", n))
	}
	head = append(head, "fixed allocs", "allocs/doc")
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(head)-1))
	for _, impl := range impls {
		cells := []string{impl}
		for _, m := range []struct {
			values func(*sample) []float64
			cpu    bool
		}{
			{func(s *sample) []float64 { return s.cpuPerReq }, true},
			{func(s *sample) []float64 { return s.allocsPerOp }, false},
		} {
			var xs, ys []float64
			for _, n := range sizes {
				v, ok := 0.0, false
				if s := res.costs[costKey{impl, n}]; s != nil {
					v, ok = median(m.values(s))
				}
				if !ok {
					cells = append(cells, "–")
					continue
				}
				xs, ys = append(xs, float64(n)), append(ys, v)
				cells = append(cells, formatCost(v, m.cpu))
			}
			if a, b, ok := linefit.Fit(xs, ys); ok {
				cells = append(cells, formatCost(a, m.cpu), formatSlope(b, m.cpu))
			} else {
				cells = append(cells, "–", "–")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}

// formatCost writes CPU nanoseconds as microseconds, or a count of allocations.
func formatCost(v float64, cpu bool) string {
	if cpu {
		return fmt.Sprintf("%.1f", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func formatSlope(v float64, cpu bool) string {
	if cpu {
		return fmt.Sprintf("%.2f", v/1e3)
	}
	return fmt.Sprintf("%.2f", v)
}

// formatNs writes a time per document in nanoseconds.
func formatNs(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// formatRate writes a rate in thousands, or millions from 10 million on.
func formatRate(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	if v >= 10e6 {
		return fmt.Sprintf("%.1fM", v/1e6)
	}
	return fmt.Sprintf("%.0fk", v/1e3)
}
