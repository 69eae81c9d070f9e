// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Command costbench measures what the otelcol-es collector costs per document, out of process
// (`make cost`): the collector built by ocb (.bin/otelcol-es), the Elasticsearch exporter at its
// default settings (sending queue and batching as shipped, only the endpoint set) and
// GOMAXPROCS=2; this process as the load generator, posting OTLP/HTTP protobuf logs, then
// spans, then metrics of the push benchmarks' shape (internal/lab/benchdata) over keep-alive
// connections as fast as the collector takes them; and the bulk sink (cmd/bulksink) in a
// third process, answering one created item per document and counting documents and bytes.
//
// Per signal it starts a new collector, loads it for a warm-up, then measures over a window:
// documents per second at the sink; the collector's CPU time from /proc/<pid>/stat (utime +
// stime, all threads: not wall time) per million documents; its peak RSS (VmHWM) and RSS
// over the window; bytes sent per document. Then it takes a CPU profile of the collector
// through the pprof extension (in a window of its own, so that profiling does not touch the
// figures) and splits it into the exporter, exporterhelper's queue and batching, the receiver
// and pipeline, and the rest. The report holds each run's peak RSS against the memory model of
// docs/delivery.md (memmodel.go). A second collector with the debug exporter (verbosity basic)
// behind the same sending_queue settings gives the baseline of memory; with the collector
// stopped, it measures encoding and gzip level 1 alone for the same documents. Then, in shorter
// runs of their own collectors (-short-warmup, -short-window), the Elasticsearch exporter at the
// other sizes of request (-sizes, 50 and 512 records), each with its debug-exporter baseline of
// memory, and the reference: core's otlphttp
// exporter at its defaults (protobuf, gzip, its queue of 1,000 requests that refuses when full),
// then with sending_queue::block_on_overflow, at the first run's size, to the OTLP sink
// (cmd/otlpsink), which answers success and counts log records, spans and data points. Every run
// ends by stopping the load (each connection once its request is answered) and checking that
// the sink counted every record the receiver accepted.
//
// -exporter-config adds settings to the exporter's defaults, e.g. -exporter-config
// 'compression: snappy' (the sink decodes snappy and answers the exporter's start-up check as
// Elasticsearch does, so the exporter sends snappy). The report names the Content-Encoding of
// the bulk requests the sink received in each window, whatever the settings asked for.
//
// The generator and the sink share the machine with the collector; the collector's CPU time
// is its own whatever runs beside it, but documents per second are those of this layout. The
// CPU time that other processes took during each window is reported, as is the load average;
// costbench refuses to start when other processes keep more than -max-busy CPUs busy (measured
// from /proc/stat over 3 s), unless -force.
//
// With -es-env it measures against a real Elasticsearch node instead (realnode.go): the
// collector's and the node's CPU per million documents. There, -delays repeats every run through a
// proxy that adds a round trip to each bulk request (delayproxy.go), and -compare measures other
// collector binaries in the same interleaved rounds, beside -collector (latencyreport.go writes
// their table).
//
// It is a module of its own (go.mod in this folder), so that its profile parser
// (github.com/google/pprof) stays out of the exporter's dependencies; build it from here.
package main

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

// inflightCap is the exporter's default flow_control::max_inflight_bytes (factory.go;
// TestQueueDefaults checks it).
const inflightCap = 64 << 20

type options struct {
	collector, sink, otlpSink, out string
	signals                        []string
	records                        map[string]int // records per request, per signal
	sizes                          []int          // other records per request of the exporter's short runs
	conns                          int
	warmup, window                 time.Duration
	shortWarmup, shortWindow       time.Duration // of the runs at other sizes and of the reference
	profile, baseline              time.Duration
	ceiling                        time.Duration
	maxBusy                        float64
	exporterConfig                 string // YAML added to the exporter's settings; empty: the defaults
	// goMemLimit is the collector's GOMEMLIMIT (empty: none); memoryLimiter the settings of a
	// memory_limiter processor in its pipelines (empty: no processor).
	goMemLimit, memoryLimiter string
	force                     bool
	corpus                    string
	// esEnv is the env file of a real node (scripts/es.sh): when set, the runs of realNode
	// replace the stand-in's.
	esEnv, templates string
	repeats          int
	// delays are the added round trips of -delays: with -es-env, every run is repeated through a
	// delay proxy at each (none: straight to the node, as without the flag).
	delays []time.Duration
	// collectorName names -collector in the results; compare are the other builds of -compare,
	// measured in the same rounds against the real node.
	collectorName string
	compare       []namedCollector
}

// namedCollector is a collector binary and the name the results give it.
type namedCollector struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// GoVersion is the Go version the binary was built with.
	GoVersion string `json:"go_version,omitempty"`
}

func main() {
	var o options
	signals := "logs,spans,metrics"
	records := "logs=1000,spans=1000,metrics=2500"
	flag.StringVar(&o.collector, "collector", ".bin/otelcol-es", "the ocb-built collector")
	flag.StringVar(&o.sink, "sink", ".bin/bulksink", "the bulk sink (internal/lab/cmd/bulksink)")
	flag.StringVar(&o.otlpSink, "otlp-sink", ".bin/otlpsink", "the OTLP sink (internal/lab/cmd/otlpsink) behind the otlphttp reference; empty: no reference")
	flag.StringVar(&o.out, "out", ".bin/cost", "directory for the configurations, logs, profiles and results.json")
	flag.StringVar(&signals, "signals", signals, "signals to measure, in order")
	flag.StringVar(&records, "records", records, "records per OTLP request, per signal")
	sizes := "50,512"
	flag.StringVar(&sizes, "sizes", sizes, "other records per request at which the Elasticsearch exporter is measured too, for every signal, in short runs (empty: none)")
	flag.DurationVar(&o.shortWarmup, "short-warmup", 5*time.Second, "warm-up of the runs at -sizes and of the otlphttp reference")
	flag.DurationVar(&o.shortWindow, "short-window", 12*time.Second, "window of the runs at -sizes and of the otlphttp reference")
	flag.IntVar(&o.conns, "conns", 32, "concurrent OTLP/HTTP connections of the generator (enough to keep the receiver blocked on the full sending queue)")
	flag.DurationVar(&o.warmup, "warmup", 10*time.Second, "load before each measurement window")
	flag.DurationVar(&o.window, "window", 30*time.Second, "measurement window per signal")
	flag.DurationVar(&o.profile, "profile", 15*time.Second, "CPU profile after the window (0: none)")
	flag.DurationVar(&o.baseline, "baseline", 15*time.Second, "window of the debug-exporter baseline (0: none)")
	flag.DurationVar(&o.ceiling, "ceiling", 3*time.Second, "time of each of the encode and gzip measurements (0: none)")
	flag.Float64Var(&o.maxBusy, "max-busy", 0.3, "refuse to start when other processes keep more than this many CPUs busy (measured over 3 s)")
	flag.BoolVar(&o.force, "force", false, "start even when the machine is busy (the results say so)")
	flag.StringVar(&o.exporterConfig, "exporter-config", "", `YAML added under the Elasticsearch exporter, "\n" between lines, e.g. "sending_queue:\n  queue_size: 40" (default: none, the exporter's defaults)`)
	flag.StringVar(&o.goMemLimit, "gomemlimit", "", "the collector's GOMEMLIMIT, e.g. 410MiB (default: none)")
	flag.StringVar(&o.memoryLimiter, "memory-limiter", "", `settings of a memory_limiter processor put in the collector's pipelines, "\n" between lines, e.g. "check_interval: 1s\nlimit_mib: 410\nspike_limit_mib: 102" (default: no processor)`)
	flag.StringVar(&o.corpus, "corpus", corpusRealistic, "records to send: "+corpusRealistic+" (production-like entropy, benchdata.Realistic) or "+corpusUniform+" (the push benchmarks' small uniform records, the best case)")
	flag.StringVar(&o.esEnv, "es-env", "", "env file of a real Elasticsearch node (scripts/es.sh start writes .es/env): measure the collector and the node's own CPU at every size of -records and -sizes, instead of the stand-in runs")
	flag.StringVar(&o.templates, "templates", "integrationtest/internal/estest/templates", "with -es-env: the folder of the otel stand-in index templates, put where the node lacks the built-in ones (as the demo does)")
	flag.IntVar(&o.repeats, "repeats", 3, "with -es-env: rounds of runs, each over every signal and size, interleaved")
	delays := ""
	flag.StringVar(&delays, "delays", delays, "with -es-env: added round trips between the collector and the node, comma-separated durations (e.g. 0s,5ms,20ms,50ms): "+
		"every run is repeated at each, through a proxy that holds each bulk request that long (0s: the proxy without delay); empty: straight to the node")
	flag.StringVar(&o.collectorName, "collector-name", "new", "with -es-env: the name of -collector in the results")
	flag.Func("compare", "with -es-env: name=path of another collector binary measured in the same interleaved rounds as -collector, e.g. today=.bin/otelcol-es-today (repeatable, or comma-separated)", func(v string) error {
		c, err := parseCompare(v)
		o.compare = append(o.compare, c...)
		return err
	})
	requestProfile := flag.String("request-profile", "", "only split this CPU profile of BenchmarkRequestCost into the parts of a bulk request, and exit")
	requests := flag.Int("requests", 0, "with -request-profile: the number of requests it covers")
	flag.Parse()
	if *requestProfile != "" {
		if err := printRequestSplit(os.Stdout, *requestProfile, max(*requests, 1)); err != nil {
			fmt.Fprintln(os.Stderr, "costbench:", err)
			os.Exit(1)
		}
		return
	}
	o.signals = strings.Split(signals, ",")
	o.exporterConfig = strings.ReplaceAll(o.exporterConfig, `\n`, "\n")
	o.memoryLimiter = strings.ReplaceAll(o.memoryLimiter, `\n`, "\n")
	var err error
	if o.records, err = parseRecords(records); err != nil {
		fmt.Fprintln(os.Stderr, "costbench: -records:", err)
		os.Exit(2)
	}
	if o.sizes, err = parseSizes(sizes); err != nil {
		fmt.Fprintln(os.Stderr, "costbench: -sizes:", err)
		os.Exit(2)
	}
	if o.delays, err = parseDelays(delays); err != nil {
		fmt.Fprintln(os.Stderr, "costbench: -delays:", err)
		os.Exit(2)
	}
	if o.esEnv == "" && (len(o.delays) > 0 || len(o.compare) > 0) {
		fmt.Fprintln(os.Stderr, "costbench: -delays and -compare need -es-env")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "costbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if err := os.MkdirAll(o.out, 0o750); err != nil {
		return err
	}
	var rep report
	rep.Records, rep.Sizes, rep.Conns, rep.Corpus = o.records, o.sizes, o.conns, o.corpus
	rep.Machine.CPUs = runtime.NumCPU()
	rep.Machine.CPUModel = cpuModel()
	bi, err := buildinfo.ReadFile(o.collector)
	if err != nil {
		return fmt.Errorf("reading %s: %w (run make build)", o.collector, err)
	}
	rep.Machine.GoVersion = bi.GoVersion
	la, err := loadAverage()
	if err != nil {
		return err
	}
	rep.Machine.LoadStart = la
	// The load average lags by a minute (and counts the build that `make cost` may just have
	// run): what decides is the CPU time the machine spends now, before anything of ours runs.
	busy0, err := machineBusy()
	if err != nil {
		return err
	}
	self0 := selfCPU()
	time.Sleep(3 * time.Second)
	busy1, err := machineBusy()
	if err != nil {
		return err
	}
	busy := max(0, ((busy1-busy0)-(selfCPU()-self0)).Seconds()/3)
	rep.Machine.BusyStart = busy
	fmt.Printf("machine: %d CPUs, %s; collector built with %s; load average %.2f %.2f %.2f; other processes busy on %.2f CPUs\n",
		rep.Machine.CPUs, rep.Machine.CPUModel, rep.Machine.GoVersion, la[0], la[1], la[2], busy)
	if busy > o.maxBusy {
		msg := fmt.Sprintf("the machine is busy: other processes use %.2f CPUs > %.2f (-max-busy); load average %.2f", busy, o.maxBusy, la[0])
		if !o.force {
			return errors.New(msg + "; wait for it to settle or pass -force (COST_FORCE=1 with make), and the results will say so")
		}
		fmt.Println("WARNING: " + msg + "; measuring anyway (-force): expect noisy documents/s")
	}

	// Layout: with 4 CPUs or more, the collector gets CPUs 0-1 and the generator and the sink
	// the others; with fewer, all three share the CPUs and the collector's CPU time (not
	// wall time) is the measure.
	var collectorCPUs, otherCPUs string
	if rep.Machine.CPUs >= 4 {
		collectorCPUs, otherCPUs = "0,1", fmt.Sprintf("2-%d", rep.Machine.CPUs-1)
		if exec.Command("taskset", "-a", "-p", "-c", otherCPUs, strconv.Itoa(os.Getpid())).Run() != nil {
			collectorCPUs, otherCPUs = "", ""
		}
	}
	if collectorCPUs != "" {
		rep.Machine.Layout = "collector pinned to CPUs " + collectorCPUs + " (taskset) with GOMAXPROCS=2; generator and sink on CPUs " + otherCPUs
	} else {
		rep.Machine.Layout = fmt.Sprintf("no pinning (%d CPUs): collector with GOMAXPROCS=2, generator and sink time-sliced on the same CPUs; "+
			"the collector's figure is its own CPU time from /proc/<pid>/stat", rep.Machine.CPUs)
	}
	fmt.Println("layout: " + rep.Machine.Layout)
	if o.exporterConfig != "" {
		rep.ExporterConfig = o.exporterConfig
		fmt.Printf("WARNING: not the defaults: the exporter's settings add\n%s\n", o.exporterConfig)
	}
	rep.GoMemLimit, rep.MemoryLimiter = o.goMemLimit, o.memoryLimiter

	if o.esEnv != "" {
		return runRealNode(o, &rep, collectorCPUs)
	}
	sinkCmd := withCPUs(otherCPUs, o.sink, "-count", "lines", "-stdin")
	sinkCmd.Stderr = os.Stderr
	sink, err := bulksink.Start(sinkCmd)
	if err != nil {
		return fmt.Errorf("starting %s: %w", o.sink, err)
	}
	defer func() { _ = sink.Stop() }()
	fmt.Printf("sink: %s (pid %d), counting the lines of each decoded body\n", sink.URL, sink.Pid())
	sinks := map[string]string{exporterES: sink.URL}
	if o.otlpSink != "" {
		otlpCmd := withCPUs(otherCPUs, o.otlpSink, "-stdin")
		otlpCmd.Stderr = os.Stderr
		otlp, oerr := bulksink.Start(otlpCmd)
		if oerr != nil {
			return fmt.Errorf("starting %s: %w", o.otlpSink, oerr)
		}
		defer func() { _ = otlp.Stop() }()
		sinks[exporterOTLPHTTP] = otlp.URL
		fmt.Printf("OTLP sink: %s (pid %d), counting log records, spans and data points of each request\n", otlp.URL, otlp.Pid())
	}

	for _, signal := range o.signals {
		runs, merr := measureSignal(o, signal, sinks, collectorCPUs)
		if merr != nil {
			return merr
		}
		rep.Runs = append(rep.Runs, runs...)
	}
	if err := writeResults(o, rep); err != nil {
		return err
	}
	printReport(os.Stdout, o, rep)
	return nil
}

// writeResults writes every figure of the run to results.json in -out.
func writeResults(o options, rep report) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "results.json"), js, 0o600)
}
