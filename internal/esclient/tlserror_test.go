// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TLS handshakes that fail on a setting are told apart, with what to check, from network
// failures that waiting may fix. Each case is a real handshake against a local server.
func TestTLSConfigProblem(t *testing.T) {
	tests := []struct {
		name   string
		server func(*tls.Config)
		client func(*Config)
		hint   string // empty: not a TLS configuration problem
	}{
		{
			name:   "client certificate required (TLS 1.3)",
			server: func(c *tls.Config) { c.ClientAuth = tls.RequireAnyClientCert },
			hint:   "requires a TLS client certificate; set tls::cert_file",
		},
		{
			name:   "verified client certificate required, none given",
			server: func(c *tls.Config) { c.ClientAuth = tls.RequireAndVerifyClientCert },
			hint:   "requires a TLS client certificate; set tls::cert_file",
		},
		{
			name:   "client certificate required (TLS 1.2)",
			server: func(c *tls.Config) { c.ClientAuth, c.MaxVersion = tls.RequireAnyClientCert, tls.VersionTLS12 },
			hint:   "refused the TLS handshake",
		},
		{
			name:   "server speaks only TLS 1.3, client at most 1.2",
			server: func(c *tls.Config) { c.MinVersion = tls.VersionTLS13 },
			client: func(c *Config) { c.HTTP.TLS.MaxVersion = "1.2" },
			hint:   "no TLS version or cipher suite in common",
		},
		{
			name: "no cipher suite in common",
			server: func(c *tls.Config) {
				c.MaxVersion, c.CipherSuites = tls.VersionTLS12, []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA}
			},
			client: func(c *Config) {
				c.HTTP.TLS.MaxVersion, c.HTTP.TLS.CipherSuites = "1.2", []string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"}
			},
			hint: "refused the TLS handshake",
		},
		{
			name:   "server certificate not trusted",
			server: func(*tls.Config) {},
			client: func(c *Config) { c.HTTP.TLS.CAFile = "" },
			hint:   "certificate cannot be verified: the CA certificate it sent is \"O=Acme Co\", SHA-256 fingerprint ",
		},
		{
			name:   "server certificate for another name",
			server: func(*tls.Config) {},
			client: func(c *Config) { c.HTTP.TLS.ServerName = "elsewhere.example" },
			hint:   "is not for the endpoint's host; check the endpoint or tls::server_name_override",
		},
		{
			name:   "server certificate expired",
			server: func(c *tls.Config) { c.Certificates = []tls.Certificate{expiredCert(t)} },
			hint:   "has expired or is not valid yet",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := newTLSTestServer(t, tt.server)
			if tt.client != nil {
				tt.client(&cfg)
			}
			c, _ := newTestClient(t, cfg)
			err := performErr(t, c)
			require.Error(t, err)
			hint, ok := TLSConfigProblem(fmt.Errorf("failed to execute the request: %w", err))
			assert.True(t, ok, "%v", err)
			assert.Contains(t, hint, tt.hint, "%v", err)
		})
	}

	t.Run("https endpoint on a plain HTTP port", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		t.Cleanup(srv.Close)
		c, _ := newTestClient(t, testConfig("https"+srv.URL[len("http"):]))
		hint, ok := TLSConfigProblem(performErr(t, c))
		assert.True(t, ok)
		assert.Contains(t, hint, "does not answer TLS")
	})
	t.Run("a handshake that succeeds", func(t *testing.T) {
		cfg := newTLSTestServer(t, func(*tls.Config) {})
		c, _ := newTestClient(t, cfg)
		require.NoError(t, performErr(t, c))
	})
}

// Network failures, and alerts that say nothing about the settings, may pass: they are not
// TLS configuration problems.
func TestTLSConfigProblemLeavesTransientFailures(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			_ = conn.Close() // a server that drops the connection during the handshake
		}
	}()
	c, _ := newTestClient(t, testConfig("https://"+addr))
	dropped := performErr(t, c)
	require.Error(t, dropped)
	require.NoError(t, l.Close())
	refused := performErr(t, c)
	require.Error(t, refused)

	for _, err := range []error{
		nil, dropped, refused, context.Canceled, context.DeadlineExceeded, io.ErrUnexpectedEOF,
		tls.AlertError(80), // internal_error
		&net.OpError{Op: "remote error", Err: errors.New("tls: internal error")},
	} {
		_, ok := TLSConfigProblem(err)
		assert.False(t, ok, "%v", err)
	}
	hint, ok := TLSConfigProblem(fmt.Errorf("quic: %w", tls.AlertError(116)))
	assert.True(t, ok)
	assert.Contains(t, hint, "client certificate")
}
