// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

// The data streams of Elastic APM that span events of the ecs mode go to when
// mapping::ecs_span_events_to_logs is on: logs-apm.error-<namespace> for exceptions and
// logs-apm.app.<service>-<namespace> for the other events. The pipeline keeps a Router for
// each, with its dataset set by SetDataset.
const (
	// APMErrorDataset is the dataset of the span events that record an exception.
	APMErrorDataset = "apm.error"
	// APMAppDatasetPrefix is followed by the service's name in the dataset of the other span
	// events.
	APMAppDatasetPrefix = "apm.app."
	// APMUnknownService stands for the service's name when the resource has none, as in
	// Elastic APM.
	APMUnknownService = "unknown"
)

// SetDataset makes dataset, sanitized like an attribute's value, the dataset of every data
// stream name the Router builds from now on, in place of data_stream.dataset and of the one
// derived from the scope; "" restores them. The namespace is still looked up, and a static
// index, elasticsearch.index and logstash_format still apply. The route prepared for the scope
// set by SetScope is discarded.
func (r *Router) SetDataset(dataset string) {
	r.dataset = dataset
	r.scope.ready = false
}

// Dataset returns the dataset set by SetDataset, or "".
func (r *Router) Dataset() string { return r.dataset }
