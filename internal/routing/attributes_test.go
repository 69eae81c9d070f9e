// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// TestDocumentID checks that the id is read from the record only: an id on the scope or the
// resource, which the table also sets, is ignored, as in contrib; and that a value of any type
// gives the text that pdata's AsString writes, as in contrib.
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
		{name: "int in decimal", record: map[string]any{controlattr.DocumentID: 42}, resource: map[string]any{controlattr.DocumentID: "res"}, want: "42"},
		{name: "negative int", record: map[string]any{controlattr.DocumentID: -7}, want: "-7"},
		{name: "double", record: map[string]any{controlattr.DocumentID: 1.5}, want: "1.5"},
		{name: "whole double", record: map[string]any{controlattr.DocumentID: 3.0}, want: "3"},
		{name: "large double with exponent", record: map[string]any{controlattr.DocumentID: 1e21}, want: "1e+21"},
		{name: "bool", record: map[string]any{controlattr.DocumentID: true}, want: "true"},
		{name: "bytes in base64", record: map[string]any{controlattr.DocumentID: []byte("id\xff")}, want: "aWT/"},
		{name: "map as JSON", record: map[string]any{controlattr.DocumentID: map[string]any{"b": "<q\"x>", "a": 1}}, want: `{"a":1,"b":"<q\"x>"}`},
		{name: "slice as JSON", record: map[string]any{controlattr.DocumentID: []any{"a", 2, false}}, want: `["a",2,false]`},
		{name: "empty map", record: map[string]any{controlattr.DocumentID: map[string]any{}}, want: "{}"},
		{name: "empty bytes give none", record: map[string]any{controlattr.DocumentID: []byte{}}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "empty value gives none", record: map[string]any{controlattr.DocumentID: nil}, want: ""},
		{name: "empty string gives none", record: map[string]any{controlattr.DocumentID: ""}, resource: map[string]any{controlattr.DocumentID: "res"}, want: ""},
		{name: "other attributes are ignored", record: map[string]any{"id": "x", controlattr.Index: "i"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DocumentID(attrs(t, tt.record)))
			r, err := NewRouter(Settings{})
			require.NoError(t, err)
			record := attrs(t, tt.record)
			r.SetScope(signal.Logs, attrs(t, tt.scope), attrs(t, tt.resource), "")
			assert.Equal(t, tt.want, r.DocumentID(ScanRecord(record), record), "Router.DocumentID")
		})
	}
}

// TestDeepIDAndPipeline: an id or a pipeline nested beyond pvalue.MaxNesting converts as
// pvalue.AsString converts it (its type name), without pdata's recursion.
func TestDeepIDAndPipeline(t *testing.T) {
	record := pcommon.NewMap()
	for _, key := range []string{controlattr.DocumentID, controlattr.IngestPipeline} {
		v := record.PutEmpty(key)
		for range pvalue.MaxNesting + 1 {
			v = v.SetEmptyMap().PutEmpty("k")
		}
		v.SetStr("leaf")
	}
	assert.Equal(t, "Map", DocumentID(record))
	assert.Equal(t, "Map", Pipeline(record))
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
		{name: "int", record: map[string]any{controlattr.IngestPipeline: 1}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: "1"},
		{name: "int document_pipeline", record: map[string]any{controlattr.DocumentPipeline: 2}, want: "2"},
		{name: "double", record: map[string]any{controlattr.IngestPipeline: 0.25}, want: "0.25"},
		{name: "bool", record: map[string]any{controlattr.IngestPipeline: false}, want: "false"},
		{name: "bytes in base64", record: map[string]any{controlattr.IngestPipeline: []byte("pipe")}, want: "cGlwZQ=="},
		{name: "map as JSON", record: map[string]any{controlattr.IngestPipeline: map[string]any{"p": "x"}}, want: `{"p":"x"}`},
		{name: "slice as JSON", record: map[string]any{controlattr.DocumentPipeline: []any{1, "a"}}, want: `[1,"a"]`},
		{name: "non-string ingest_pipeline still wins", record: map[string]any{controlattr.IngestPipeline: 1, controlattr.DocumentPipeline: "doc"}, want: "1"},
		{name: "empty ingest_pipeline hides document_pipeline", record: map[string]any{controlattr.IngestPipeline: "", controlattr.DocumentPipeline: "doc"}, want: ""},
		{name: "empty value gives none", record: map[string]any{controlattr.IngestPipeline: nil}, want: ""},
		{name: "empty string gives none", record: map[string]any{controlattr.IngestPipeline: ""}, resource: map[string]any{controlattr.IngestPipeline: "res"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Pipeline(attrs(t, tt.record)))
			r, err := NewRouter(Settings{})
			require.NoError(t, err)
			record := attrs(t, tt.record)
			r.SetScope(signal.Logs, attrs(t, tt.scope), attrs(t, tt.resource), "")
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
