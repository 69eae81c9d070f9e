// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectProxy is an HTTP proxy for CONNECT only: it answers status when status is not 200,
// and otherwise opens the tunnel to the requested address.
func connectProxy(t *testing.T, status int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		upstream, err := net.Dial("tcp", r.Host) //nolint:gosec // a CONNECT proxy dials the address its client asks for; only the test's client reaches it
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		// The 200 goes on the hijacked connection itself: a response written before Hijack
		// may not have been sent yet, and is not sent after it.
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			_ = upstream.Close()
			return
		}
		if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			_ = upstream.Close()
			_ = conn.Close()
			return
		}
		if n := buf.Reader.Buffered(); n > 0 {
			// What the client sent right after the CONNECT, already read from the connection.
			b, _ := buf.Peek(n)
			if _, err := upstream.Write(b); err != nil {
				_ = upstream.Close()
				_ = conn.Close()
				return
			}
		}
		go func() { _, _ = io.Copy(upstream, conn); _ = upstream.Close() }()
		_, _ = io.Copy(conn, upstream)
		_ = conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// versionError runs the version check's request once and returns its error.
func versionError(t *testing.T, cfg Config) error {
	t.Helper()
	c, _ := newTestClient(t, cfg)
	_, _, _, err := c.serverVersion(context.Background())
	require.Error(t, err)
	return err
}

func TestProxyRefusingTheTunnelIsNamed(t *testing.T) {
	proxy := connectProxy(t, http.StatusForbidden)
	cfg := testConfig("https://127.0.0.1:9")
	cfg.HTTP.ProxyURL = proxy.URL
	err := versionError(t, cfg)
	assert.Contains(t, err.Error(), "GET /: the proxy "+proxy.URL+" (proxy_url) did not open a tunnel to 127.0.0.1:9: "+
		`it answered the CONNECT with "Forbidden"; check that the proxy allows CONNECT to that host and port, or change proxy_url`)
}

func TestUnreachableProxyIsNamed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg := testConfig("https://127.0.0.1:9")
	cfg.HTTP.ProxyURL = "http://user:secret@" + addr
	err = versionError(t, cfg)
	assert.Contains(t, err.Error(), "GET /: cannot connect to the proxy http://user:xxxxx@"+addr+" (proxy_url); check proxy_url and that the proxy runs")
	assert.NotContains(t, err.Error(), "secret")
}

// Once the proxy opened the tunnel, a failure is the server's: here its certificate, which no
// configured CA signed.
func TestFailureBeyondTheTunnelIsTheServers(t *testing.T) {
	server := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(server.Close)
	proxy := connectProxy(t, http.StatusOK)
	cfg := testConfig(server.URL)
	cfg.HTTP.ProxyURL = proxy.URL
	err := versionError(t, cfg)
	assert.Contains(t, err.Error(), "GET /: the server's TLS certificate cannot be verified: the CA certificate it sent is")
	assert.NotContains(t, err.Error(), "proxy")
}

// Without proxy_url, a loopback endpoint is never sent through a proxy of the environment
// (http.ProxyFromEnvironment), so no failure is the proxy's.
func TestNoProxyNoProxyHint(t *testing.T) {
	r := newProxyRoute("")
	req := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:9/", http.NoBody)
	proxy, _ := r.of(req)
	assert.Nil(t, proxy)
	_, ok := r.proxyProblem(req, &proxyTrace{}, io.EOF)
	assert.False(t, ok)
}
