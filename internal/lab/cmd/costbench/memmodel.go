// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"runtime"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// The memory model of docs/delivery.md (section "Memory model"), which the report holds each
// run's peak RSS against, at the defaults of the sending queue (sizer bytes, queueSize) under
// saturation:
//
//   - the receiver: each connection's request, its body read whole and decoded into pdata,
//     waiting for room in the full queue: conns × request × (1 + pdata per OTLP byte);
//   - the queue and the pushes under way: the requests that fit in queueSize bytes of OTLP, in
//     pdata;
//   - the exporter's pushes (the Elasticsearch exporter only): flow_control::max_inflight_bytes;
//   - its request bodies kept between requests (the Elasticsearch exporter only): one per
//     request in flight at most (maxConcurrentRequests), each with its compressor
//     (compressorBytes) and its largest compressed request;
//   - Go's heap headroom: with GOGC=100 and no GOMEMLIMIT, the heap grows to twice what is live;
//   - the collector at rest (its RSS once started, before the load).

// compressorBytes is the state of one request body's gzip writer (internal/bulk's
// compressorBytes).
const compressorBytes = 1 << 20

// maxConcurrentRequests is flow_control::max_concurrent_requests at its default (the factory's
// defaultMaxConcurrentRequests), which the runs keep.
const maxConcurrentRequests = 10

// modelRSS returns the model's peak RSS in MiB of run r with conns connections.
func modelRSS(r result, conns int) float64 {
	if r.RequestBytes <= 0 || r.PdataPerByte <= 0 {
		return 0
	}
	req := float64(r.RequestBytes)
	queued := float64(queueSize/r.RequestBytes) * req
	live := float64(conns)*req*(1+r.PdataPerByte) + queued*r.PdataPerByte
	if r.Exporter == exporterES {
		live += inflightCap
		compressed := float64(batchMaxSize)
		if r.RawBytesPerDoc > 0 {
			compressed *= r.BodyBytesPerDoc / r.RawBytesPerDoc
		}
		live += maxConcurrentRequests * (compressorBytes + compressed)
	}
	return r.RSSIdleMiB + 2*live/(1<<20)
}

// pdataPerByte returns the heap bytes that the pdata of body takes once decoded, per byte of
// body: what the receiver and the queue hold per byte of OTLP.
func pdataPerByte(signal string, body []byte) (float64, error) {
	const copies = 8
	keep := make([]any, 0, copies)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range copies {
		var err error
		switch signal {
		case "logs":
			req := plogotlp.NewExportRequest()
			err = req.UnmarshalProto(body)
			keep = append(keep, req)
		case "spans":
			req := ptraceotlp.NewExportRequest()
			err = req.UnmarshalProto(body)
			keep = append(keep, req)
		case "metrics":
			req := pmetricotlp.NewExportRequest()
			err = req.UnmarshalProto(body)
			keep = append(keep, req)
		default:
			return 0, fmt.Errorf("unknown signal %q", signal)
		}
		if err != nil {
			return 0, err
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(keep)
	return float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(copies*len(body)), nil
}
