// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stacks name functions that exist, so that the test follows the code it classifies.
func TestClassify(t *testing.T) {
	funcs := moduleFuncs{}
	for _, tt := range []struct {
		name  string
		stack []string // leaf first
		want  string
	}{
		{"gzip under the push", []string{"compress/flate.(*compressor).deflate", "github.com/elastic/go-docappender/v2.(*BulkIndexer).Add", module + "/internal/pipeline.(*Pipeline).PushLogs", "go.opentelemetry.io/collector/exporter/exporterhelper/internal/queuebatch.(*partitionBatcher).flush"}, partExporter},
		{"the HTTP client's write loop", []string{"syscall.Syscall", "net/http.(*persistConn).writeLoop"}, partExporter},
		{"the byte sizer", []string{"go.opentelemetry.io/collector/pdata/plog.(*ProtoMarshaler).LogsSize", "go.opentelemetry.io/collector/exporter/exporterhelper/internal/sizer.LogsBytesSizer.SizeOf", "go.opentelemetry.io/collector/receiver/otlpreceiver.handleLogs"}, partExporterHelp},
		{"protobuf decoding", []string{"go.opentelemetry.io/collector/pdata/internal.(*LogRecord).UnmarshalProto", "go.opentelemetry.io/collector/receiver/otlpreceiver.handleLogs", "net/http.(*conn).serve"}, partReceiver},
		{"confighttp on the server", []string{"go.opentelemetry.io/collector/config/confighttp.(*decompressor).ServeHTTP", "net/http.serverHandler.ServeHTTP"}, partReceiver},
		{"background marking", []string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, partGC},
		{"the scheduler", []string{"runtime.futex", "runtime.findRunnable", "runtime.schedule"}, partRest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, frame := range tt.stack {
				funcs.assertExists(t, frame, "stack frame")
			}
			assert.Equal(t, tt.want, classify(tt.stack))
		})
	}
}

func TestSplitProfile(t *testing.T) {
	fn := map[string]*profile.Function{}
	loc := func(name string) *profile.Location {
		f := fn[name]
		if f == nil {
			f = &profile.Function{ID: uint64(len(fn) + 1), Name: name}
			fn[name] = f
		}
		return &profile.Location{ID: f.ID, Line: []profile.Line{{Function: f}}}
	}
	ms := int64(time.Millisecond)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Value: []int64{3, 30 * ms}, Location: []*profile.Location{loc("compress/flate.deflate"), loc("github.com/otelcol-es/elasticsearchexporter/internal/pipeline.(*Pipeline).PushLogs")}},
			{Value: []int64{1, 10 * ms}, Location: []*profile.Location{loc("net/http.(*persistConn).readLoop")}},
			{Value: []int64{5, 50 * ms}, Location: []*profile.Location{loc("runtime.gcBgMarkWorker")}},
			{Value: []int64{1, 10 * ms}, Location: []*profile.Location{loc("go.opentelemetry.io/collector/receiver/otlpreceiver.handleLogs")}},
		},
	}
	s := splitProfile(p)
	assert.InDelta(t, 0.1, s.Total, 1e-9)
	assert.InDelta(t, 0.04, s.Parts[partExporter], 1e-9)
	assert.InDelta(t, 0.03, s.UnderPush, 1e-9)
	assert.InDelta(t, 0.5, s.share(partGC), 1e-9)
	assert.InDelta(t, 0.1, s.share(partReceiver), 1e-9)
	assert.Equal(t, "compress/flate.deflate", s.TopExporter[0].Name)
}

func TestParseStatCPU(t *testing.T) {
	stat := "4242 (otelcol es) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 12 0 100 0 0"
	got, err := parseStatCPU([]byte(stat))
	require.NoError(t, err)
	assert.Equal(t, 3250*time.Millisecond, got)
}

func TestClassifyRequest(t *testing.T) {
	funcs := moduleFuncs{}
	for _, tt := range []struct {
		name  string
		stack []string // leaf first
		want  string
	}{
		{"gzip close", []string{"github.com/klauspost/compress/flate.(*compressor).close", "github.com/klauspost/compress/gzip.(*Writer).Close", "github.com/elastic/go-docappender/v2.(*BulkIndexer).Flush"}, reqGzip},
		{"write syscall", []string{"syscall.write", "net.(*conn).Write", "net/http.(*persistConn).writeLoop"}, reqWrite},
		{"otelhttp attributes", []string{"runtime.mallocgc", "go.opentelemetry.io/otel/attribute.NewSet", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp.(*Transport).RoundTrip", "net/http.send"}, reqTelemetry},
		{"new request", []string{"runtime.mallocgc", "net/http.NewRequestWithContext", "github.com/elastic/go-docappender/v2.(*BulkIndexer).newBulkIndexRequest"}, reqSetup},
		{"compaction", []string{module + "/internal/bulk.compactBulkResponse", module + "/internal/bulk.(*compactClient).Perform"}, reqResponse},
		{"encoding", []string{module + "/internal/jsonstr.AppendEscaped", module + "/internal/serializer.(*writer).str", module + "/internal/pipeline.(*pushState).appendLog", module + "/internal/pipeline.(*Pipeline).PushLogs"}, reqEncode},
		{"action line", []string{module + "/internal/jsonstr.AppendEscaped", module + "/internal/bulk.appendAction", module + "/internal/bulk.(*chunk).WriteTo"}, reqEncode},
		{"the push", []string{"runtime.mallocgc", module + "/internal/pipeline.(*Pipeline).PushLogs", module + "/internal/lab/pushbench.measureRequests"}, reqSession},
		{"idle", []string{"runtime.futex", "runtime.findRunnable", "runtime.schedule", "runtime.mcall"}, reqSched},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, frame := range tt.stack {
				funcs.assertExists(t, frame, "stack frame")
			}
			assert.Equal(t, tt.want, classifyRequest(tt.stack))
		})
	}
}
