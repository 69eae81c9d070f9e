// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
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
			require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
			errs = append(errs, e.pipeline.PushLogs(context.Background(), testLogs(2)))
			require.Eventually(t, func() bool { return logs.FilterMessageSnippet("version check failed").Len() > 0 },
				10*time.Second, 5*time.Millisecond)
			require.NoError(t, e.shutdown(context.Background()))

			// A server that answers, with discovery (which the fake server refuses) and bodies logged.
			srv := fakees.New(t)
			srv.OnItem = failLog(0, fakees.Response{Status: 400, ErrorType: "document_parsing_exception", Reason: "failed"})
			cfg = newTestConfig("")
			place.set(t, cfg, strings.Replace(srv.URL, "http://", "http://elastic:"+urlSecret+"@", 1))
			cfg.Discovery.OnStart = true
			cfg.Telemetry.LogRequestBody, cfg.Telemetry.LogResponseBody = true, true
			e, err = newExporter(cfg, set)
			require.NoError(t, err)
			require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
			require.Eventually(t, func() bool { return logs.FilterMessage("Connected to Elasticsearch").Len() > 0 },
				10*time.Second, 5*time.Millisecond)
			errs = append(errs, e.pipeline.PushLogs(context.Background(), testLogs(2)))
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

// A TLS handshake refused for a setting fails the push at once and for good, saying what to
// check, instead of being retried as a network error for the whole retry budget: a server
// that requires a client certificate, and one that speaks only TLS 1.3 to a client that
// speaks at most 1.2.
func TestTLSSettingFailureIsNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		server func(*tls.Config)
		client func(*Config)
		want   string
	}{
		{
			name:   "client certificate required",
			server: func(c *tls.Config) { c.ClientAuth = tls.RequireAnyClientCert },
			want:   "the server requires a TLS client certificate; set tls::cert_file and tls::key_file",
		},
		{
			name:   "no TLS version in common",
			server: func(c *tls.Config) { c.MinVersion = tls.VersionTLS13 },
			client: func(c *Config) { c.TLS.MaxVersion = "1.2" },
			want:   "no TLS version or cipher suite in common",
		},
	}
	const maxRetries = 200
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var handshakes atomic.Int64
			srv := httptest.NewUnstartedServer(http.NotFoundHandler())
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
				handshakes.Add(1)
				return nil, nil
			}}
			tt.server(srv.TLS)
			srv.StartTLS()
			t.Cleanup(srv.Close)
			ca := filepath.Join(t.TempDir(), "ca.pem")
			require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))

			set, tel := withTelemetry(t)
			core, logs := observer.New(zapcore.InfoLevel)
			set.Logger = zap.New(core)
			cfg := newTestConfig(srv.URL)
			cfg.TLS.CAFile = ca
			if tt.client != nil {
				tt.client(cfg)
			}
			cfg.Retry.MaxRetries = maxRetries // with the test's short waits (at most 5 ms)
			cfg.LogsIndex = "logs-static"     // no data stream: no template check
			e, err := newExporter(cfg, set)
			require.NoError(t, err)
			require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
			t.Cleanup(func() { require.NoError(t, e.shutdown(context.Background())) })
			require.Eventually(t, func() bool { return handshakes.Load() == 1 }, 10*time.Second, time.Millisecond,
				"the version check's handshake")
			require.Eventually(t, func() bool { return logs.FilterMessageSnippet("version check failed").Len() == 1 },
				10*time.Second, time.Millisecond)
			assert.Contains(t, logs.FilterMessageSnippet("version check failed").All()[0].ContextMap()["error"], tt.want,
				"the version check says what to check too")

			start := time.Now()
			err = e.pipeline.PushLogs(context.Background(), testLogs(2))
			t.Logf("push failed after %s: %v", time.Since(start), err)
			require.ErrorContains(t, err, tt.want)
			assert.True(t, consumererror.IsPermanent(err))
			// The first attempt that reads the server's alert is the last, not 1+max_retries.
			// With TLS 1.3 the server refuses the missing client certificate after the client's
			// side of the handshake is done: an attempt can meet the closed connection (broken
			// pipe) before it reads the alert, and that is a network error, retried. How often
			// depends on the machine's load (about once in ten on a quiet one, 8 attempts in 9
			// seen on a loaded one), so the bound is the retry count, set high enough that a run
			// of that many broken pipes in a row does not happen.
			attempts := countertest.Sum(t, tel, "otelcol.elasticsearch.bulk_requests.attempts")
			t.Logf("%d attempts", attempts)
			assert.Positive(t, attempts)
			assert.Less(t, attempts, int64(1+maxRetries))
		})
	}
}

// include_source_on_error left unset: Elasticsearch's reasons for rejecting a document reach
// the log without its content, whatever the version check finds. Credentials without the
// monitor privilege (403 on GET /) no longer leave the parameter out for good (and the
// reasons with it); a server older than 8.18 gets no parameter once its version is known, and
// one that refuses the parameter has it dropped, with the reasons (which may then quote the
// document), at its first refusal.
func TestRejectionReasonsWithoutDocumentContent(t *testing.T) {
	tests := []struct {
		name        string
		version     string
		rootStatus  int
		refuse      bool
		wantParam   string // "" for none
		wantReason  bool
		wantRefusal int // 1: the refusal is logged, 0: it is not, -1: either (the push may pass the version check)
	}{
		{name: "9.1, version known", version: "9.1.0", wantParam: "false", wantReason: true},
		{name: "403 on GET /", version: "9.1.0", rootStatus: http.StatusForbidden, wantParam: "false", wantReason: true},
		{name: "8.17, version known", version: "8.17.0", refuse: true, wantRefusal: -1},
		{name: "8.17, 403 on GET /", version: "8.17.0", rootStatus: http.StatusForbidden, refuse: true, wantRefusal: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			srv.Version, srv.RootStatus, srv.RefuseIncludeSource = tt.version, tt.rootStatus, tt.refuse
			srv.OnItem = func(it fakees.Item) fakees.Response {
				if strings.Contains(string(it.Document), `"log 1"`) {
					reason := "failed to parse field [i]"
					if tt.refuse { // servers before 8.18 may quote the document
						reason += ", preview of field's value: 'log 1'"
					}
					return fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception", Reason: reason}
				}
				return fakees.Response{}
			}
			set, logs := observed()
			exp := newLogsExporter(t, newTestConfig(srv.URL), set)
			checked := "Connected to Elasticsearch"
			if tt.rootStatus != 0 {
				checked = "the `monitor` cluster privilege"
			}
			require.Eventually(t, func() bool { return logs.FilterMessageSnippet(checked).Len() == 1 }, 10*time.Second, 5*time.Millisecond)

			require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
			assert.Len(t, srv.Accepted(), 2)
			assert.Equal(t, tt.wantParam, srv.LastRequest().URL.Query().Get("include_source_on_error"))
			if refusals := logs.FilterMessageSnippet("refused the bulk parameter include_source_on_error").Len(); tt.wantRefusal >= 0 {
				assert.Equal(t, tt.wantRefusal, refusals)
			}
			failures := logs.FilterMessage("Documents not indexed").All()
			require.Len(t, failures, 1)
			line := failures[0].ContextMap()["failures"].(string)
			assert.Contains(t, line, "document_parsing_exception")
			assert.Equal(t, tt.wantReason, strings.Contains(line, "failed to parse field [i]"), line)
			for _, e := range logs.All() {
				assert.NotContains(t, fmt.Sprintf("%s %v", e.Message, e.ContextMap()), "'log 1'", "no document content")
			}
		})
	}
}
