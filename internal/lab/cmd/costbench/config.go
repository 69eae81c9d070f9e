// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// The exporter's sending_queue defaults (factory.go), written out for the debug exporter of the
// baseline, so that the baseline queues and batches as the exporter does. TestQueueDefaults
// checks them against the exporter's factory.
const (
	queueSizer        = "bytes"
	queueSize         = 20 << 20
	queueNumConsumers = 10
	batchMinSize      = 0
	batchMaxSize      = 5_000_000
	batchFlush        = "10s"
)

// ports are the collector's listening ports of one run.
type ports struct {
	otlp, pprof, telemetry int
}

func freePorts() (ports, error) {
	var p [3]int
	for i := range p {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports{}, err
		}
		p[i] = ln.Addr().(*net.TCPAddr).Port
		defer ln.Close()
	}
	return ports{p[0], p[1], p[2]}, nil
}

// collectorConfig returns the collector's configuration: the OTLP/HTTP receiver, the pprof
// extension, the collector's own metrics on a port of their own (the default level, normal),
// and one pipeline per signal into the Elasticsearch exporter at its defaults (endpoint
// only), core's otlphttp exporter at its defaults (endpoint only: protobuf, gzip, its sending
// queue of 1,000 requests that refuses when full) or, for the baseline, the debug exporter
// (verbosity basic) behind the Elasticsearch exporter's sending_queue settings.
//
// extra, when not empty, is YAML added to the Elasticsearch or otlphttp exporter's settings
// (each line indented under it), to measure other settings than the defaults. limiter, when
// not empty, is the YAML of a memory_limiter processor put in every pipeline.
func collectorConfig(p ports, exporter, sinkURL, extra, limiter string) string {
	var exp string
	switch exporter {
	case exporterES, exporterOTLPHTTP:
		var b strings.Builder
		fmt.Fprintf(&b, "  %s:\n    endpoint: %s\n", exporter, sinkURL)
		writeIndented(&b, extra)
		exp = b.String()
	case exporterDebug:
		exp = fmt.Sprintf(`  debug:
    verbosity: basic
    sending_queue:
      enabled: true
      sizer: %s
      queue_size: %d
      num_consumers: %d
      block_on_overflow: true
      batch:
        sizer: bytes
        min_size: %d
        max_size: %d
        flush_timeout: %s
`, queueSizer, queueSize, queueNumConsumers, batchMinSize, batchMaxSize, batchFlush)
	default:
		panic("unknown exporter " + exporter)
	}
	var procs, inPipeline string
	if limiter != "" {
		var b strings.Builder
		b.WriteString("processors:\n  memory_limiter:\n")
		writeIndented(&b, limiter)
		procs, inPipeline = b.String(), "      processors: [memory_limiter]\n"
	}
	return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:` + strconv.Itoa(p.otlp) + `
` + procs + `exporters:
` + exp + `extensions:
  pprof:
    endpoint: 127.0.0.1:` + strconv.Itoa(p.pprof) + `
service:
  extensions: [pprof]
  telemetry:
    metrics:
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: ` + strconv.Itoa(p.telemetry) + `
  pipelines:
    logs:
      receivers: [otlp]
` + inPipeline + `      exporters: [` + exporter + `]
    traces:
      receivers: [otlp]
` + inPipeline + `      exporters: [` + exporter + `]
    metrics:
      receivers: [otlp]
` + inPipeline + `      exporters: [` + exporter + `]
`
}

// writeIndented writes the non-empty lines of yaml to b, each indented under a component's
// name (four spaces).
func writeIndented(b *strings.Builder, yaml string) {
	for line := range strings.SplitSeq(strings.TrimRight(yaml, "\n"), "\n") {
		if line != "" {
			b.WriteString("    " + line + "\n")
		}
	}
}
