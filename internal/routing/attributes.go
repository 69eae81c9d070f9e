// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// EncodingFormatAttribute is the scope attribute that names the format an encoding extension
// decoded, such as aws.vpcflow. It may give the dataset but, unlike the control attributes, it
// stays in the document.
const EncodingFormatAttribute = "encoding.format"

// DocumentID returns the document's _id from the record attribute elasticsearch.document_id,
// or "" (Elasticsearch generates the id) when the record does not have it or its value is not a
// non-empty string. Only the record is read, as in contrib: an id on a scope or a resource would
// give all its records the same _id, and all but one would be lost as duplicates. The returned
// string is pdata's own; nothing is allocated.
func DocumentID(record pcommon.Map) string {
	if v, ok := record.Get(controlattr.DocumentID); ok {
		return nonEmptyStr(v)
	}
	return ""
}

// Pipeline returns the ingest pipeline from the record attribute elasticsearch.ingest_pipeline
// or elasticsearch.document_pipeline (elasticsearch.ingest_pipeline wins when both are set), or
// "" (no pipeline) when the record has neither or the deciding value is not a non-empty string.
// Only the record is read, as in contrib. The returned string is pdata's own; nothing is
// allocated.
func Pipeline(record pcommon.Map) string {
	if v, ok := record.Get(controlattr.IngestPipeline); ok {
		return nonEmptyStr(v)
	}
	if v, ok := record.Get(controlattr.DocumentPipeline); ok {
		return nonEmptyStr(v)
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
