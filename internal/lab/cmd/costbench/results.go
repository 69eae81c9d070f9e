// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

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

	// HeapProfile is the heap profile taken at the end of the window (heap.go): HeapLiveMiB
	// what was live in it, ExporterHeapMiB the part that the exporter allocated.
	HeapProfile     string  `json:"heap_profile,omitempty"`
	HeapLiveMiB     float64 `json:"heap_live_mib,omitempty"`
	ExporterHeapMiB float64 `json:"exporter_heap_mib,omitempty"`

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
	ExporterConfig string `json:"exporter_config,omitempty"`
	// GoMemLimit and MemoryLimiter are -gomemlimit and -memory-limiter.
	GoMemLimit    string   `json:"gomemlimit,omitempty"`
	MemoryLimiter string   `json:"memory_limiter,omitempty"`
	Corpus        string   `json:"corpus"`
	Runs          []result `json:"runs"`
	// Node is the real node's part of a run with -es-env.
	Node *nodeReport `json:"node,omitempty"`
	// Collectors are the binaries measured against the real node: -collector, then -compare.
	Collectors []namedCollector `json:"collectors,omitempty"`
	// AddedRoundTrips are the delays of -delays.
	AddedRoundTrips []string `json:"added_round_trips,omitempty"`
}
