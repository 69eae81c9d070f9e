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
// and pipeline, and the rest. The report holds each run's peak RSS against the memory model
// of docs/delivery.md (memmodel.go). A second collector with the debug exporter (verbosity basic)
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
	"cmp"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/linefit"
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
	force                          bool
	corpus                         string
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

// result is one collector run: one signal, one exporter, one size of request.
type result struct {
	Signal   string `json:"signal"`
	Exporter string `json:"exporter"`
	// Settings names what the run adds to the exporter's defaults ("" for none).
	Settings          string `json:"settings,omitempty"`
	RecordsPerRequest int    `json:"records_per_request"`

	WindowSeconds float64 `json:"window_seconds"`
	Records       int64   `json:"records"`   // accepted by the receiver in the window
	Documents     int64   `json:"documents"` // counted by the sink in the window
	DocsPerSec    float64 `json:"docs_per_second"`
	Failures      int64   `json:"failed_requests"` // answered otherwise than 200, or not at all, in the window
	LastFailure   string  `json:"last_failure,omitempty"`

	// Short marks the runs after the first and the baseline: other sizes and the reference.
	Short bool `json:"short,omitempty"`
	// AcceptedTotal is the records of every request the receiver accepted during the run;
	// ArrivedTotal the documents of the run the sink counted once the load stopped, when they
	// reached AcceptedTotal or 30 s had passed.
	AcceptedTotal int64 `json:"accepted_records_total"`
	ArrivedTotal  int64 `json:"arrived_documents_total"`

	CollectorCPU    float64 `json:"collector_cpu_seconds"`
	CPUPerMillion   float64 `json:"collector_cpu_seconds_per_million_docs"`
	GeneratorCPU    float64 `json:"generator_cpu_seconds"`
	SinkCPU         float64 `json:"sink_cpu_seconds"`
	OtherCPUCores   float64 `json:"other_processes_cpu_cores"`
	LoadAvg         [3]float64
	BodyBytesPerDoc float64 `json:"body_bytes_per_doc"`
	// BodyEncoding is the Content-Encoding of the bulk requests the bulk sink received in the
	// window, e.g. "gzip" or "snappy", with the count of each when there were several
	// (bodyEncoding); empty for the other destinations.
	BodyEncoding   string  `json:"body_encoding,omitempty"`
	RawBytesPerDoc float64 `json:"raw_bytes_per_doc"`
	DocsPerRequest float64 `json:"docs_per_request"` // documents per request the sink or node received in the window
	// Round is the round of a run against a real node (-es-env), from 1.
	Round int `json:"round,omitempty"`
	// Collector names the collector binary of a run against a real node (-collector-name,
	// -compare).
	Collector string `json:"collector,omitempty"`
	// AddedRoundTrip is the delay of the proxy the run went through (-delays), e.g. "20ms";
	// Proxied says whether it went through one (the delay may be 0s).
	AddedRoundTrip string `json:"added_round_trip,omitempty"`
	Proxied        bool   `json:"through_delay_proxy,omitempty"`
	// NodeSettleSeconds is how long the run waited, before it started, for the node to come back
	// to rest after the run before it (-es-env).
	NodeSettleSeconds float64 `json:"node_settle_seconds,omitempty"`

	// RSSIdleMiB is the collector's RSS once started, before the load; RequestBytes the OTLP
	// bytes of one request and PdataPerByte the heap bytes of its pdata per OTLP byte: the
	// inputs of the memory model (memmodel.go).
	RSSIdleMiB   float64 `json:"rss_idle_mib"`
	RequestBytes int64   `json:"request_otlp_bytes"`
	PdataPerByte float64 `json:"pdata_heap_bytes_per_otlp_byte"`

	RSSStartMiB     float64 `json:"rss_start_mib"`
	RSSEndMiB       float64 `json:"rss_end_mib"`
	RSSMeanMiB      float64 `json:"rss_mean_mib"`
	HWMMiB          float64 `json:"vmhwm_mib"`
	GrowthMiBPerMin float64 `json:"rss_growth_mib_per_minute"`

	Profile string   `json:"profile,omitempty"`
	Split   *split   `json:"split,omitempty"`
	Ceiling *ceiling `json:"ceiling,omitempty"`
}

// sinkCPUPerMillion is the CPU seconds of the sink (the stand-in, or the real node) per million
// documents it counted in the window.
func (r result) sinkCPUPerMillion() float64 {
	return r.SinkCPU / float64(max(r.Documents, 1)) * 1e6
}

// column is f of each run, in order: the values of one column of a table over the runs of a row.
func column(rs []result, f func(result) float64) []float64 {
	v := make([]float64, 0, len(rs))
	for _, r := range rs {
		v = append(v, f(r))
	}
	return v
}

// docs returns the documents of the window: the sink's count, or the records accepted when
// there is no sink (the debug baseline).
func (r result) docs() int64 {
	if r.Exporter == exporterDebug {
		return r.Records
	}
	return r.Documents
}

// The exporters of the runs.
const (
	exporterES       = "elasticsearch"
	exporterDebug    = "debug"
	exporterOTLPHTTP = "otlphttp"
)

// blockOnOverflow is what the second run of the reference adds to otlphttp's defaults.
const blockOnOverflow = "sending_queue:\n  block_on_overflow: true"

type report struct {
	Machine struct {
		CPUs      int        `json:"cpus"`
		CPUModel  string     `json:"cpu_model"`
		GoVersion string     `json:"collector_go_version"`
		Layout    string     `json:"layout"`
		LoadStart [3]float64 `json:"load_average_at_start"`
		BusyStart float64    `json:"busy_cpus_at_start"` // CPUs kept busy by other processes in the 3 s before the start
	} `json:"machine"`
	Records map[string]int `json:"records_per_request"`
	Sizes   []int          `json:"other_sizes"`
	Conns   int            `json:"connections"`
	// ExporterConfig is what -exporter-config added to the exporter's defaults.
	ExporterConfig string   `json:"exporter_config,omitempty"`
	Corpus         string   `json:"corpus"`
	Runs           []result `json:"runs"`
	// Node is the real node's part of a run with -es-env.
	Node *nodeReport `json:"node,omitempty"`
	// Collectors are the binaries measured against the real node: -collector, then -compare.
	Collectors []namedCollector `json:"collectors,omitempty"`
	// AddedRoundTrips are the delays of -delays.
	AddedRoundTrips []string `json:"added_round_trips,omitempty"`
}

func run(o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
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
	return os.WriteFile(filepath.Join(o.out, "results.json"), js, 0o644)
}

// parseRecords reads "logs=1000,spans=1000,metrics=2500", or one number for every signal.
func parseRecords(s string) (map[string]int, error) {
	out := map[string]int{}
	if n, err := strconv.Atoi(s); err == nil {
		for _, sig := range []string{"logs", "spans", "metrics"} {
			out[sig] = n
		}
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		sig, v, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not signal=records", item)
		}
		out[sig] = n
	}
	return out, nil
}

// parseDelays reads "0s,5ms,20ms"; empty is none.
func parseDelays(s string) ([]time.Duration, error) {
	var out []time.Duration
	if s == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(item))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a duration of 0 or more", item)
		}
		out = append(out, d)
	}
	return out, nil
}

// parseCompare reads "today=.bin/otelcol-es-today", or several of them comma-separated.
func parseCompare(s string) ([]namedCollector, error) {
	var out []namedCollector
	for item := range strings.SplitSeq(s, ",") {
		name, path, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || name == "" || path == "" || strings.ContainsAny(name, "/ ") {
			return nil, fmt.Errorf("%q is not name=path", item)
		}
		out = append(out, namedCollector{Name: name, Path: path})
	}
	return out, nil
}

// parseSizes reads "50,512"; empty is none.
func parseSizes(s string) ([]int, error) {
	var out []int
	if s == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(item)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a number of records", item)
		}
		out = append(out, n)
	}
	return out, nil
}

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
	return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...)
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
	if err = os.WriteFile(cfgPath, []byte(collectorConfig(p, sp.exporter, sp.sinkURL, sp.conn+strings.ReplaceAll(sp.settings, `\n`, "\n"))), 0o644); err != nil {
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
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not listening on %d after %s", port, limit)
}

// sinkCounters are the counters that the bulk sink's and the OTLP sink's stats share (same
// names in JSON, TestSinkCounters), so that a run reads either sink alike.
type sinkCounters struct {
	Documents int64 `json:"documents"`
	Requests  int64 `json:"requests"`
	BodyBytes int64 `json:"body_bytes"`
	RawBytes  int64 `json:"raw_bytes"`
	CPUNanos  int64 `json:"cpu_nanos"`
	// Encodings counts the bulk requests by Content-Encoding (the bulk sink only).
	Encodings map[string]int64 `json:"encodings,omitempty"`
}

// bodyEncoding names the Content-Encoding of the bulk requests counted between two readings of
// the bulk sink's Encodings: the one name when all had the same ("gzip", "snappy", "none"),
// else each with its count, the most first ("snappy 412, gzip 3"); empty when there were none.
func bodyEncoding(before, after map[string]int64) string {
	type count struct {
		name string
		n    int64
	}
	var counts []count
	for name, n := range after {
		if d := n - before[name]; d > 0 {
			counts = append(counts, count{name, d})
		}
	}
	slices.SortFunc(counts, func(a, b count) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return strings.Compare(a.name, b.name)
	})
	if len(counts) == 1 {
		return counts[0].name
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = c.name + " " + strconv.FormatInt(c.n, 10)
	}
	return strings.Join(parts, ", ")
}

// counter reads what a destination took: documents, bytes and its CPU time.
type counter interface{ stats() (sinkCounters, error) }

// httpSink is the URL of the bulk sink or the OTLP sink, read through their stats.
type httpSink string

func (u httpSink) stats() (sinkCounters, error) { return sinkStats(string(u)) }

func sinkStats(url string) (sinkCounters, error) {
	var s sinkCounters
	resp, err := http.Get(url + bulksink.StatsPath)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// captureBody asks the sink to keep the next bulk body and returns it, uncompressed.
func captureBody(url string) ([]byte, error) {
	resp, err := http.Post(url+bulksink.CapturePath, "", http.NoBody)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(url + bulksink.CapturePath)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusOK {
			return body, nil
		}
	}
	return nil, errors.New("the sink captured no bulk body within 30 s")
}

// fetchProfile takes a CPU profile of d through the pprof extension and writes it to path.
func fetchProfile(port int, d time.Duration, path string) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", port, int(d.Seconds()))
	client := &http.Client{Timeout: d + 30*time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
