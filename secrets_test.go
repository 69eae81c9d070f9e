// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// urlSecret is the password written into endpoint URLs by the tests of this file.
const urlSecret = "s3cr3t-Pw"

// No log line and no error of a run shows the password of an endpoint URL, whether the URL is
// in endpoint, endpoints or ELASTICSEARCH_URL: config validation of malformed URLs, a start
// that fails, a run against a server that is down (version check warning, push errors) and
// a run against a server that answers, with node discovery and body logging on.
func TestEndpointPasswordIsNeverLoggedNorReturned(t *testing.T) {
	places := []struct {
		name string
		set  func(t *testing.T, cfg *Config, url string)
	}{
		{"endpoint", func(_ *testing.T, cfg *Config, url string) { cfg.Endpoints, cfg.Endpoint = nil, url }},
		{"endpoints", func(_ *testing.T, cfg *Config, url string) { cfg.Endpoints = []string{"http://127.0.0.1:1", url} }},
		{esclient.EnvURL, func(t *testing.T, cfg *Config, url string) {
			t.Helper()
			cfg.Endpoints = nil
			t.Setenv(esclient.EnvURL, "http://127.0.0.1:1,"+url)
		}},
	}
	malformed := []string{
		"http://elastic:" + urlSecret + "@es-1:92a0",     // bad port
		"ftp://elastic:" + urlSecret + "@es-1:9200",      // bad scheme
		"elastic:" + urlSecret + "@es-1:9200",            // no scheme: parses as scheme "elastic"
		"http://elastic:" + urlSecret + "@",              // no host
		"http://elastic:" + urlSecret + "@es 1:9200",     // space in host
		"http://elastic:" + urlSecret + "\x7f@es-1:9200", // control character
		"https://elastic:" + urlSecret + "#x@es-1:9200",  // '#' in the password
	}
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			var errs []error
			core, logs := observer.New(zapcore.DebugLevel)
			set := testSettings()
			set.Logger = zap.New(core)

			for _, bad := range malformed {
				cfg := newTestConfig("")
				place.set(t, cfg, bad)
				err := cfg.Validate()
				require.Error(t, err, bad)
				errs = append(errs, err)
			}

			// A start that fails: the proxy's URL is only parsed there.
			cfg := newTestConfig("")
			place.set(t, cfg, "http://elastic:"+urlSecret+"@127.0.0.1:9200")
			cfg.ProxyURL = "http://proxy:" + urlSecret + "@proxy host:3128"
			e, err := newExporter(cfg, set)
			require.NoError(t, err)
			err = e.start(context.Background(), componenttest.NewNopHost())
			require.Error(t, err)
			errs = append(errs, err)
			require.NoError(t, e.shutdown(context.Background()))

			// A server that is down.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			down := l.Addr().String()
			require.NoError(t, l.Close())
			cfg = newTestConfig("")
			place.set(t, cfg, "http://elastic:"+urlSecret+"@"+down)
			cfg.Retry.MaxRetries = 1
			e, err = newExporter(cfg, set)
			require.NoError(t, err)
			e.versionRetry = time.Millisecond
			require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
			errs = append(errs, e.pushLogs(context.Background(), testLogs(2)))
			require.Eventually(t, func() bool { return logs.FilterMessageSnippet("version check failed").Len() > 0 },
				10*time.Second, 5*time.Millisecond)
			require.NoError(t, e.shutdown(context.Background()))

			// A server that answers, with discovery (which the fake server refuses) and bodies logged.
			srv := fakees.New(t)
			srv.OnItem = func(it fakees.Item) fakees.Response {
				if strings.Contains(string(it.Document), `"log 0"`) {
					return fakees.Response{Status: 400, ErrorType: "document_parsing_exception", Reason: "failed"}
				}
				return fakees.Response{}
			}
			cfg = newTestConfig("")
			place.set(t, cfg, strings.Replace(srv.URL, "http://", "http://elastic:"+urlSecret+"@", 1))
			cfg.Discovery.OnStart = true
			cfg.Telemetry.LogRequestBody, cfg.Telemetry.LogResponseBody = true, true
			e, err = newExporter(cfg, set)
			require.NoError(t, err)
			require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
			require.Eventually(t, func() bool { return logs.FilterMessage("Connected to Elasticsearch").Len() > 0 },
				10*time.Second, 5*time.Millisecond)
			errs = append(errs, e.pushLogs(context.Background(), testLogs(2)))
			require.NoError(t, e.shutdown(context.Background()))

			require.NotEmpty(t, logs.All())
			for _, err := range errs {
				if err != nil {
					assert.NotContains(t, err.Error(), urlSecret)
				}
			}
			for _, entry := range logs.All() {
				line := fmt.Sprintf("%s %v", entry.Message, entry.ContextMap())
				assert.NotContains(t, line, urlSecret)
			}
		})
	}
}
