// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
)

// variants is the number of different request bodies of a signal that the generator sends in
// turn. A metrics body's data points all share one timestamp, and each variant has its own:
// when the batcher merges requests into one push, data points of different requests then
// stay in different documents (one per data point, as in the in-process benchmarks). The
// uniform logs and spans need no such care: their variants are the same body; the realistic
// records' variants are records of their own.
const variants = 256

// The corpora of -corpus: the realistic records (benchdata.Realistic of the seed
// benchdata.RealisticSeed) and the uniform ones of the push benchmarks, the best case.
const (
	corpusRealistic = "realistic"
	corpusUniform   = "uniform"
)

// otlpPath returns the OTLP/HTTP path of a signal.
func otlpPath(signal string) string {
	switch signal {
	case "logs":
		return "/v1/logs"
	case "spans":
		return "/v1/traces"
	}
	return "/v1/metrics"
}

// records returns the variant-th request of n records of signal from corpus, as pdata: g makes
// the realistic ones (each call its own records, later in time), the uniform ones need none.
func records(corpus, signal string, g *benchdata.Realistic, n, variant int) (any, error) {
	switch {
	case signal != "logs" && signal != "spans" && signal != "metrics":
		return nil, fmt.Errorf("unknown signal %q", signal)
	case corpus == corpusRealistic && signal == "logs":
		return g.Logs(n), nil
	case corpus == corpusRealistic && signal == "spans":
		return g.Traces(n), nil
	case corpus == corpusRealistic:
		return g.Metrics(n), nil
	case corpus != corpusUniform:
		return nil, fmt.Errorf("unknown corpus %q (%s or %s)", corpus, corpusRealistic, corpusUniform)
	case signal == "logs":
		return benchdata.Logs(n), nil
	case signal == "spans":
		return benchdata.Traces(n), nil
	}
	return benchdata.MetricsAt(n, int64(variant)*int64(time.Second)), nil
}

// marshal returns the OTLP/HTTP protobuf body of pdata records.
func marshal(data any) ([]byte, error) {
	switch d := data.(type) {
	case plog.Logs:
		return plogotlp.NewExportRequestFromLogs(d).MarshalProto()
	case ptrace.Traces:
		return ptraceotlp.NewExportRequestFromTraces(d).MarshalProto()
	case pmetric.Metrics:
		return pmetricotlp.NewExportRequestFromMetrics(d).MarshalProto()
	}
	return nil, fmt.Errorf("cannot marshal %T", data)
}

// requestBodies returns the variants of the OTLP/HTTP protobuf body of one request of n
// records of signal from corpus.
func requestBodies(corpus, signal string, n int) ([][]byte, error) {
	g := benchdata.NewRealistic(benchdata.RealisticSeed)
	bodies := make([][]byte, variants)
	for v := range bodies {
		if v > 0 && corpus == corpusUniform && signal != "metrics" {
			bodies[v] = bodies[0]
			continue
		}
		data, err := records(corpus, signal, g, n, v)
		if err != nil {
			return nil, err
		}
		if bodies[v], err = marshal(data); err != nil {
			return nil, err
		}
	}
	return bodies, nil
}

// bodySource gives the generator its next request body.
type bodySource interface{ next() []byte }

// cycle sends prepared bodies in turn.
type cycle struct {
	bodies [][]byte
	i      atomic.Uint64
}

func (c *cycle) next() []byte { return c.bodies[c.i.Add(1)%uint64(len(c.bodies))] }

// fresh makes every body anew, in a goroutine of its own, from one Realistic: no two bodies
// hold the same records or timestamps. A time series data stream keeps one document per series
// and timestamp, so a real node is sent fresh metrics, never a body twice.
type fresh struct{ ch chan []byte }

// newFresh starts making bodies of n records of signal from g; stop ends it.
func newFresh(signal string, g *benchdata.Realistic, n int) (src *fresh, stop func()) {
	f := &fresh{ch: make(chan []byte, 64)}
	done := make(chan struct{})
	go func() {
		for {
			data, err := records(corpusRealistic, signal, g, n, 0)
			if err != nil {
				panic(err) // the signal was checked before
			}
			b, err := marshal(data)
			if err != nil {
				panic(err)
			}
			select {
			case f.ch <- b:
			case <-done:
				return
			}
		}
	}()
	return f, sync.OnceFunc(func() { close(done) })
}

func (f *fresh) next() []byte { return <-f.ch }

// generator posts prepared OTLP/HTTP protobuf bodies over conns keep-alive connections, each
// as soon as the answer to its last one has come: the collector's back-pressure (its sending
// queue blocks when full) sets the rate. Building the bodies beforehand keeps the generator's
// CPU low: it shares the machine with the collector.
type generator struct {
	url     string
	bodies  bodySource
	records int // records per body

	stopping atomic.Bool  // set: each connection ends once its request is answered
	accepted atomic.Int64 // records of the requests answered 200
	failed   atomic.Int64 // requests answered otherwise or not at all
	lastErr  atomic.Pointer[string]
}

func (g *generator) run(ctx context.Context, conns int) {
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			defer client.CloseIdleConnections()
			for ctx.Err() == nil && !g.stopping.Load() {
				body := g.bodies.next()
				if err := g.post(ctx, client, body); err != nil {
					if ctx.Err() != nil {
						return
					}
					g.failed.Add(1)
					msg := err.Error()
					g.lastErr.Store(&msg)
					time.Sleep(10 * time.Millisecond)
					continue
				}
				g.accepted.Add(int64(g.records))
			}
		})
	}
	wg.Wait()
}

func (g *generator) post(ctx context.Context, client *http.Client, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}
