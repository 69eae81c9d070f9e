// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
)

// The query string of the endpoints reaches the node on every bulk request: routing=abc is
// stored as each document's _routing, and refresh=true makes the documents searchable when the
// push returns, without a refresh of the test's. The start-up checks go without it (the node
// refuses routing on GET /, so the version check would fail), and so does discovery, whose
// nodes (URLs without a query string, which replace the single endpoint) are sent the
// parameters too. The documents go to an index in the ecs mode: a data stream takes a custom
// routing only when its template allows it (allow_custom_routing).
func TestEndpointQueryParameters(t *testing.T) {
	for _, tt := range []struct {
		name      string
		endpoints []string
		discover  bool
	}{
		{name: "endpoints", endpoints: []string{"?routing=abc&refresh=true", "/?refresh=true&routing=abc"}},
		{name: "discovered", endpoints: []string{"?routing=abc&refresh=true"}, discover: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSuite(t)
			index := s.id + "-routed"
			t.Cleanup(func() { _, _, _ = s.es.Do(http.MethodDelete, "/"+index, nil) })
			cfg := s.config()
			cfg.Endpoints = nil
			for _, q := range tt.endpoints {
				cfg.Endpoints = append(cfg.Endpoints, s.es.Endpoint+q)
			}
			cfg.Discovery.OnStart = tt.discover
			cfg.Mapping.AllowedModes = []string{"ecs"}
			cfg.LogsIndex = index
			exp := s.logsExporter(t, cfg)
			s.waitConnected(t)
			require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(3)))

			// No refresh first: refresh=true made the documents visible.
			assert.Equal(t, 3, s.es.Count(t, index))
			assert.Equal(t, []string{"abc", "abc", "abc"}, routings(t, s, index))
			assert.Equal(t, int64(3), s.docs(t, "indexed"))
			for _, e := range s.logs.All() {
				assert.Less(t, e.Level, zapcore.WarnLevel, "%s %s", e.Message, jsonString(e.ContextMap()))
			}
		})
	}
}

// A query parameter that Elasticsearch does not take fails every bulk request, and the push
// says why in Elasticsearch's words.
func TestEndpointQueryParameterUnknownToTheNode(t *testing.T) {
	s := newSuite(t)
	cfg := s.config()
	cfg.Endpoint, cfg.Endpoints = s.es.Endpoint+"?routng=abc", nil
	exp := s.logsExporter(t, cfg)
	s.waitConnected(t)
	err := exp.ConsumeLogs(context.Background(), s.logsData(1))
	require.Error(t, err)
	t.Log(err)
	assert.Contains(t, err.Error(), "unrecognized parameter: [routng]")
	assert.Equal(t, 0, s.es.Count(t, "logs-"+s.id+".otel-default"))
}

// routings returns the _routing of the documents of index.
func routings(t *testing.T, s *suite, index string) []string {
	t.Helper()
	body := s.es.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_search", map[string]any{"size": 100})
	var r struct {
		Hits struct {
			Hits []struct {
				Routing string `json:"_routing"`
			} `json:"hits"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal(body, &r), string(body))
	out := make([]string, 0, len(r.Hits.Hits))
	for _, h := range r.Hits.Hits {
		out = append(out, h.Routing)
	}
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
