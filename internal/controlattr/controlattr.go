// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package controlattr names the control attributes and the mapping hints: attributes that tell
// the exporter where and how to write a document, and that are never written into one. Routing
// reads them to resolve a document's index, id and pipeline; the serializer leaves them out of
// the documents and reads the mapping hints. Both import this package, and neither imports the
// other.
package controlattr // import "github.com/otelcol-es/elasticsearchexporter/internal/controlattr"

// Control attributes, looked up on a record (span, span event, data point), its scope and its
// resource.
const (
	DataStreamType      = "data_stream.type"
	DataStreamDataset   = "data_stream.dataset"
	DataStreamNamespace = "data_stream.namespace"
	Index               = "elasticsearch.index"
	DocumentID          = "elasticsearch.document_id"
	// IngestPipeline is the name the contrib exporter's code reads; DocumentPipeline is the
	// name its README and its config comment give, which its code does not read. Both are
	// accepted.
	IngestPipeline   = "elasticsearch.ingest_pipeline"
	DocumentPipeline = "elasticsearch.document_pipeline"
	// MappingHints holds a slice of the hints below.
	MappingHints = "elasticsearch.mapping.hints"
	// MappingMode, a scope attribute, selects the mapping mode of the scope's documents.
	MappingMode = "elastic.mapping.mode"
)

// Mapping hints, the string values of the attribute MappingHints. Unknown hints are ignored.
const (
	// HintAggregateMetricDouble writes a histogram or an exponential histogram as its sum and
	// count, as a summary is written.
	HintAggregateMetricDouble = "aggregate_metric_double"
	// HintDocCount sets the document's _doc_count to the data point's count.
	HintDocCount = "_doc_count"
	// HintHistogramRaw writes a histogram's bucket upper bounds as its values, not the
	// buckets' midpoints.
	HintHistogramRaw = "histogram:raw"
	// HintNoIndex skips the record, span, span event or data point; it is counted as skipped.
	HintNoIndex = "_noindex"
)

// Is reports whether key is a control attribute: consumed by routing or by the exporter, and
// never written into a document's attributes.
func Is(key string) bool {
	switch key {
	case DataStreamType, DataStreamDataset, DataStreamNamespace,
		Index, DocumentID, IngestPipeline, DocumentPipeline,
		MappingHints, MappingMode:
		return true
	}
	return false
}
