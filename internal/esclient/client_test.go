// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
)

func TestUserAgent(t *testing.T) {
	assert.Equal(t, "otelcol-es/0.1.0 elasticsearchexporter", userAgent(component.BuildInfo{Command: "otelcol-es", Version: "0.1.0"}))
	assert.Equal(t, "otelcol/0.1.0 elasticsearchexporter", userAgent(component.BuildInfo{Version: "0.1.0"}), "a build without a command name")
}

func TestRequestsCarryCredentialsAndUserAgent(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"api_key", func(c *Config) { c.APIKey = "id:key" }, "APIKey aWQ6a2V5"},
		{"basic", func(c *Config) { c.User, c.Password = "elastic", "s3cret" }, "Basic ZWxhc3RpYzpzM2NyZXQ="},
		{"none", func(*Config) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h = r.Header.Clone()
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig(srv.URL)
			tt.edit(&cfg)
			c, _ := newTestClient(t, cfg)
			get(t, c)
			assert.Equal(t, tt.want, h.Get("Authorization"))
			assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "otelcol-test/1.2.3 elasticsearchexporter"), h.Get("User-Agent"))
		})
	}
}

func TestNewRefusesBadEndpoints(t *testing.T) {
	set := componenttest.NewNopTelemetrySettings()
	_, err := New(context.Background(), testConfig("ftp://es-1:9200"), componenttest.NewNopHost(), set, component.NewDefaultBuildInfo())
	require.EqualError(t, err, "`endpoint`: URL \"ftp://es-1:9200\" must start with http:// or https://")
}
