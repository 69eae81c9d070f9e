// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter"
)

// compression: snappy against the real node, in the 9.x and the 8.x pass (scripts/integration.sh):
// the start-up check's probe (an empty snappy bulk body) is decoded, and the bulk requests
// are snappy; through a reverse proxy that drops Content-Encoding, the probe says so and the
// requests are gzip; when the proxy starts dropping it after the probe, the first snappy
// request is answered as undecoded and sent again with gzip, nothing lost.

const (
	snappyOnLine    = "Elasticsearch decodes snappy request bodies; bulk requests are sent with snappy"
	snappyProbeLine = "`compression: snappy` is not possible"
	snappyFallback  = "Elasticsearch did not decode a snappy bulk request body"
)

func snappyConfig(s *suite, endpoint string) *elasticsearchexporter.Config {
	cfg := s.config()
	cfg.Compression = configcompression.TypeSnappy
	cfg.CompressionParams.Level = 0
	if endpoint != "" {
		cfg.Endpoints = []string{endpoint}
	}
	return cfg
}

// waitLog waits for a log line that starts with snippet.
func (s *suite) waitLog(t *testing.T, snippet string) {
	t.Helper()
	require.Eventually(t, func() bool { return s.logs.FilterMessageSnippet(snippet).Len() > 0 },
		30*time.Second, 20*time.Millisecond, "no log line %q", snippet)
}

// sum adds the points of a counter of the exporter's telemetry.
func (s *suite) sum(t *testing.T, name string) int64 {
	t.Helper()
	m, err := s.tel.GetMetric(name)
	require.NoError(t, err)
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		n += dp.Value
	}
	return n
}

// encodingProxy is a reverse proxy in front of the node that records the Content-Encoding of
// each bulk request and, while drop is set, removes a Content-Encoding: snappy, passing the
// body on as it is: what a proxy or load balancer that does not know the encoding may do.
type encodingProxy struct {
	drop      atomic.Bool
	mu        sync.Mutex
	encodings []string
}

func newEncodingProxy(t *testing.T, s *suite) (*encodingProxy, string) {
	t.Helper()
	target, err := url.Parse(s.es.Endpoint)
	require.NoError(t, err)
	p := &encodingProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = s.es.HTTP.Transport
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_bulk" {
			p.mu.Lock()
			p.encodings = append(p.encodings, r.Header.Get("Content-Encoding"))
			p.mu.Unlock()
			if p.drop.Load() && r.Header.Get("Content-Encoding") == "snappy" {
				r.Header.Del("Content-Encoding")
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func (p *encodingProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.encodings...)
}

func TestSnappyRoundTrip(t *testing.T) {
	s := newSuite(t)
	exp := s.logsExporter(t, snappyConfig(s, ""))
	s.waitLog(t, snappyOnLine)
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(50)))

	docs := s.search(t, "logs-"+s.id+".otel-default", s.id)
	require.Len(t, docs, 50)
	assert.Equal(t, "payment 7 declined <card> & \"retry\"", get(docs[7], "body.text"))
	assert.Equal(t, int64(50), s.docs(t, "indexed"))
	sent, uncompressed := s.sum(t, "otelcol.elasticsearch.flushed.bytes"), s.sum(t, "otelcol.elasticsearch.flushed.uncompressed_bytes")
	assert.Less(t, sent, uncompressed, "the body was compressed")
	assert.Zero(t, s.logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("snappy").Len())
}

// A proxy that drops Content-Encoding from the start: the probe finds it, one Warn line, and
// the documents go with gzip.
func TestSnappyProbeThroughProxyThatDropsIt(t *testing.T) {
	s := newSuite(t)
	proxy, endpoint := newEncodingProxy(t, s)
	proxy.drop.Store(true)
	exp := s.logsExporter(t, snappyConfig(s, endpoint))
	s.waitLog(t, snappyProbeLine)
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(5)))

	assert.Len(t, s.search(t, "logs-"+s.id+".otel-default", s.id), 5)
	assert.Equal(t, []string{"snappy", "gzip"}, proxy.seen(), "the probe, then the documents")
	warns := s.logs.FilterMessageSnippet(snappyProbeLine).All()
	require.Len(t, warns, 1)
	assert.Equal(t, zapcore.WarnLevel, warns[0].Level)
	t.Logf("%s %v", warns[0].Message, warns[0].ContextMap())
}

// A proxy that starts dropping Content-Encoding after the probe passed: the first snappy bulk
// request is answered as undecoded and sent again at once with gzip; nothing is lost or
// counted as rejected, and the next requests are gzip.
func TestSnappyFallbackThroughProxyThatDropsIt(t *testing.T) {
	s := newSuite(t)
	proxy, endpoint := newEncodingProxy(t, s)
	exp := s.logsExporter(t, snappyConfig(s, endpoint))
	s.waitLog(t, snappyOnLine)
	proxy.drop.Store(true)
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(20)))
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(3)))

	assert.Len(t, s.search(t, "logs-"+s.id+".otel-default", s.id), 23)
	assert.Equal(t, int64(23), s.docs(t, "indexed"))
	assert.Zero(t, s.docs(t, "rejected"))
	assert.Equal(t, []string{"snappy", "snappy", "gzip", "gzip"}, proxy.seen(), "the probe, the request sent again with gzip, the next")
	warns := s.logs.FilterMessageSnippet(snappyFallback).All()
	require.Len(t, warns, 1)
	assert.Equal(t, zapcore.WarnLevel, warns[0].Level)
	t.Logf("%s %v", warns[0].Message, warns[0].ContextMap())
}
