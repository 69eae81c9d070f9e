// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// SetDataset replaces the dataset attributes and the derived dataset; the namespace is still
// looked up, and a static index, elasticsearch.index and logstash_format still apply.
func TestSetDataset(t *testing.T) {
	record := attrs(t, map[string]any{"data_stream.dataset": "ignored", "data_stream.namespace": "Prod"})
	scope := attrs(t, map[string]any{"encoding.format": "ignored too"})
	empty := pcommon.NewMap()
	tests := []struct {
		name     string
		settings Settings
		dataset  string
		record   pcommon.Map
		want     Target
	}{
		{name: "error", dataset: APMErrorDataset, record: record, want: dataStream("logs", "apm.error", "prod")},
		{name: "service sanitized", dataset: APMAppDatasetPrefix + "Check-Out/EU", record: empty, want: dataStream("logs", "apm.app.check_out_eu", "default")},
		{name: "unset", dataset: "", record: record, want: dataStream("logs", "ignored", "prod")},
		{name: "static index", settings: Settings{StaticIndex: "events"}, dataset: APMErrorDataset, record: record, want: index("events")},
		{
			name: "elasticsearch.index", dataset: APMErrorDataset,
			record: attrs(t, map[string]any{"elasticsearch.index": "mine"}), want: index("mine"),
		},
		{
			name: "logstash_format", settings: Settings{LogstashFormat: true}, dataset: APMErrorDataset,
			record: empty, want: index("logs-apm.error-default-1970.01.01"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRouter(tt.settings)
			require.NoError(t, err)
			r.SetMode(false, false)
			r.SetScope(signal.Logs, scope, empty, "scope")
			// A route prepared for the scope before SetDataset is not reused.
			_, err = r.RouteRecord(0, empty, 0)
			require.NoError(t, err)
			r.SetDataset(tt.dataset)
			assert.Equal(t, tt.dataset, r.Dataset())
			got, err := r.RouteRecord(ScanRecord(tt.record), tt.record, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
