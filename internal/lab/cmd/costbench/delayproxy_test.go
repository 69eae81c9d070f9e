// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// The proxy holds each request for the delay and passes it on as it came, to a recorder in
// front of the fake Elasticsearch that keeps what reached it (the gzipped body as it was sent)
// and lets the fake answer.
func TestDelayProxy(t *testing.T) {
	type seen struct {
		method, uri string
		header      http.Header
		body        []byte
	}
	got := make(chan seen, 1)
	es := fakees.New(t)
	node := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		got <- seen{r.Method, r.RequestURI, r.Header.Clone(), b}
		r.Body = io.NopCloser(bytes.NewReader(b))
		es.Config.Handler.ServeHTTP(w, r)
	}))
	defer node.Close()

	const delay = 60 * time.Millisecond
	p, err := newDelayProxy(node.URL, node.Client().Transport.(*http.Transport).TLSClientConfig, delay)
	require.NoError(t, err)
	defer p.Close()

	// The collector trusts the proxy through the CA file it writes.
	caFile := filepath.Join(t.TempDir(), "proxy-ca.pem")
	require.NoError(t, p.writeCA(caFile))
	pemBytes, err := os.ReadFile(caFile)
	require.NoError(t, err)
	block, _ := pem.Decode(pemBytes)
	require.NotNil(t, block)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("{\"create\":{\"_index\":\"logs-a\"}}\n{\"body\":\"x\"}\n"))
	require.NoError(t, zw.Close())
	body := gz.Bytes()

	for range 2 { // a fresh connection, then a kept-alive one: both are held
		req, err := http.NewRequest(http.MethodPost, p.URL()+"/_bulk?filter_path=items.*._index", bytes.NewReader(body))
		require.NoError(t, err)
		req.SetBasicAuth("elastic", "secret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		req.Header.Set("Accept-Encoding", "gzip")
		start := time.Now()
		resp, err := client.Do(req)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		took := time.Since(start)
		require.NoError(t, err)

		assert.GreaterOrEqual(t, took, delay, "the round trip through the proxy takes at least the delay")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		var decoded struct {
			Errors bool
			Items  []map[string]struct{ Status int }
		}
		require.NoError(t, json.Unmarshal(answer, &decoded), "%s", answer)
		assert.False(t, decoded.Errors)
		require.Len(t, decoded.Items, 1, "%s", answer)
		assert.Equal(t, http.StatusCreated, decoded.Items[0]["create"].Status)
		assert.Equal(t, "Elasticsearch", resp.Header.Get("X-Elastic-Product"))

		s := <-got
		assert.Equal(t, http.MethodPost, s.method)
		assert.Equal(t, "/_bulk?filter_path=items.*._index", s.uri)
		assert.Equal(t, body, s.body, "the body arrives as sent, still gzipped")
		assert.Equal(t, req.Header.Get("Authorization"), s.header.Get("Authorization"))
		assert.Equal(t, "gzip", s.header.Get("Content-Encoding"))
		assert.Equal(t, "gzip", s.header.Get("Accept-Encoding"))
		assert.Equal(t, "application/json", s.header.Get("Content-Type"))
		assert.Empty(t, s.header.Get("X-Forwarded-For"), "no header of the proxy's own")
	}
	assert.Len(t, es.Accepted(), 2, "the node stored the document of each request")
}

// Without a delay the proxy passes the node's answer on at once, its status too.
func TestDelayProxyNoDelay(t *testing.T) {
	node := fakees.NewTLS(t)
	node.RootStatus = http.StatusForbidden
	p, err := newDelayProxy(node.URL, node.Client().Transport.(*http.Transport).TLSClientConfig, 0)
	require.NoError(t, err)
	defer p.Close()
	resp, err := p.srv.Client().Get(p.URL() + "/")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}
