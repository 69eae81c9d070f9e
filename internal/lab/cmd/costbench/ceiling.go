// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"runtime"
	"time"

	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// ceiling is what encoding and compressing the documents alone cost, in CPU per document:
// the serializer over the benchmark's records into a reused buffer, and gzip level 1 over a
// bulk body the collector sent (action lines and documents), each in one thread of this
// process, as impl=serializer and impl=gzip of the in-process push benchmarks measure them.
type ceiling struct {
	EncodeNs float64 `json:"encode_ns_per_doc"`
	GzipNs   float64 `json:"gzip1_ns_per_doc"`
	BodyDocs int     `json:"body_docs"` // documents of the gzipped body
}

func (c ceiling) total() float64 { return c.EncodeNs + c.GzipNs }

// measureCeiling measures the encoding of records of signal, n per pass, and gzip level 1 of
// body, which holds docs documents, for at least d each.
func measureCeiling(corpus, signal string, n int, body []byte, docs int, d time.Duration) (ceiling, error) {
	if docs == 0 {
		return ceiling{}, fmt.Errorf("the captured %s body holds no documents", signal)
	}
	encode, err := encoder(corpus, signal, n)
	if err != nil {
		return ceiling{}, err
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, 1)
	if err != nil {
		return ceiling{}, err
	}
	var gzErr error
	compress := func() {
		out.Reset()
		zw.Reset(&out)
		if _, err := zw.Write(body); err != nil {
			gzErr = err
		}
		if err := zw.Close(); err != nil {
			gzErr = err
		}
	}
	c := ceiling{BodyDocs: docs}
	c.EncodeNs = cpuPerCall(encode, d) / float64(n)
	c.GzipNs = cpuPerCall(compress, d) / float64(docs)
	return c, gzErr
}

// cpuPerCall runs f for at least d (after one call to warm up) in one locked thread and
// returns the thread's CPU time per call, in nanoseconds.
func cpuPerCall(f func(), d time.Duration) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	runtime.GC()
	t0, c0 := time.Now(), threadCPU()
	calls := 0
	for calls == 0 || time.Since(t0) < d {
		f()
		calls++
	}
	return float64(threadCPU()-c0) / float64(calls)
}

var (
	logsStream   = serializer.DataStream{Type: "logs", Dataset: "generic", Namespace: "default"}
	tracesStream = serializer.DataStream{Type: "traces", Dataset: "generic", Namespace: "default"}
	metricStream = serializer.DataStream{Type: "metrics", Dataset: "generic", Namespace: "default"}
)

// encoder returns a function that encodes n records of signal from corpus into a reused
// buffer, as the in-process benchmark's impl=serializer does.
func encoder(corpus, signal string, n int) (func(), error) {
	var e serializer.Encoder
	var buf []byte
	data, err := records(corpus, signal, benchdata.NewRealistic(benchdata.RealisticSeed), n, 0)
	if err != nil {
		return nil, err
	}
	switch signal {
	case "logs":
		ld := data.(plog.Logs)
		return func() { buf = benchdata.AppendLogs(&e, buf[:0], ld, logsStream) }, nil
	case "spans":
		td := data.(ptrace.Traces)
		return func() { buf = benchdata.AppendSpans(&e, buf[:0], td, tracesStream) }, nil
	case "metrics":
		md := data.(pmetric.Metrics)
		return func() {
			buf, _ = benchdata.AppendMetrics(&e, buf[:0], md, "metrics-generic.otel-default", metricStream, nil)
		}, nil
	}
	return nil, fmt.Errorf("unknown signal %q", signal)
}
