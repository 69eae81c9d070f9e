// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
