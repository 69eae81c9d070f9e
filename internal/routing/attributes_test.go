// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

func TestDocumentID(t *testing.T) {
	tests := []struct {
		name                    string
		record, scope, resource map[string]any
		want                    string
	}{
		{name: "absent", want: ""},
		{name: "record", record: map[string]any{controlattr.DocumentID: "r"}, scope: map[string]any{controlattr.DocumentID: "s"}, resource: map[string]any{controlattr.DocumentID: "res"}, want: "r"},
		{name: "scope over resource", scope: map[string]any{controlattr.DocumentID: "s"}, resource: map[string]any{controlattr.DocumentID: "res"}, want: "s"},
		{name: "resource", resource: map[string]any{controlattr.DocumentID: "res"}, want: "res"},
		{name: "int on the deciding level gives none", record: map[string]any{controlattr.DocumentID: 42}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "bool gives none", scope: map[string]any{controlattr.DocumentID: true}, want: ""},
		{name: "bytes give none", record: map[string]any{controlattr.DocumentID: []byte("id")}, want: ""},
		{name: "empty string on the record opts out", record: map[string]any{controlattr.DocumentID: ""}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "other attributes are ignored", record: map[string]any{"id": "x", controlattr.Index: "i"}, want: ""},
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
		{name: "ingest_pipeline on record", record: map[string]any{controlattr.IngestPipeline: "p"}, want: "p"},
		{name: "document_pipeline on record", record: map[string]any{controlattr.DocumentPipeline: "p"}, want: "p"},
		{name: "ingest_pipeline wins on the same level", scope: map[string]any{controlattr.DocumentPipeline: "doc", controlattr.IngestPipeline: "ingest"}, want: "ingest"},
		{name: "record document_pipeline over resource ingest_pipeline", record: map[string]any{controlattr.DocumentPipeline: "rec"}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: "rec"},
		{name: "record over scope over resource", record: map[string]any{controlattr.IngestPipeline: "r"}, scope: map[string]any{controlattr.IngestPipeline: "s"}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: "r"},
		{name: "scope over resource", scope: map[string]any{controlattr.DocumentPipeline: "s"}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: "s"},
		{name: "resource", resource: map[string]any{controlattr.DocumentPipeline: "res"}, want: "res"},
		{name: "non-string on the deciding level gives none", record: map[string]any{controlattr.IngestPipeline: 1}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: ""},
		{name: "non-string ingest_pipeline hides document_pipeline", record: map[string]any{controlattr.IngestPipeline: 1, controlattr.DocumentPipeline: "doc"}, want: ""},
		{name: "empty string on the record opts out", record: map[string]any{controlattr.IngestPipeline: ""}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Pipeline(attrs(t, tt.record), attrs(t, tt.scope), attrs(t, tt.resource)))
		})
	}
}

func TestDocumentIDAndPipelineDoNotAllocate(t *testing.T) {
	empty := pcommon.NewMap()
	resource := attrs(t, map[string]any{"service.name": "svc", controlattr.DocumentID: "id-1", controlattr.DocumentPipeline: "pipe"})
	var id, pipeline string
	allocs := testing.AllocsPerRun(100, func() {
		id = DocumentID(empty, empty, resource)
		pipeline = Pipeline(empty, empty, resource)
	})
	assert.Zero(t, allocs)
	require.Equal(t, "id-1", id)
	require.Equal(t, "pipe", pipeline)
}
