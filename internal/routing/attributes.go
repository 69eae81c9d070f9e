// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import "go.opentelemetry.io/collector/pdata/pcommon"

// Control attributes: read by routing or by the exporter, and never written into a document's
// attributes.
const (
	DataStreamTypeAttribute      = "data_stream.type"
	DataStreamDatasetAttribute   = "data_stream.dataset"
	DataStreamNamespaceAttribute = "data_stream.namespace"
	IndexAttribute               = "elasticsearch.index"
	DocumentIDAttribute          = "elasticsearch.document_id"
	// IngestPipelineAttribute is the name the contrib exporter reads; DocumentPipelineAttribute
	// is the name its README gives. Both are accepted.
	IngestPipelineAttribute   = "elasticsearch.ingest_pipeline"
	DocumentPipelineAttribute = "elasticsearch.document_pipeline"
	MappingHintsAttribute     = "elasticsearch.mapping.hints"
	MappingModeAttribute      = "elastic.mapping.mode"
)

// EncodingFormatAttribute is the scope attribute that names the format an encoding extension
// decoded, such as aws.vpcflow. It may give the dataset but, unlike the control attributes, it
// stays in the document.
const EncodingFormatAttribute = "encoding.format"

// IsControlAttribute reports whether key is consumed by routing or by the exporter and must
// never be written into a document's attributes.
func IsControlAttribute(key string) bool {
	switch key {
	case DataStreamTypeAttribute, DataStreamDatasetAttribute, DataStreamNamespaceAttribute,
		IndexAttribute, DocumentIDAttribute, IngestPipelineAttribute, DocumentPipelineAttribute,
		MappingHintsAttribute, MappingModeAttribute:
		return true
	}
	return false
}

// DocumentID returns the document's _id from the attribute elasticsearch.document_id, looked up
// on the record, then the scope, then the resource. The first level that has the attribute
// decides: when its value is not a non-empty string the result is "" (Elasticsearch generates
// the id), and the lower levels are not consulted, so a record can opt out of an id set on its
// resource. The returned string is pdata's own; nothing is allocated.
func DocumentID(record, scope, resource pcommon.Map) string {
	for _, m := range [3]pcommon.Map{record, scope, resource} {
		if v, ok := m.Get(DocumentIDAttribute); ok {
			return nonEmptyStr(v)
		}
	}
	return ""
}

// Pipeline returns the ingest pipeline from the attribute elasticsearch.ingest_pipeline or
// elasticsearch.document_pipeline, looked up on the record, then the scope, then the resource.
// The first level that has either attribute decides, and on that level
// elasticsearch.ingest_pipeline wins. When the deciding value is not a non-empty string the
// result is "" (no pipeline). The returned string is pdata's own; nothing is allocated.
func Pipeline(record, scope, resource pcommon.Map) string {
	for _, m := range [3]pcommon.Map{record, scope, resource} {
		if v, ok := m.Get(IngestPipelineAttribute); ok {
			return nonEmptyStr(v)
		}
		if v, ok := m.Get(DocumentPipelineAttribute); ok {
			return nonEmptyStr(v)
		}
	}
	return ""
}

// nonEmptyStr returns v's string, or "" when v is not a string.
func nonEmptyStr(v pcommon.Value) string {
	if v.Type() != pcommon.ValueTypeStr {
		return ""
	}
	return v.Str()
}
