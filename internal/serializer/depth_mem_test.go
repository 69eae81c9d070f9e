// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// The race detector multiplies memory use, so this test runs without it.

//go:build !race

package serializer

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// heapAllocs returns the bytes allocated on the heap so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// allocsOf returns the heap bytes f allocates. Each reading follows a collection, which counts
// the small objects allocated from per-P caches.
func allocsOf(f func()) uint64 {
	runtime.GC()
	before := heapAllocs()
	f()
	runtime.GC()
	return heapAllocs() - before
}

// maxBytesPerLevel bounds the heap bytes a fresh Encoder allocates to write a record whose maps
// nest n deep, per level. The flat modes used to build each level's full dotted key: at depth
// 10,000 a log record took about 1.2 GB, 120 KB per level.
const maxBytesPerLevel = 1024

// TestDeepMapsMemory writes a log record and a span whose maps nest 5,000 and 10,000 deep (the
// record's attributes and map body; the span's attributes, an event's and a link's) in every
// mode, each with a fresh Encoder, and bounds the heap bytes each document allocates.
func TestDeepMapsMemory(t *testing.T) {
	for _, depth := range []int{5000, 10000} {
		rec := plog.NewLogRecord()
		nestMaps(rec.Attributes(), "key", depth)
		nestMaps(rec.Body().SetEmptyMap(), "key", depth)
		span := ptrace.NewSpan()
		nestMaps(span.Attributes(), "key", depth)
		ev := span.Events().AppendEmpty()
		ev.SetName("ev")
		nestMaps(ev.Attributes(), "key", depth)
		nestMaps(span.Links().AppendEmpty().Attributes(), "key", depth)
		limit := uint64(maxBytesPerLevel * depth)
		check := func(m Mode, what string, write func(e *Encoder) []byte) {
			t.Helper()
			e := new(Encoder)
			e.SetMode(m)
			e.SetResource(pcommon.NewResource(), "")
			e.SetScope(pcommon.NewInstrumentationScope(), "")
			var doc []byte
			n := allocsOf(func() { doc = write(e) })
			t.Logf("depth %d, %v %s: %.2f MB allocated for a %d-byte document", depth, m, what, float64(n)/1e6, len(doc))
			if n > limit {
				t.Errorf("depth %d, %v %s: %d bytes allocated, want at most %d", depth, m, what, n, limit)
			}
		}
		for _, m := range []Mode{ModeOTel, ModeECS, ModeNone, ModeRaw, ModeBodyMap} {
			check(m, "log", func(e *Encoder) []byte { return e.AppendLog(nil, rec, logsStream) })
			if m == ModeBodyMap {
				continue
			}
			check(m, "span", func(e *Encoder) []byte { return e.AppendSpan(nil, span, tracesStream) })
			if m.SeparateSpanEvents() {
				check(m, "span event", func(e *Encoder) []byte { return e.AppendSpanEvent(nil, span, ev, logsStream) })
			}
		}
	}
}
