// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// With `cookies` set, a cookie that the server sets on a bulk response is sent back with the
// next bulk request, as confighttp's client does; without it, it is not.
func TestCookiesComeBack(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		t.Run(map[bool]string{true: "enabled", false: "disabled"}[enabled], func(t *testing.T) {
			srv := fakees.New(t)
			target, err := url.Parse(srv.URL)
			require.NoError(t, err)
			proxy := httputil.NewSingleHostReverseProxy(target)
			var mu sync.Mutex
			var seen []string // the Cookie header of each bulk request
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/_bulk" {
					mu.Lock()
					seen = append(seen, r.Header.Get("Cookie"))
					first := len(seen) == 1
					mu.Unlock()
					if first {
						http.SetCookie(w, &http.Cookie{Name: "lb", Value: "node-2", Path: "/"}) //nolint:gosec // a Secure cookie would not come back over the test's plain HTTP
					}
				}
				proxy.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)

			cfg := elasticsearchexporter.NewTestConfig(front.URL)
			if enabled {
				cfg.Cookies = configoptional.Some(confighttp.CookiesConfig{})
			}
			exp := elasticsearchexporter.NewLogsExporter(t, cfg, elasticsearchexporter.TestSettings())
			require.NoError(t, exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1)))
			require.NoError(t, exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1)))

			mu.Lock()
			defer mu.Unlock()
			require.Len(t, seen, 2)
			assert.Empty(t, seen[0], "no cookie before the server sets one")
			if enabled {
				assert.Equal(t, "lb=node-2", seen[1])
			} else {
				assert.Empty(t, seen[1])
			}
		})
	}
}
