// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/linefit"
)

// runSpec is one collector run to measure.
type runSpec struct {
	signal, exporter string
	settings         string // YAML added to the exporter's settings, "\n" between lines
	conn             string // YAML of the connection to a real node (credentials, CA): not a setting measured
	records          int    // per request
	bodies           [][]byte
	source           bodySource // where the bodies come from when not bodies
	sinkURL          string     // empty for the debug exporter
	sink             counter    // counts the documents that arrived; nil for the debug exporter
	warmup, window   time.Duration
	profile          time.Duration
	capture          bool // keep one bulk body of the sink, for the ceiling
	short            bool
	collector        string // the collector binary; empty: -collector
	tag              string // added to the names of the run's files and to its label, when not empty
}

// measureSignal measures one signal: the collector with the Elasticsearch exporter, encoding and
// gzip alone for the same documents, and the debug-exporter baseline; then, in shorter runs,
// the Elasticsearch exporter at the other sizes of request, and the otlphttp exporter at its
// defaults and with block_on_overflow at every size.
func measureSignal(o options, signal string, sinks map[string]string, collectorCPUs string) ([]result, error) {
	var runs []result
	n := o.records[signal]
	if n <= 0 {
		return nil, fmt.Errorf("-records gives no number of records for %s", signal)
	}
	bodies, err := requestBodies(o.corpus, signal, n)
	if err != nil {
		return nil, err
	}
	fmt.Printf("%s: %d %s records (%d bytes of OTLP protobuf) per request\n", signal, n, o.corpus, len(bodies[0]))
	main := runSpec{
		signal: signal, exporter: exporterES, settings: o.exporterConfig, records: n, bodies: bodies, sinkURL: sinks[exporterES],
		sink: httpSink(sinks[exporterES]), warmup: o.warmup, window: o.window, profile: o.profile, capture: true,
	}
	r, body, err := measureRun(o, main, collectorCPUs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", signal, err)
	}
	if o.ceiling > 0 && body != nil {
		docs := strings.Count(string(body), "\n") / 2
		c, cerr := measureCeiling(o.corpus, signal, docs, body, docs, o.ceiling)
		if cerr != nil {
			return nil, fmt.Errorf("%s: ceiling: %w", signal, cerr)
		}
		r.Ceiling = &c
	}
	runs = append(runs, r)
	if o.baseline > 0 {
		base := runSpec{signal: signal, exporter: exporterDebug, records: n, bodies: bodies, warmup: o.warmup, window: o.baseline}
		b, _, berr := measureRun(o, base, collectorCPUs)
		if berr != nil {
			return nil, fmt.Errorf("%s baseline: %w", signal, berr)
		}
		runs = append(runs, b)
	}
	short := []runSpec{}
	addReference := func(size int, b [][]byte) {
		if url, ok := sinks[exporterOTLPHTTP]; ok {
			short = append(short,
				runSpec{signal: signal, exporter: exporterOTLPHTTP, records: size, bodies: b, sinkURL: url, sink: httpSink(url)},
				runSpec{signal: signal, exporter: exporterOTLPHTTP, settings: blockOnOverflow, records: size, bodies: b, sinkURL: url, sink: httpSink(url)})
		}
	}
	addReference(n, bodies)
	for _, size := range o.sizes {
		sb, serr := requestBodies(o.corpus, signal, size)
		if serr != nil {
			return nil, serr
		}
		short = append(short, runSpec{signal: signal, exporter: exporterES, settings: o.exporterConfig, records: size, bodies: sb, sinkURL: sinks[exporterES], sink: httpSink(sinks[exporterES])})
		if o.baseline > 0 {
			// The baseline of memory at this size too: what the queue holds grows with the size
			// of the requests.
			short = append(short, runSpec{signal: signal, exporter: exporterDebug, records: size, bodies: sb})
		}
		addReference(size, sb)
	}
	for _, sp := range short {
		sp.warmup, sp.window, sp.short = o.shortWarmup, o.shortWindow, true
		sr, _, serr := measureRun(o, sp, collectorCPUs)
		if serr != nil {
			return nil, fmt.Errorf("%s (%s, %d records per request): %w", signal, sp.exporter, sp.records, serr)
		}
		runs = append(runs, sr)
	}
	return runs, nil
}

// withCPUs returns the command name args, run under taskset on cpus when cpus is not empty.
func withCPUs(cpus, name string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...) //nolint:gosec // the binaries costbench is told to measure, pinned by taskset
}

// measureRun starts a collector with the exporter of sp, loads it with the bodies of sp for the
// warm-up, measures over the window, profiles it and, when sp asks, captures one bulk body at
// the sink; then it stops the load (each connection ends once its request is answered), waits
// for the sink to count every record the receiver accepted during the run, and stops the
// collector.
func measureRun(o options, sp runSpec, cpus string) (result, []byte, error) {
	r := result{Signal: sp.signal, Exporter: sp.exporter, Settings: strings.ReplaceAll(sp.settings, "\n", `\n`), RecordsPerRequest: sp.records, Short: sp.short}
	p, err := freePorts()
	if err != nil {
		return r, nil, err
	}
	name := fmt.Sprintf("%s-%s-%d", sp.signal, sp.exporter, sp.records)
	if sp.settings != "" && sp.settings != o.exporterConfig {
		name += "-settings"
	}
	if sp.tag != "" {
		name += "-" + sp.tag
	}
	cfgPath := filepath.Join(o.out, name+".yaml")
	if err = os.WriteFile(cfgPath, []byte(collectorConfig(p, sp.exporter, sp.sinkURL, sp.conn+strings.ReplaceAll(sp.settings, `\n`, "\n"), o.memoryLimiter)), 0o600); err != nil {
		return r, nil, err
	}
	logf, err := os.Create(filepath.Join(o.out, name+".log"))
	if err != nil {
		return r, nil, err
	}
	defer logf.Close()
	bin := o.collector
	if sp.collector != "" {
		bin = sp.collector
	}
	cmd := withCPUs(cpus, bin, "--config", cfgPath)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	if o.goMemLimit != "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+o.goMemLimit)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err = cmd.Start(); err != nil {
		return r, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case werr := <-exited:
			return werr
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			werr := <-exited
			return fmt.Errorf("the collector did not stop within 60 s of SIGTERM; killed: %w", werr)
		}
	}
	defer func() { _ = stop() }()
	// taskset execs the collector: the pid is the collector's.
	pid := cmd.Process.Pid
	label := fmt.Sprintf("%s/%s/%d", sp.signal, sp.exporter, sp.records)
	if sp.settings != "" {
		label += " (" + r.Settings + ")"
	}
	if sp.tag != "" {
		label += " [" + sp.tag + "]"
	}
	if err = waitListening(p.otlp, exited, 60*time.Second); err != nil {
		return r, nil, fmt.Errorf("collector (%s): %w; see %s", label, err, logf.Name())
	}
	if idle, _, merr := memory(pid); merr == nil {
		r.RSSIdleMiB = float64(idle) / (1 << 20)
	}
	if len(sp.bodies) > 0 {
		r.RequestBytes = int64(len(sp.bodies[0]))
		if r.PdataPerByte, err = pdataPerByte(sp.signal, sp.bodies[0]); err != nil {
			return r, nil, err
		}
	}
	var sink0 sinkCounters
	if sp.sink != nil {
		if sink0, err = sp.sink.stats(); err != nil {
			return r, nil, err
		}
	}

	src := sp.source
	if src == nil {
		src = &cycle{bodies: sp.bodies}
	}
	g := &generator{url: "http://127.0.0.1:" + strconv.Itoa(p.otlp) + otlpPath(sp.signal), bodies: src, records: sp.records}
	ctx, cancel := context.WithCancel(context.Background())
	loadDone := make(chan struct{})
	go func() {
		g.run(ctx, o.conns)
		close(loadDone)
	}()
	loadStopped := false
	stopLoad := func() {
		if loadStopped {
			return
		}
		loadStopped = true
		g.stopping.Store(true)
		select {
		case <-loadDone:
		case <-time.After(60 * time.Second):
			fmt.Printf("%s: requests still unanswered 60 s after the load stopped; canceled\n", label)
		}
		cancel()
		<-loadDone
	}
	defer stopLoad()

	fmt.Printf("%s: collector pid %d, warm-up %s, window %s\n", label, pid, sp.warmup, sp.window)
	time.Sleep(sp.warmup)
	if err = measureWindow(&r, pid, sp.sink, g, sp.window); err != nil {
		return r, nil, err
	}
	fmt.Printf("%s: %.0f documents/s, %.2f s of collector CPU per million, VmHWM %.0f MiB, other processes %.2f cores, load %.2f\n",
		label, r.DocsPerSec, r.CPUPerMillion, r.HWMMiB, r.OtherCPUCores, r.LoadAvg[0])
	if msg := g.lastErr.Load(); msg != nil {
		r.LastFailure = *msg
		fmt.Printf("%s: %d requests failed in the window, the last with: %s\n", label, r.Failures, *msg)
	}

	heapPath := filepath.Join(o.out, name+".heap.pprof")
	if err = takeHeapProfile(p.pprof, heapPath); err != nil {
		return r, nil, err
	}
	h, err := splitHeapFile(heapPath)
	if err != nil {
		return r, nil, err
	}
	r.HeapProfile, r.HeapLiveMiB, r.ExporterHeapMiB = heapPath, h.Live/(1<<20), h.Exporter/(1<<20)

	var body []byte
	if sp.capture && sp.sinkURL != "" {
		if body, err = captureBody(sp.sinkURL); err != nil {
			return r, nil, err
		}
	}
	if sp.profile > 0 {
		path := filepath.Join(o.out, name+".pprof")
		if err := fetchProfile(p.pprof, sp.profile, path); err != nil {
			return r, nil, err
		}
		s, err := splitProfileFile(path)
		if err != nil {
			return r, nil, err
		}
		r.Profile, r.Split = path, &s
	}
	stopLoad()
	r.AcceptedTotal = g.accepted.Load()
	if sp.sink != nil {
		arrived, derr := waitArrived(sp.sink, sink0.Documents, r.AcceptedTotal, 30*time.Second)
		if derr != nil {
			return r, nil, derr
		}
		r.ArrivedTotal = arrived
		if arrived != r.AcceptedTotal {
			fmt.Printf("%s: the sink counted %d documents of the %d records accepted during the run\n", label, arrived, r.AcceptedTotal)
		}
	}
	if err := stop(); err != nil {
		fmt.Printf("%s: collector: %v (see %s)\n", label, err, logf.Name())
	}
	return r, body, nil
}

// waitArrived waits up to limit for the sink's documents to reach from + want, and returns the
// documents it counted after from.
func waitArrived(sink counter, from, want int64, limit time.Duration) (int64, error) {
	deadline := time.Now().Add(limit)
	for {
		s, err := sink.stats()
		if err != nil {
			return 0, err
		}
		got := s.Documents - from
		if got >= want || time.Now().After(deadline) {
			return got, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// measureWindow measures the collector pid and the sink over window while the load runs.
func measureWindow(r *result, pid int, sink counter, g *generator, window time.Duration) error {
	var s0, s1 sinkCounters
	var err error
	if sink != nil {
		if s0, err = sink.stats(); err != nil {
			return err
		}
	}
	cpu0, err := processCPU(pid)
	if err != nil {
		return err
	}
	busy0, err := machineBusy()
	if err != nil {
		return err
	}
	gen0, acc0, fail0 := selfCPU(), g.accepted.Load(), g.failed.Load()
	t0 := time.Now()
	var ts, rss []float64
	for {
		m, _, merr := memory(pid)
		if merr != nil {
			return merr
		}
		ts, rss = append(ts, time.Since(t0).Seconds()), append(rss, float64(m)/(1<<20))
		if time.Since(t0) >= window {
			break
		}
		time.Sleep(min(250*time.Millisecond, window-time.Since(t0)))
	}
	elapsed := time.Since(t0)
	cpu1, err := processCPU(pid)
	if err != nil {
		return err
	}
	busy1, err := machineBusy()
	if err != nil {
		return err
	}
	gen1, acc1, fail1 := selfCPU(), g.accepted.Load(), g.failed.Load()
	if sink != nil {
		if s1, err = sink.stats(); err != nil {
			return err
		}
	}
	_, hwm, err := memory(pid)
	if err != nil {
		return err
	}
	r.LoadAvg, _ = loadAverage()

	r.WindowSeconds = elapsed.Seconds()
	r.Records, r.Failures = acc1-acc0, fail1-fail0
	r.Documents = s1.Documents - s0.Documents
	r.DocsPerSec = float64(r.docs()) / r.WindowSeconds
	r.CollectorCPU = (cpu1 - cpu0).Seconds()
	if d := r.docs(); d > 0 {
		r.CPUPerMillion = r.CollectorCPU / float64(d) * 1e6
	}
	r.GeneratorCPU = (gen1 - gen0).Seconds()
	r.SinkCPU = float64(s1.CPUNanos-s0.CPUNanos) / 1e9
	r.OtherCPUCores = max(0, ((busy1-busy0).Seconds()-r.CollectorCPU-r.GeneratorCPU-r.SinkCPU)/r.WindowSeconds)
	if r.Documents > 0 {
		r.BodyBytesPerDoc = float64(s1.BodyBytes-s0.BodyBytes) / float64(r.Documents)
		r.RawBytesPerDoc = float64(s1.RawBytes-s0.RawBytes) / float64(r.Documents)
	}
	if reqs := s1.Requests - s0.Requests; reqs > 0 {
		r.DocsPerRequest = float64(r.Documents) / float64(reqs)
	}
	r.BodyEncoding = bodyEncoding(s0.Encodings, s1.Encodings)
	r.RSSStartMiB, r.RSSEndMiB = rss[0], rss[len(rss)-1]
	for _, v := range rss {
		r.RSSMeanMiB += v / float64(len(rss))
	}
	r.HWMMiB = float64(hwm) / (1 << 20)
	if _, slope, ok := linefit.Fit(ts, rss); ok {
		r.GrowthMiBPerMin = slope * 60
	}
	return nil
}

func waitListening(port int, exited <-chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before listening: %w", err)
		default:
		}
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not listening on %d after %s", port, limit)
}
