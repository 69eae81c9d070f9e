// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"time"
)

// delayProxy stands between the collector and the real node (-delays): it holds every request
// for delay, then forwards it to the node unchanged (method, path, query, headers with
// Authorization and Content-Encoding, the body streamed as it comes) through
// httputil.ReverseProxy, and streams the node's answer back. The hold models an added network
// round trip between the collector and Elasticsearch, paid once per request on a keep-alive
// connection: latency only, not bandwidth (the bytes still move at loopback speed), and not the
// extra round trips a real distance adds to opening a connection (TCP and TLS handshakes), which
// keep-alive connections pay rarely.
//
// It serves HTTPS (httptest's certificate for 127.0.0.1, written to a CA file for the
// collector's tls::ca_file), so that the collector does the same TLS work through it as it does
// straight to the node; its own CPU is the generator's process's, neither the collector's nor the
// node's. It keeps up to 256 idle connections to the node, so that it does not cap how many
// bulk requests are in flight.
type delayProxy struct {
	delay time.Duration
	srv   *httptest.Server
}

// proxyIdleConns is the delay proxy's idle connections to the node (per host and in all).
const proxyIdleConns = 256

// newDelayProxy starts a delay proxy on 127.0.0.1 in front of target (the node's endpoint),
// reaching it with tlsConfig (the node's CA; nil: the defaults).
func newDelayProxy(target string, tlsConfig *tls.Config, delay time.Duration) (*delayProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("delay proxy: %w", err)
	}
	if tlsConfig != nil {
		tlsConfig = tlsConfig.Clone()
	}
	rp := &httputil.ReverseProxy{
		// SetURL only: no X-Forwarded-* headers are added; hop-by-hop headers go, as HTTP wants.
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport: &http.Transport{
			Proxy:               nil,
			TLSClientConfig:     tlsConfig,
			MaxIdleConns:        proxyIdleConns,
			MaxIdleConnsPerHost: proxyIdleConns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true, // pass Accept-Encoding and the answer's encoding through as they are
		},
		// An answer of the node streams back as it comes.
		FlushInterval: -1,
	}
	p := &delayProxy{delay: delay}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	p.srv.StartTLS()
	return p, nil
}

// URL is where the collector sends its bulk requests instead of the node.
func (p *delayProxy) URL() string { return p.srv.URL }

// writeCA writes the certificate the proxy serves, in PEM, for the collector's tls::ca_file.
func (p *delayProxy) writeCA(path string) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}), 0o600)
}

// Close stops the proxy once the requests in flight are answered.
func (p *delayProxy) Close() { p.srv.Close() }
