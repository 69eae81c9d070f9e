// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

func TestIsControlAttribute(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{key: "data_stream.type", want: true},
		{key: "data_stream.dataset", want: true},
		{key: "data_stream.namespace", want: true},
		{key: "elasticsearch.index", want: true},
		{key: "elasticsearch.document_id", want: true},
		{key: "elasticsearch.ingest_pipeline", want: true},
		{key: "elasticsearch.document_pipeline", want: true},
		{key: "elasticsearch.mapping.hints", want: true},
		{key: "elastic.mapping.mode", want: true},
		{key: "", want: false},
		{key: "data_stream", want: false},
		{key: "data_stream.types", want: false},
		{key: "elasticsearch.index.prefix", want: false},
		{key: "ELASTICSEARCH.INDEX", want: false},
		{key: "encoding.format", want: false},
		{key: "service.name", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			assert.Equal(t, tt.want, IsControlAttribute(tt.key), "IsControlAttribute(%q)", tt.key)
		})
	}
}

func TestDocumentID(t *testing.T) {
	tests := []struct {
		name                    string
		record, scope, resource map[string]any
		want                    string
	}{
		{name: "absent", want: ""},
		{name: "record", record: map[string]any{DocumentIDAttribute: "r"}, scope: map[string]any{DocumentIDAttribute: "s"}, resource: map[string]any{DocumentIDAttribute: "res"}, want: "r"},
		{name: "scope over resource", scope: map[string]any{DocumentIDAttribute: "s"}, resource: map[string]any{DocumentIDAttribute: "res"}, want: "s"},
		{name: "resource", resource: map[string]any{DocumentIDAttribute: "res"}, want: "res"},
		{name: "int on the deciding level gives none", record: map[string]any{DocumentIDAttribute: 42}, resource: map[string]any{DocumentIDAttribute: "res"}, want: ""},
		{name: "bool gives none", scope: map[string]any{DocumentIDAttribute: true}, want: ""},
		{name: "bytes give none", record: map[string]any{DocumentIDAttribute: []byte("id")}, want: ""},
		{name: "empty string on the record opts out", record: map[string]any{DocumentIDAttribute: ""}, resource: map[string]any{DocumentIDAttribute: "res"}, want: ""},
		{name: "other attributes are ignored", record: map[string]any{"id": "x", IndexAttribute: "i"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DocumentID(attrs(t, tt.record), attrs(t, tt.scope), attrs(t, tt.resource)))
		})
	}
}

func TestPipeline(t *testing.T) {
	tests := []struct {
		name                    string
		record, scope, resource map[string]any
		want                    string
	}{
		{name: "absent", want: ""},
		{name: "ingest_pipeline on record", record: map[string]any{IngestPipelineAttribute: "p"}, want: "p"},
		{name: "document_pipeline on record", record: map[string]any{DocumentPipelineAttribute: "p"}, want: "p"},
		{name: "ingest_pipeline wins on the same level", scope: map[string]any{DocumentPipelineAttribute: "doc", IngestPipelineAttribute: "ingest"}, want: "ingest"},
		{name: "record document_pipeline over resource ingest_pipeline", record: map[string]any{DocumentPipelineAttribute: "rec"}, resource: map[string]any{IngestPipelineAttribute: "res"}, want: "rec"},
		{name: "record over scope over resource", record: map[string]any{IngestPipelineAttribute: "r"}, scope: map[string]any{IngestPipelineAttribute: "s"}, resource: map[string]any{IngestPipelineAttribute: "res"}, want: "r"},
		{name: "scope over resource", scope: map[string]any{DocumentPipelineAttribute: "s"}, resource: map[string]any{IngestPipelineAttribute: "res"}, want: "s"},
		{name: "resource", resource: map[string]any{DocumentPipelineAttribute: "res"}, want: "res"},
		{name: "non-string on the deciding level gives none", record: map[string]any{IngestPipelineAttribute: 1}, resource: map[string]any{IngestPipelineAttribute: "res"}, want: ""},
		{name: "non-string ingest_pipeline hides document_pipeline", record: map[string]any{IngestPipelineAttribute: 1, DocumentPipelineAttribute: "doc"}, want: ""},
		{name: "empty string on the record opts out", record: map[string]any{IngestPipelineAttribute: ""}, resource: map[string]any{IngestPipelineAttribute: "res"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Pipeline(attrs(t, tt.record), attrs(t, tt.scope), attrs(t, tt.resource)))
		})
	}
}

func TestDocumentIDAndPipelineDoNotAllocate(t *testing.T) {
	empty := pcommon.NewMap()
	resource := attrs(t, map[string]any{"service.name": "svc", DocumentIDAttribute: "id-1", DocumentPipelineAttribute: "pipe"})
	var id, pipeline string
	allocs := testing.AllocsPerRun(100, func() {
		id = DocumentID(empty, empty, resource)
		pipeline = Pipeline(empty, empty, resource)
	})
	assert.Zero(t, allocs)
	require.Equal(t, "id-1", id)
	require.Equal(t, "pipe", pipeline)
}
