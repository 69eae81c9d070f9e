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
	"go.opentelemetry.io/collector/config/confighttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// testConfig is a Config for one endpoint.
func testConfig(url string) Config {
	return Config{
		HTTP:      confighttp.NewDefaultClientConfig(),
		Endpoints: Endpoints{Endpoint: url},
	}
}

// newTestClient builds a Client whose logs are recorded, closed when the test ends.
func newTestClient(t *testing.T, cfg Config) (*Client, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	set := componenttest.NewNopTelemetrySettings()
	set.Logger = zap.New(core)
	build := component.BuildInfo{Command: "otelcol-test", Version: "1.2.3"}
	c, err := New(context.Background(), cfg, testHost{}, set, build)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close(context.Background())) })
	return c, logs
}

// get sends GET / through c and drains the answer.
func get(t *testing.T, c *Client) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", http.NoBody)
	require.NoError(t, err)
	resp, err := c.Perform(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

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
