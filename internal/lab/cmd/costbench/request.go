// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
)

// The parts of one bulk request's CPU in the client process, for the profile of
// BenchmarkRequestCost at one document per request (`make request-cost`).
const (
	reqGzip      = "gzip: stream start, compress, end"
	reqTelemetry = "telemetry (OpenTelemetry SDK, otelhttp, exporterhelper's obsreport)"
	reqEncode    = "encoding and routing the document"
	reqResponse  = "response handling (read, compact, decode, outcomes)"
	reqWrite     = "HTTP: writing the request (net/http write loop, syscalls)"
	reqRead      = "HTTP: reading the response (net/http read loop, syscalls)"
	reqSetup     = "request setup and round trip (docappender, transport, esclient, net/http)"
	reqSession   = "bulk session and push bookkeeping"
	reqBench     = "benchmark loop"
	reqSched     = "scheduler, network poller and the rest of the runtime"
)

var requestParts = []string{reqSetup, reqWrite, reqRead, reqGzip, reqResponse, reqTelemetry, reqEncode, reqSession, reqSched, partGC, reqBench}

const module = "github.com/otelcol-es/elasticsearchexporter"

// requestOwners classify a sample by the first function from the leaf up that has an owner;
// for one function, the first owner that matches wins.
var requestOwners = []owner{
	{"github.com/klauspost/compress", reqGzip},
	{"compress/", reqGzip},
	{"go.opentelemetry.io/otel", reqTelemetry},
	{"go.opentelemetry.io/contrib/instrumentation", reqTelemetry},
	{module + "/internal/metadata", reqTelemetry},
	{module + "/internal/bulk.(*Indexer).record", reqTelemetry},
	{module + "/internal/bulk.(*session).pointAttrs", reqTelemetry},
	{module + "/internal/bulk.(*pointCache)", reqTelemetry},
	{module + "/internal/bulk.newPointOptions", reqTelemetry},
	{module + "/internal/bulk.(*Indexer).setMetadata", reqTelemetry},
	{module + "/internal/metadatakeys.Attributes", reqTelemetry},
	{"go.opentelemetry.io/collector/exporter/exporterhelper/internal.(*obsReportSender", reqTelemetry},
	{module + "/internal/serializer", reqEncode},
	{module + "/internal/jsonstr", reqEncode},
	{module + "/internal/bulk.appendAction", reqEncode},
	{module + "/internal/bulk.appendDeadLetter", reqEncode},
	{module + "/internal/routing", reqEncode},
	{module + "/internal/pipeline.(*pushState).appendLog", reqEncode},
	{module + "/internal/bulk.compactBulkResponse", reqResponse},
	{module + "/internal/bulk.createdEnd", reqResponse},
	{module + "/internal/bulk.(*jsonScanner)", reqResponse},
	{module + "/internal/bulk.(*responseItem)", reqResponse},
	{module + "/internal/bulk.readAtMost", reqResponse},
	{module + "/internal/bulk.ResponseLimit", reqResponse},
	{module + "/internal/bulk.(*session).responseMismatch", reqResponse},
	{module + "/internal/bulk.(*compactClient).errorBody", reqResponse},
	{module + "/internal/bulk.(*Indexer).classify", reqResponse},
	{"github.com/json-iterator", reqResponse},
	{"net/http.(*persistConn).writeLoop", reqWrite},
	{"net/http.(*Request).write", reqWrite},
	{"net/http.persistConnWriter", reqWrite},
	{"net/http.(*transferWriter)", reqWrite},
	{"net/http.(*persistConn).readLoop", reqRead},
	{"net/http.(*persistConn).readResponse", reqRead},
	{"net/http.ReadResponse", reqRead},
	{"net/http.(*body)", reqRead},
	{"net/http.(*bodyEOFSignal)", reqRead},
	{"net/textproto", reqRead},
	{"net/http", reqSetup},
	{"net/url", reqSetup},
	{"github.com/elastic/elastic-transport-go", reqSetup},
	{"github.com/elastic/go-docappender", reqSetup},
	{module + "/internal/esclient", reqSetup},
	{module + "/internal/bulk.(*compactClient)", reqSetup},
	{"testing.", reqBench},
	{module + "/internal/lab/pushbench.BenchmarkRequestCost", reqBench},
	{module + "/internal/lab/pushbench.measureRequests", reqBench},
	{module, reqSession},
	{"go.opentelemetry.io/collector/", reqSession},
}

func classifyRequest(stack []string) string { return classifyBy(stack, requestOwners, reqSched) }

// printRequestSplit splits the profile at path of requests bulk requests, a CPU profile or
// a heap profile, and prints the microseconds of CPU or the allocations per request of each
// part.
func printRequestSplit(w io.Writer, path string, requests int) error {
	p, err := readProfile(path)
	if err != nil {
		return err
	}
	allocs := false
	for _, st := range p.SampleType {
		allocs = allocs || st.Type == "alloc_objects"
	}
	s := splitProfileBy(p, "", classifyRequest)
	scale, unit := 1e6, "µs of CPU"
	if allocs {
		scale, unit = 1, "allocations"
	}
	fmt.Fprintf(w, "\n%s per bulk request by part (%s, %d requests, %.1f per request in the profile):\n\n",
		unit, path, requests, s.Total/float64(requests)*scale)
	fmt.Fprintf(w, "| part | %s per request | share |\n", unit)
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, part := range requestParts {
		fmt.Fprintf(w, "| %s | %.1f | %s |\n", part, s.Parts[part]/float64(requests)*scale, pct(s.share(part)))
	}
	return nil
}
