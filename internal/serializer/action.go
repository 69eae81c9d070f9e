// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

// DynamicTemplate is one entry of a bulk item's dynamic_templates: the field path and the
// name of the template Elasticsearch maps it with.
type DynamicTemplate struct {
	Path, Template string
}

// AppendAction appends the action line of a bulk request's create item, without its newline:
// {"create":{"_id":…,"_index":…,"pipeline":…,"dynamic_templates":{…},"require_data_stream":true}},
// each field only when set, in the order go-docappender writes them, the dynamic templates in
// the order given.
func AppendAction(dst []byte, index, id, pipeline string, templates []DynamicTemplate, requireDataStream bool) []byte {
	w := writer{buf: dst}
	w.raw(`{"create":{`)
	sep := false
	field := func(key string) {
		if sep {
			w.byte(',')
		}
		sep = true
		w.raw(key)
	}
	if id != "" {
		field(`"_id":`)
		w.str(id)
	}
	if index != "" {
		field(`"_index":`)
		w.str(index)
	}
	if pipeline != "" {
		field(`"pipeline":`)
		w.str(pipeline)
	}
	if len(templates) > 0 {
		field(`"dynamic_templates":{`)
		for i, t := range templates {
			if i > 0 {
				w.byte(',')
			}
			w.str(t.Path)
			w.byte(':')
			w.str(t.Template)
		}
		w.byte('}')
	}
	if requireDataStream {
		field(`"require_data_stream":true`)
	}
	w.raw(`}}`)
	return w.buf
}
