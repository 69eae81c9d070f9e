// Command loadgen sends synthetic logs, traces, metrics and profiles to a collector's OTLP/HTTP
// receiver (protobuf), for the end-to-end tests and the demo.
//
//	loadgen -endpoint http://127.0.0.1:4318 -logs 2000 -spans 500 -metrics 1000 -profiles 200 -run-id demo1 -dataset demo
//
// Each span has one span event. Metric data points are gauges and monotonic cumulative sums,
// of integers and of doubles, four to a document: the summary line says how many documents the
// exporter makes of them. Profiles are on-CPU samples (20 a second) of one Go process on a few
// stacks, one profile per request to /v1development/profiles, which the collector serves with
// --feature-gates=service.profilesSupport; -profiles counts samples, each one event document.
// The run id is set as the attribute loadgen.run_id on every resource,
// record and data point, so the documents of one run can be counted exactly. Requests that
// find the receiver not listening yet, or that get 429 or 5xx, are retried a few times. The
// command exits with status 1 when it cannot deliver everything.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/loadgen"
)

func main() {
	cfg := loadgen.DefaultConfig()
	flag.StringVar(&cfg.Endpoint, "endpoint", cfg.Endpoint, "base URL of the OTLP/HTTP receiver (/v1/logs, /v1/traces, /v1/metrics and "+loadgen.ProfilesPath+" are appended)")
	flag.IntVar(&cfg.Logs, "logs", 0, "number of log records to send")
	flag.IntVar(&cfg.Spans, "spans", 0, "number of spans to send (each with one span event)")
	flag.IntVar(&cfg.Metrics, "metrics", 0, fmt.Sprintf("number of metric data points to send (%d to a document)", loadgen.MetricsPerDocument))
	flag.IntVar(&cfg.Profiles, "profiles", 0, "number of profile samples to send (on-CPU, one timestamp each: one event document each; the collector needs --feature-gates=service.profilesSupport)")
	flag.IntVar(&cfg.Batch, "batch", cfg.Batch, fmt.Sprintf("log records, spans, data points or profile samples per request (data points: rounded up to a multiple of %d; profile samples: one profile per request)", loadgen.MetricsPerDocument))
	flag.StringVar(&cfg.RunID, "run-id", "", "value of the loadgen.run_id attribute (default: a random id)")
	flag.StringVar(&cfg.Dataset, "dataset", "", "data_stream.dataset resource attribute of logs, traces and metrics (default: not set)")
	flag.StringVar(&cfg.Namespace, "namespace", "", "data_stream.namespace resource attribute of logs, traces and metrics (default: not set)")
	flag.StringVar(&cfg.Service, "service", cfg.Service, "service.name resource attribute")
	flag.IntVar(&cfg.Attempts, "attempts", cfg.Attempts, "attempts per request while the receiver refuses connections or answers 429/5xx")
	flag.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "deadline of each request")
	quiet := flag.Bool("q", false, "print only the summary line")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [flags]\n\nSends OTLP/HTTP protobuf logs, traces, metrics and profiles.\n\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "loadgen: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if cfg.Logs == 0 && cfg.Spans == 0 && cfg.Metrics == 0 && cfg.Profiles == 0 {
		fmt.Fprintln(os.Stderr, "loadgen: nothing to send: set -logs, -spans, -metrics and/or -profiles")
		os.Exit(2)
	}
	if cfg.RunID == "" {
		cfg.RunID = loadgen.NewRunID()
	}
	if !*quiet {
		cfg.Log = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "loadgen: "+format+"\n", args...)
		}
		fmt.Fprintf(os.Stderr, "loadgen: sending %d log records, %d spans, %d metric data points (%d documents) and %d profile samples to %s (run id %s, %d per request)\n",
			cfg.Logs, cfg.Spans, cfg.Metrics, loadgen.MetricDocuments(cfg.Metrics), cfg.Profiles, cfg.Endpoint, cfg.RunID, cfg.Batch)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	res, err := loadgen.Run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: error: %v\n", err)
		fmt.Fprintf(os.Stderr, "loadgen: delivered before the error: %s\n", res)
		fmt.Fprintf(os.Stderr, "loadgen: is a collector with an OTLP/HTTP receiver listening at %s?\n", cfg.Endpoint)
		os.Exit(1)
	}
	fmt.Println(res)
}
