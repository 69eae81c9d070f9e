// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

// The one home of the profiling index names: the pipeline chooses the index of each profiling
// document by its kind and the mapping mode (internal/pipeline/profiles.go), and the exporter
// asks for write privileges on ProfilingIndices, which every name below matches
// (TestProfilingIndicesMatchPattern).

// ProfilingIndices is the pattern of every index and data stream that profiles are written to.
const ProfilingIndices = "profiling-*"

// The data streams of Elasticsearch's OTel profiling templates (9.6, x-pack otel-data): events
// match profiling-events*.otel-*; profiling-events-all is the one of all events, not
// downsampled.
const (
	ProfilingEventsOTel      = "profiling-events-all.otel-default"
	ProfilingStacktracesOTel = "profiling-stacktraces.otel-default"
	ProfilingStackframesOTel = "profiling-stackframes.otel-default"
	ProfilingExecutablesOTel = "profiling-executables.otel-default"
	ProfilingHostsOTel       = "profiling-hosts.otel-default"
)

// The indices of Universal Profiling, which the ecs mode writes (plain indices, not data
// streams): all events, the stack traces, frames, executables and hosts they refer to, and the
// symbolization queues of unsymbolized leaf frames and executables.
const (
	ProfilingEventsECS        = "profiling-events-all"
	ProfilingStacktracesECS   = "profiling-stacktraces"
	ProfilingStackframesECS   = "profiling-stackframes"
	ProfilingExecutablesECS   = "profiling-executables"
	ProfilingHostsECS         = "profiling-hosts"
	ProfilingSQExecutablesECS = "profiling-sq-executables"
	ProfilingSQLeafFramesECS  = "profiling-sq-leafframes"
)

// ProfilingEventsDownsampledECS are the downsampled event indices: the Nth holds about one
// event in 5^N of profiling-events-all.
var ProfilingEventsDownsampledECS = [...]string{
	"profiling-events-5pow01", "profiling-events-5pow02", "profiling-events-5pow03",
	"profiling-events-5pow04", "profiling-events-5pow05", "profiling-events-5pow06",
	"profiling-events-5pow07", "profiling-events-5pow08", "profiling-events-5pow09",
	"profiling-events-5pow10", "profiling-events-5pow11",
}
