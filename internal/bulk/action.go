// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import "github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"

// DynamicTemplate is one entry of a bulk item's dynamic_templates: the field path and the
// name of the template Elasticsearch maps it with.
type DynamicTemplate struct {
	Path, Template string
}

// appendAction appends the action line of a bulk request's create item, without its newline:
// {"create":{"_id":…,"_index":…,"pipeline":…,"dynamic_templates":{…},"require_data_stream":true}},
// each field only when set, in the order go-docappender writes them, the dynamic templates in
// the order given. Invalid UTF-8 in a string is written as U+FFFD, as in the documents.
func appendAction(dst []byte, index, id, pipeline string, templates []DynamicTemplate, requireDataStream bool) []byte {
	dst = append(dst, `{"create":{`...)
	first := len(dst) // a field written after this one takes a comma
	field := func(dst []byte, key string) []byte {
		if len(dst) > first {
			dst = append(dst, ',')
		}
		return append(dst, key...)
	}
	if id != "" {
		dst = field(dst, `"_id":`)
		dst, _ = jsonstr.Append(dst, id)
	}
	if index != "" {
		dst = field(dst, `"_index":`)
		dst, _ = jsonstr.Append(dst, index)
	}
	if pipeline != "" {
		dst = field(dst, `"pipeline":`)
		dst, _ = jsonstr.Append(dst, pipeline)
	}
	if len(templates) > 0 {
		dst = field(dst, `"dynamic_templates":{`)
		for i, t := range templates {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = jsonstr.Append(dst, t.Path)
			dst = append(dst, ':')
			dst, _ = jsonstr.Append(dst, t.Template)
		}
		dst = append(dst, '}')
	}
	if requireDataStream {
		dst = field(dst, `"require_data_stream":true`)
	}
	return append(dst, `}}`...)
}
