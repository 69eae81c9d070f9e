// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package signal names the four signals that the exporter writes, with the one spelling of
// each that configuration, routing, mapping modes, telemetry and messages use. It is a leaf:
// it imports nothing of the exporter, so that every package can name a signal. Its type is
// Kind, not Signal, so that it is never mistaken for the collector's own
// go.opentelemetry.io/collector/pipeline.Signal.
package signal // import "github.com/otelcol-es/elasticsearchexporter/internal/signal"

// Kind is one of the four signals.
type Kind uint8

// The signals, in the order of the per-signal tables ([Count]T indexed by Kind).
const (
	Logs Kind = iota
	Metrics
	Traces
	Profiles
	// Count is the number of signals, the length of a per-signal table.
	Count
)

var names = [Count]string{Logs: "logs", Metrics: "metrics", Traces: "traces", Profiles: "profiles"}

// String is the signal's name: "logs", "metrics", "traces" or "profiles", as configuration,
// messages and the labels of the start-up checks spell it. For logs, metrics and traces it is
// also the type part of a data stream name (logs-generic.otel-default).
func (k Kind) String() string {
	if k >= Count {
		return "unknown"
	}
	return names[k]
}

// Noun names one document of the signal in messages: log, metric, span or profile.
func (k Kind) Noun() string {
	if k >= Count {
		return "unknown"
	}
	return [Count]string{Logs: "log", Metrics: "metric", Traces: "span", Profiles: "profile"}[k]
}

// HasDataStreams tells whether the signal's documents are routed to data streams named
// <type>-<dataset>-<namespace>: logs, metrics and traces. Profiling documents go to the fixed
// indices of Universal Profiling.
func (k Kind) HasDataStreams() bool { return k == Logs || k == Metrics || k == Traces }
