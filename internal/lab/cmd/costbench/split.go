// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// The parts of the collector's CPU profile.
const (
	partExporter     = "exporter"
	partExporterHelp = "exporterhelper queue and batching"
	partReceiver     = "receiver and pipeline"
	partGC           = "GC background workers"
	partRest         = "rest (runtime, scheduler, network poller, other)"
)

// owner is a function-name prefix and the part it stands for.
type owner struct{ prefix, part string }

// owners are function-name prefixes and the part a sample belongs to when, walking its stack
// from the leaf up, the first function that has an owner has this one. Functions with no owner
// (the runtime, the standard library but net/http's client and server loops, pdata, gzip,
// confighttp, OpenTelemetry's SDK) work for whoever called them: gzip and telemetry under the
// exporter are the exporter's, the pdata size of a request under exporterhelper is
// exporterhelper's, the protobuf decoding under the receiver is the receiver's.
var owners = []owner{
	// The exporter: this module, the bulk indexer and the Elasticsearch client under it, and
	// net/http's client (the exporter is the collector's only HTTP client under load).
	{"github.com/otelcol-es/elasticsearchexporter", partExporter},
	{"github.com/elastic/go-docappender", partExporter},
	{"github.com/elastic/go-elasticsearch", partExporter},
	{"github.com/elastic/elastic-transport-go", partExporter},
	{"net/http.(*persistConn)", partExporter},
	{"net/http.(*Transport)", partExporter},
	{"net/http.(*Client)", partExporter},
	{"net/http.send", partExporter},
	// exporterhelper: the sending queue, the batcher, the request sizers.
	{"go.opentelemetry.io/collector/exporter/", partExporterHelp},
	// The receiver and the pipeline up to the exporter: net/http's server, the OTLP
	// receiver, the fan-out and the service's graph.
	{"go.opentelemetry.io/collector/receiver/", partReceiver},
	{"go.opentelemetry.io/collector/internal/fanoutconsumer", partReceiver},
	{"go.opentelemetry.io/collector/service/", partReceiver},
	{"go.opentelemetry.io/collector/consumer", partReceiver},
	{"go.opentelemetry.io/collector/processor/", partReceiver},
	{"net/http.(*conn)", partReceiver},
	{"net/http.(*Server)", partReceiver},
	{"net/http.serverHandler", partReceiver},
}

// underPush is the exporter's push functions (internal/pipeline/pipeline.go).
var underPush = []string{
	module + "/internal/pipeline.(*Pipeline).PushLogs",
	module + "/internal/pipeline.(*Pipeline).PushTraces",
	module + "/internal/pipeline.(*Pipeline).PushMetrics",
	module + "/internal/pipeline.(*Pipeline).PushProfiles",
}

// split is the CPU profile's samples, in seconds of CPU, per part.
type split struct {
	Total     float64            `json:"total_seconds"`
	Parts     map[string]float64 `json:"parts_seconds"`
	UnderPush float64            `json:"under_push_seconds"` // samples with a Push{Logs,Traces,Metrics,Profiles} in their stack
	// TopExporter lists the exporter's functions with the most CPU in and under them (cum).
	TopExporter []funcCPU `json:"top_exporter"`
}

type funcCPU struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

func (s split) share(part string) float64 {
	if s.Total == 0 {
		return 0
	}
	return s.Parts[part] / s.Total
}

// readProfile reads the profile at path.
func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.Parse(f)
}

// splitProfileFile reads a CPU profile and splits it.
func splitProfileFile(path string) (split, error) {
	p, err := readProfile(path)
	if err != nil {
		return split{}, err
	}
	return splitProfile(p), nil
}

func splitProfile(p *profile.Profile) split { return splitProfileBy(p, "", classify) }

// splitProfileBy splits the samples of a CPU profile (in seconds) or of a heap profile (in
// allocations, alloc_objects, unless sampleType names another of its sample types, e.g.
// inuse_space in bytes) by classify.
func splitProfileBy(p *profile.Profile, sampleType string, classify func(stack []string) string) split {
	vi, scale := len(p.SampleType)-1, 1e-9
	for i, st := range p.SampleType {
		switch {
		case sampleType != "":
			if st.Type == sampleType {
				vi, scale = i, 1
			}
		case st.Type == "cpu":
			vi = i
		case st.Type == "alloc_objects":
			vi, scale = i, 1
		}
	}
	s := split{Parts: map[string]float64{}}
	cum := map[string]float64{}
	for _, smp := range p.Sample {
		v := float64(smp.Value[vi]) * scale
		s.Total += v
		var names []string
		for _, loc := range smp.Location {
			// A location's lines are innermost first (inlined calls).
			for _, line := range loc.Line {
				if line.Function != nil {
					names = append(names, line.Function.Name)
				}
			}
		}
		part := classify(names)
		s.Parts[part] += v
		if slices.ContainsFunc(names, func(n string) bool { return slices.Contains(underPush, n) }) {
			s.UnderPush += v
		}
		if part == partExporter {
			seen := map[string]bool{}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					cum[n] += v
				}
			}
		}
	}
	for name, v := range cum {
		s.TopExporter = append(s.TopExporter, funcCPU{name, v})
	}
	slices.SortFunc(s.TopExporter, func(a, b funcCPU) int {
		if a.Seconds != b.Seconds {
			if a.Seconds > b.Seconds {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(s.TopExporter) > 40 {
		s.TopExporter = s.TopExporter[:40]
	}
	return s
}

// classify returns the part of a stack of the collector, given leaf first.
func classify(stack []string) string { return classifyBy(stack, owners, partRest) }

// classifyBy returns the part of the first function of stack (leaf first) that has an owner,
// or, for a stack that has none, the GC's background marking or rest.
func classifyBy(stack []string, owners []owner, rest string) string {
	for _, name := range stack {
		for _, o := range owners {
			if strings.HasPrefix(name, o.prefix) {
				return o.part
			}
		}
	}
	if slices.Contains(stack, "runtime.gcBgMarkWorker") {
		return partGC
	}
	return rest
}
