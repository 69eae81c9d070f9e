// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
)

// EncodingFormatAttribute is the scope attribute that names the format an encoding extension
// decoded, such as aws.vpcflow. It may give the dataset but, unlike the control attributes, it
// stays in the document.
const EncodingFormatAttribute = "encoding.format"

// DocumentID returns the document's _id from the record attribute elasticsearch.document_id,
// as pdata's AsString writes its value (as in contrib): a string as it is, an int, a double or a
// bool in decimal or as true/false, bytes in standard base64, a map or a slice as JSON (one
// nested more than pvalue.MaxNesting levels as its type name, see pvalue.AsString). It
// returns "" (Elasticsearch generates the id) when the record does not have the attribute or
// its value writes as the empty string (an empty string, empty bytes or an empty value). Only
// the record is read, as in contrib: an id on a scope or a resource would give all its records
// the same _id, and all but one would be lost as duplicates. A string value is returned as
// pdata's own, with nothing allocated; the other types allocate their text.
func DocumentID(record pcommon.Map) string {
	if v, ok := record.Get(controlattr.DocumentID); ok {
		return pvalue.AsString(v)
	}
	return ""
}

// Pipeline returns the ingest pipeline from the record attribute elasticsearch.ingest_pipeline
// or elasticsearch.document_pipeline (elasticsearch.ingest_pipeline wins when both are set,
// whatever its value), written as [DocumentID] writes the id, or "" (no pipeline) when the
// record has neither or the deciding value writes as the empty string. Only the record is read,
// as in contrib. A string value is returned as pdata's own, with nothing allocated.
func Pipeline(record pcommon.Map) string {
	if v, ok := record.Get(controlattr.IngestPipeline); ok {
		return pvalue.AsString(v)
	}
	if v, ok := record.Get(controlattr.DocumentPipeline); ok {
		return pvalue.AsString(v)
	}
	return ""
}
