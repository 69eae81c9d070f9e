// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Command benchtable reads `go test -bench` output of BenchmarkPush and BenchmarkPushParallel
// on stdin and prints, per mode, signal and records per push, the push path's rate next to the
// serializer's, gzip level 1's over the same request bodies, and pdata's OTLP JSON and protobuf
// marshalers' on the same data, as ratios, with the push path's bytes and allocations per
// document. The ceiling column is the push/serializer ratio a push that did nothing but encode
// and compress would reach, gzip/(serializer+gzip): what gzip level 1 alone leaves possible. With several runs of a benchmark (-count),
// the median of each value is used. `make bench` pipes its output here.
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
	eventsPerSec, bytesPerOp, allocsPerOp []float64
}

type results struct {
	rows    map[key]map[string]*sample // impl -> runs
	procs   map[int]bool
	cpu     string
	signals []string // in the order first seen
}

func run(r io.Reader, w io.Writer) error {
	res, err := parse(r)
	if err != nil {
		return err
	}
	if len(res.rows) == 0 {
		return errors.New("no BenchmarkPush results in the input")
	}
	return res.print(w)
}

func parse(r io.Reader) (*results, error) {
	res := &results{rows: map[key]map[string]*sample{}, procs: map[int]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			res.cpu = strings.TrimSpace(cpu)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "BenchmarkPush") {
			continue
		}
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
		s := res.rows[k][impl]
		if s == nil {
			s = &sample{}
			res.rows[k][impl] = s
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
			case "B/op":
				s.bytesPerOp = append(s.bytesPerOp, v)
			case "allocs/op":
				s.allocsPerOp = append(s.allocsPerOp, v)
			}
		}
	}
	return res, sc.Err()
}

// parseName splits BenchmarkPush[Parallel]/signal=S/records=N/impl=I[-P].
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
			k.signal = value
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
	return k, impl, procs, k.signal != "" && k.records > 0 && impl != ""
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
	fmt.Fprintln(w, "); medians; events/s in records per second")
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
		fmt.Fprintln(w, "| signal | records | push events/s | serializer | gzip 1 | OTLP JSON | OTLP proto | push/serializer | ceiling | push/OTLP JSON | push/OTLP proto | push B/doc | push allocs/doc |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, k := range keys {
			impls := res.rows[k]
			rate := func(impl string) (float64, bool) {
				if s := impls[impl]; s != nil {
					return median(s.eventsPerSec)
				}
				return 0, false
			}
			push, hasPush := rate("push")
			cells := []string{k.signal, strconv.Itoa(k.records), formatRate(push, hasPush)}
			for _, impl := range []string{"serializer", "gzip", "otlpjson", "otlpproto"} {
				v, ok := rate(impl)
				cells = append(cells, formatRate(v, ok))
			}
			ratio := func(a float64, aOK bool, b float64, bOK bool) string {
				if !aOK || !bOK || b == 0 {
					return "–"
				}
				return fmt.Sprintf("%.2f", a/b)
			}
			ser, serOK := rate("serializer")
			gz, gzOK := rate("gzip")
			cells = append(cells, ratio(push, hasPush, ser, serOK),
				// A push encodes and compresses every document on the same cores: even if
				// nothing else cost anything, it could not beat 1/(1/serializer+1/gzip).
				ratio(gz, gzOK, ser+gz, serOK && gzOK))
			for _, impl := range []string{"otlpjson", "otlpproto"} {
				v, ok := rate(impl)
				cells = append(cells, ratio(push, hasPush, v, ok))
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
