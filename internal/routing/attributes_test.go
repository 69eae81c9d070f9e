// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// TestDocumentID checks that the id is read from the record only: an id on the scope or the
// resource, which the table also sets, is ignored, as in contrib.
func TestDocumentID(t *testing.T) {
	tests := []struct {
		name                    string
		record, scope, resource map[string]any
		want                    string
	}{
		{name: "absent", want: ""},
		{name: "record", record: map[string]any{controlattr.DocumentID: "r"}, scope: map[string]any{controlattr.DocumentID: "s"}, resource: map[string]any{controlattr.DocumentID: "res"}, want: "r"},
		{name: "scope is not read", scope: map[string]any{controlattr.DocumentID: "s"}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "resource is not read", resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "int gives none", record: map[string]any{controlattr.DocumentID: 42}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "bool gives none", record: map[string]any{controlattr.DocumentID: true}, want: ""},
		{name: "bytes give none", record: map[string]any{controlattr.DocumentID: []byte("id")}, want: ""},
		{name: "empty string gives none", record: map[string]any{controlattr.DocumentID: ""}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "other attributes are ignored", record: map[string]any{"id": "x", controlattr.Index: "i"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DocumentID(attrs(t, tt.record)))
			r, err := NewRouter(Settings{})
			require.NoError(t, err)
			record := attrs(t, tt.record)
			r.SetScope(TypeLogs, attrs(t, tt.scope), attrs(t, tt.resource), "")
			assert.Equal(t, tt.want, r.DocumentID(ScanRecord(record), record), "Router.DocumentID")
		})
	}
}

// TestPipeline checks that the pipeline is read from the record only, as in contrib.
func TestPipeline(t *testing.T) {
	tests := []struct {
		name                    string
		record, scope, resource map[string]any
		want                    string
	}{
		{name: "absent", want: ""},
		{name: "ingest_pipeline on record", record: map[string]any{controlattr.IngestPipeline: "p"}, want: "p"},
		{name: "document_pipeline on record", record: map[string]any{controlattr.DocumentPipeline: "p"}, want: "p"},
		{name: "ingest_pipeline wins", record: map[string]any{controlattr.DocumentPipeline: "doc", controlattr.IngestPipeline: "ingest"}, want: "ingest"},
		{name: "record over scope and resource", record: map[string]any{controlattr.IngestPipeline: "r"}, scope: map[string]any{controlattr.IngestPipeline: "s"}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: "r"},
		{name: "scope is not read", scope: map[string]any{controlattr.DocumentPipeline: "s"}, want: ""},
		{name: "resource is not read", resource: map[string]any{controlattr.DocumentPipeline: "res", controlattr.IngestPipeline: "res"}, want: ""},
		{name: "non-string gives none", record: map[string]any{controlattr.IngestPipeline: 1}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: ""},
		{name: "non-string ingest_pipeline hides document_pipeline", record: map[string]any{controlattr.IngestPipeline: 1, controlattr.DocumentPipeline: "doc"}, want: ""},
		{name: "empty string gives none", record: map[string]any{controlattr.IngestPipeline: ""}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Pipeline(attrs(t, tt.record)))
			r, err := NewRouter(Settings{})
			require.NoError(t, err)
			record := attrs(t, tt.record)
			r.SetScope(TypeLogs, attrs(t, tt.scope), attrs(t, tt.resource), "")
			assert.Equal(t, tt.want, r.Pipeline(ScanRecord(record), record), "Router.Pipeline")
		})
	}
}

func TestDocumentIDAndPipelineDoNotAllocate(t *testing.T) {
	record := attrs(t, map[string]any{"service.name": "svc", controlattr.DocumentID: "id-1", controlattr.DocumentPipeline: "pipe"})
	var id, pipeline string
	allocs := testing.AllocsPerRun(100, func() {
		id = DocumentID(record)
		pipeline = Pipeline(record)
	})
	assert.Zero(t, allocs)
	require.Equal(t, "id-1", id)
	require.Equal(t, "pipe", pipeline)
}
