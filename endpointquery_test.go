// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// The query string of `endpoint` is on the bulk requests that leave the exporter, beside the
// exporter's own parameters. The real node's answer (routing stored as _routing, the start-up
// checks unharmed) is in integrationtest/endpointquery_test.go.
func TestEndpointQueryStringReachesBulkRequests(t *testing.T) {
	srv := fakees.New(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL, func(cfg *Config) {
		cfg.Endpoints = nil
		cfg.Endpoint = srv.URL + "/?routing=abc&timeout=2m"
		cfg.Pipeline = "p"
	}), testSettings())
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
	assert.Len(t, srv.Accepted(), 3)
	req := srv.LastRequest()
	require.NotNil(t, req)
	assert.Equal(t, "/_bulk", req.URL.Path)
	q := req.URL.Query()
	assert.Equal(t, []string{"abc"}, q["routing"])
	assert.Equal(t, []string{"2m"}, q["timeout"])
	assert.Equal(t, []string{"p"}, q["pipeline"])
	assert.True(t, q.Has("filter_path"))
}

// The query strings refused at load, each with a message that names the setting.
func TestValidateEndpointQueryString(t *testing.T) {
	tests := []struct {
		name string
		conf map[string]any
		env  string
		msg  string
	}{
		{
			name: "pipeline_differs",
			conf: map[string]any{"endpoint": "https://es:9200?pipeline=a", "pipeline": "b"},
			msg:  "the endpoint URLs' query parameter pipeline=a and `pipeline` (b) name different ingest pipelines",
		},
		{
			name: "filter_path",
			conf: map[string]any{"endpoints": []any{"https://es:9200?filter_path=items"}},
			msg:  "`endpoints`[0]: the query parameter filter_path cannot be set in the URL: the exporter sets it from `bulk_response_filter_path`",
		},
		{
			name: "endpoints_differ",
			conf: map[string]any{"endpoints": []any{"https://a:9200?routing=x", "https://b:9200"}},
			msg:  "`endpoints`[1] has the query parameters \"\" and `endpoints`[0] \"routing=x\"",
		},
		{
			name: "env",
			env:  "https://a:9200?include_source_on_error=true",
			msg:  "ELASTICSEARCH_URL[0]: the query parameter include_source_on_error cannot be set in the URL",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(esclient.EnvURL, tt.env)
			cfg, err := unmarshalMap(tt.conf)
			require.NoError(t, err)
			assert.ErrorContains(t, cfg.Validate(), tt.msg)
		})
	}

	// The same pipeline in both places, or a pipeline parameter alone, loads.
	for _, conf := range []map[string]any{
		{"endpoint": "https://es:9200?pipeline=a", "pipeline": "a"},
		{"endpoint": "https://es:9200?pipeline=a"},
		{"endpoints": []any{"https://a:9200?routing=x&refresh=true", "https://b:9200/?refresh=true&routing=x"}},
	} {
		cfg, err := unmarshalMap(conf)
		require.NoError(t, err)
		assert.NoError(t, cfg.Validate(), "%v", conf)
	}
}
