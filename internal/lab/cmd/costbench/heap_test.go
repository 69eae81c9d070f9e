// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exporter's heap is what is in use (not what was allocated) under the exporter's
// functions; pdata decoded by the receiver is the receiver's wherever it waits.
func TestSplitHeapFile(t *testing.T) {
	var funcs []*profile.Function
	var locations []*profile.Location
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		l := locs[name]
		if l == nil {
			f := &profile.Function{ID: uint64(len(locs) + 1), Name: name}
			l = &profile.Location{ID: f.ID, Line: []profile.Line{{Function: f}}}
			locs[name] = l
			funcs, locations = append(funcs, f), append(locations, l)
		}
		return l
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "alloc_objects", Unit: "count"},
			{Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"},
			{Type: "inuse_space", Unit: "bytes"},
		},
		Sample: []*profile.Sample{
			// a batch buffer: 40 MiB in use of 900 MiB allocated
			{Value: []int64{9000, 900 << 20, 40, 40 << 20}, Location: []*profile.Location{loc("slices.Grow[go.shape.[]uint8,go.shape.uint8]"), loc(module + "/internal/bulk.(*Batch).Grow")}},
			// a compressor under docappender
			{Value: []int64{10, 10 << 20, 6, 6 << 20}, Location: []*profile.Location{loc("github.com/klauspost/compress/flate.NewWriter"), loc("github.com/elastic/go-docappender/v2.(*BulkIndexer).AddBuffer")}},
			// pdata decoded by the receiver, held in the queue
			{Value: []int64{5000, 500 << 20, 50, 50 << 20}, Location: []*profile.Location{loc("go.opentelemetry.io/collector/pdata/internal.(*LogRecord).UnmarshalProto"), loc("go.opentelemetry.io/collector/receiver/otlpreceiver.handleLogs")}},
		},
	}
	p.Function, p.Location = funcs, locations
	path := filepath.Join(t.TempDir(), "heap.pprof")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())
	h, err := splitHeapFile(path)
	require.NoError(t, err)
	assert.InDelta(t, 96<<20, h.Live, 1)
	assert.InDelta(t, 46<<20, h.Exporter, 1)
}
