// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
)

// proxyRoute says which proxy, if any, the HTTP client sends a request through, and which
// setting named it. It decides as the client's transport does: confighttp sends every request
// through proxy_url when it is set, and otherwise leaves the transport's proxy to
// http.ProxyFromEnvironment (HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read once per process; never
// for "localhost" or a loopback IP address).
type proxyRoute struct {
	fixed *url.URL // proxy_url, parsed as confighttp parses it; nil when it is not set
}

// newProxyRoute reads proxy_url as confighttp does. A proxy_url that does not parse yields no
// route: confighttp refuses it before a request is sent.
func newProxyRoute(proxyURL string) proxyRoute {
	if proxyURL == "" {
		return proxyRoute{}
	}
	u, err := url.ParseRequestURI(proxyURL)
	if err != nil {
		return proxyRoute{}
	}
	return proxyRoute{fixed: u}
}

// of returns the proxy that req goes through and the setting that named it, or nil.
func (r proxyRoute) of(req *http.Request) (proxy *url.URL, setting string) {
	if r.fixed != nil {
		return r.fixed, "proxy_url"
	}
	u, err := http.ProxyFromEnvironment(req)
	if err != nil || u == nil {
		return nil, ""
	}
	if req.URL.Scheme == "https" {
		return u, "HTTPS_PROXY in the environment"
	}
	return u, "HTTP_PROXY in the environment"
}

// proxyTrace follows how far the connection of one request got: whether the TCP connection
// to the first hop (the proxy, when there is one) was made, and how many TLS handshakes
// started. Through an http:// proxy the handshake with the server starts only once the proxy
// accepted the CONNECT; through an https:// proxy the first handshake is the proxy's own.
type proxyTrace struct {
	connected  atomic.Bool
	handshakes atomic.Int32
}

// traceProxy returns req with a trace that proxyProblem reads.
func traceProxy(req *http.Request) (*http.Request, *proxyTrace) {
	pt := &proxyTrace{}
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				pt.connected.Store(true)
			}
		},
		TLSHandshakeStart: func() { pt.handshakes.Add(1) },
	})
	return req.WithContext(ctx), pt
}

// proxyProblem tells whether err, the failure of req sent with the trace pt, is the proxy's
// rather than the server's, and says so: the proxy could not be reached, or it did not open
// the tunnel to the server that an https:// endpoint needs (the CONNECT was refused; Go's
// error then holds only the reason phrase of the proxy's answer, such as "Forbidden"). req's
// URL is the one it was sent to.
func (r proxyRoute) proxyProblem(req *http.Request, pt *proxyTrace, err error) (string, bool) {
	if err == nil {
		return "", false
	}
	proxy, setting := r.of(req)
	if proxy == nil {
		return "", false
	}
	at := fmt.Sprintf("the proxy %s (%s)", proxy.Redacted(), setting)
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "proxyconnect" {
		return fmt.Sprintf("cannot connect to %s; check %s and that the proxy runs", at, setting), true
	}
	if req.URL.Scheme != "https" || (proxy.Scheme != "http" && proxy.Scheme != "https") {
		return "", false
	}
	wantHandshakes := int32(1)
	if proxy.Scheme == "https" {
		wantHandshakes = 2
	}
	if !pt.connected.Load() || pt.handshakes.Load() >= wantHandshakes {
		return "", false // not connected at all, or the tunnel was open: the server's failure
	}
	target := canonicalHostPort(req.URL)
	var answer string
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		answer = "did not answer the CONNECT in time"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		answer = "closed the connection without answering the CONNECT"
	default:
		answer = fmt.Sprintf("answered the CONNECT with %q", urlErrorDetail(err))
	}
	return fmt.Sprintf("%s did not open a tunnel to %s: it %s; check that the proxy allows CONNECT to that host and port, "+
		"or change %s", at, target, answer, setting), true
}

// canonicalHostPort is u's host and port, the port of its scheme when u names none.
func canonicalHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
