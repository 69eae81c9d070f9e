// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package controlattr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIs(t *testing.T) {
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
			assert.Equal(t, tt.want, Is(tt.key), "Is(%q)", tt.key)
		})
	}
}
