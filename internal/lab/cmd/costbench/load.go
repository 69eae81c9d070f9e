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

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
)

// variants is the number of different request bodies of a signal that the generator sends in
// turn. A metrics body's data points all share one timestamp, and each variant has its own:
// when the batcher merges requests into one push, data points of different requests then
// stay in different documents (one per data point, as in the in-process benchmarks). Logs and
// spans need no such care; their variants are the same body.
const variants = 256

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

// requestBodies returns the variants of the OTLP/HTTP protobuf body of one request of n
// records of signal, the records of the push benchmarks (internal/lab/benchdata).
func requestBodies(signal string, n int) ([][]byte, error) {
	bodies := make([][]byte, variants)
	for v := range bodies {
		var err error
		switch signal {
		case "logs":
			if v == 0 {
				bodies[v], err = plogotlp.NewExportRequestFromLogs(benchdata.Logs(n)).MarshalProto()
			} else {
				bodies[v] = bodies[0]
			}
		case "spans":
			if v == 0 {
				bodies[v], err = ptraceotlp.NewExportRequestFromTraces(benchdata.Traces(n)).MarshalProto()
			} else {
				bodies[v] = bodies[0]
			}
		case "metrics":
			bodies[v], err = pmetricotlp.NewExportRequestFromMetrics(benchdata.MetricsAt(n, int64(v)*int64(time.Second))).MarshalProto()
		default:
			return nil, fmt.Errorf("unknown signal %q", signal)
		}
		if err != nil {
			return nil, err
		}
	}
	return bodies, nil
}

// generator posts prepared OTLP/HTTP protobuf bodies over conns keep-alive connections, each
// as soon as the answer to its last one has come: the collector's back-pressure (its sending
// queue blocks when full) sets the rate. Building the bodies beforehand keeps the generator's
// CPU low: it shares the machine with the collector.
type generator struct {
	url     string
	bodies  [][]byte
	records int // records per body

	next     atomic.Uint64
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
				body := g.bodies[g.next.Add(1)%uint64(len(g.bodies))]
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
