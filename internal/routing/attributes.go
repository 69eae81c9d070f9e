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

// DocumentID returns the document's _id from the attribute elasticsearch.document_id, looked up
// on the record, then the scope, then the resource. The first level that has the attribute
// decides: when its value is not a non-empty string the result is "" (Elasticsearch generates
// the id), and the lower levels are not consulted, so a record can opt out of an id set on its
// resource. The returned string is pdata's own; nothing is allocated.
func DocumentID(record, scope, resource pcommon.Map) string {
	for _, m := range [3]pcommon.Map{record, scope, resource} {
		if v, ok := m.Get(controlattr.DocumentID); ok {
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
		if v, ok := m.Get(controlattr.IngestPipeline); ok {
			return nonEmptyStr(v)
		}
		if v, ok := m.Get(controlattr.DocumentPipeline); ok {
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
