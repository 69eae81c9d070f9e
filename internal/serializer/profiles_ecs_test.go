// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func encodeProfileECS(t *testing.T, sink *testSink) {
	t.Helper()
	pd, _, p := testProfile()
	var e Encoder
	e.SetMode(ModeECS)
	encodeProfile(t, &e, sink, pd, p)
}

func TestAppendProfileECSDocuments(t *testing.T) {
	sink := &testSink{seen: map[string]bool{}}
	encodeProfileECS(t, sink)
	var got []string
	for _, d := range sink.docs {
		got = append(got, d.kind.String()+" "+d.where+" "+d.id+" "+d.doc)
	}
	const ev = `"ecs.version":"1.12.0","host.id":"h-1","service.name":"svc","process.executable.name":"","Stacktrace.sampling_frequency":20,"Stacktrace.count":1,"profiling.project.id":2}`
	const queued = `"Time.created":"2023-11-14T22:13:20.123456789Z","Symbolization.time.next":"2023-11-14T22:13:20.123456789Z","Symbolization.retries":0}`
	want := []string{
		`host  eu2MQDuvGgduFq16cT8BVA {"@timestamp":1700000000,"ecs.version":"1.12.0","host.id":"h-1","service.name":"svc"}`,
		`stacktrace  TJbFxeZBUHs9aoM4AWx6bw {"ecs.version":"1.12.0","Stacktrace.frame.ids":"bNawjUx5R0Zs1rCNTHlHRgAAAAAAAAAqYA3K_mANyv5gDcr-YA3K_gAAAAAAABI0","Stacktrace.frame.types":"AQsBAw"}`,
		`stackframe  bNawjUx5R0Zs1rCNTHlHRgAAAAAAAAAq {"ecs.version":"1.12.0","Stackframe.file.name":["main.go"],"Stackframe.function.name":["main.work"],"Stackframe.line.number":[42]}`,
		`symbolization_queue leafframes YA3K_mANyv5gDcr-YA3K_gAAAAAAABI0 {"ecs.version":"1.12.0","Stacktrace.frame.id":["YA3K_mANyv5gDcr-YA3K_gAAAAAAABI0"],` + queued,
		// 2023-11-13 is the Monday of the profile's week.
		`executable  YA3K_mANyv5gDcr-YA3K_g {"@timestamp":1699833600,"ecs.version":"1.12.0","Executable.build.id":"YA3K_mANyv5gDcr-YA3K_g","Executable.file.name":"/usr/lib/libc.so.6"}`,
		`symbolization_queue executables YA3K_mANyv5gDcr-YA3K_g {"ecs.version":"1.12.0","Executable.file.id":["YA3K_mANyv5gDcr-YA3K_g"],` + queued,
		`event   {"@timestamp":"2023-11-14T22:13:20.000000001Z","Stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","process.thread.name":"worker",` + ev,
		`event 5pow01  {"@timestamp":"2023-11-14T22:13:20.000000001Z","Stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","process.thread.name":"worker",` + ev,
		`event   {"@timestamp":"2023-11-14T22:13:20.500000000Z","Stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","process.thread.name":"worker",` + ev,
		`event 5pow01  {"@timestamp":"2023-11-14T22:13:20.500000000Z","Stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","process.thread.name":"worker",` + ev,
	}
	for range 3 { // the second sample: 3 samples at the profile's time, one event each
		want = append(want, `event   {"@timestamp":"2023-11-14T22:13:20.123456789Z","Stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","process.thread.name":"",`+ev)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, time.Monday, time.Unix(1699833600, 0).UTC().Weekday())
	assert.Equal(t, int64(1699833600), time.Unix(1700000000, 0).UTC().Truncate(7*24*time.Hour).Unix())
}

// TestAppendProfileECSDownsampling writes 20000 samples of one time: about one event in 5^N is
// also written into the Nth downsampled index, each downsampled event is the same document as
// one of profiling-events-all, and a second encoding draws the same events.
func TestAppendProfileECSDownsampling(t *testing.T) {
	const n = 20000
	encode := func() []profileDoc {
		pd, _, p := testProfile()
		p.Samples().At(1).Values().SetAt(0, n)
		var e Encoder
		e.SetMode(ModeECS)
		sink := &testSink{seen: map[string]bool{}}
		encodeProfile(t, &e, sink, pd, p)
		return sink.docs
	}
	docs := encode()
	perIndex := map[string]int{}
	var last string
	for _, d := range docs {
		if d.kind != ProfileEvent {
			continue
		}
		perIndex[d.where]++
		if d.where == "" {
			last = d.doc
		} else {
			require.Equal(t, last, d.doc)
		}
	}
	assert.Equal(t, n+2, perIndex[""])
	// Binomial(n, 1/5): mean 4000, standard deviation 57; (n, 1/25): 800, 28; (n, 1/125): 160, 13.
	assert.InDelta(t, 4000, perIndex["5pow01"], 300)
	assert.InDelta(t, 800, perIndex["5pow02"], 140)
	assert.InDelta(t, 160, perIndex["5pow03"], 65)
	for level := 2; level <= ProfileDownsampledLevels; level++ {
		assert.LessOrEqual(t, perIndex[fmt.Sprintf("5pow%02d", level)], perIndex[fmt.Sprintf("5pow%02d", level-1)])
	}
	again := encode()
	assert.Equal(t, docs, again)
}

func TestECSDownsampleLevels(t *testing.T) {
	assert.Equal(t, 0, ecsDownsampleLevels(1))
	assert.Equal(t, 1, ecsDownsampleLevels(5))
	assert.Equal(t, 2, ecsDownsampleLevels(25*3))
	assert.Equal(t, 11, ecsDownsampleLevels(0))
}

func TestAppendProfileECSDedup(t *testing.T) {
	sink := &testSink{seen: map[string]bool{}}
	encodeProfileECS(t, sink)
	first := len(sink.docs)
	encodeProfileECS(t, sink)
	for _, d := range sink.docs[first:] {
		assert.Equal(t, ProfileEvent, d.kind, d.doc)
	}
	assert.Len(t, sink.docs[first:], first-6)
}

// TestAppendProfileECSHost: the host document holds the profile's and the resource's
// attributes as lowercased strings, the first of a repeated key winning, without empty values.
func TestAppendProfileECSHost(t *testing.T) {
	pd, dict, p := testProfile()
	res := pd.ResourceProfiles().At(0).Resource().Attributes()
	res.PutStr("host.name", "Node-1.EXAMPLE")
	res.PutStr("Host.Arch", "X86_64")
	res.PutInt("host.cpus", 8)
	res.PutBool("host.virtual", true)
	res.PutStr("empty", "")
	res.PutStr("thread.name", "resource")
	p.AttributeIndices().Append(4) // thread.name: worker
	var e Encoder
	e.SetMode(ModeECS)
	sink := &testSink{seen: map[string]bool{}}
	var buf []byte
	sink.enc, sink.buf = &e, &buf
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	sink.encode(dict, p)
	require.Empty(t, e.Rejection().Reason)
	require.Equal(t, ProfileHost, sink.docs[0].kind)
	assert.JSONEq(t, `{"@timestamp":1700000000,"ecs.version":"1.12.0","host.id":"h-1","thread.name":"worker","service.name":"svc","host.name":"node-1.example","host.arch":"x86_64","host.cpus":"8","host.virtual":"true"}`, sink.docs[0].doc)
	for _, d := range sink.docs {
		if d.kind == ProfileEvent {
			assert.Contains(t, d.doc, `"host.name":"Node-1.EXAMPLE"`)
		}
	}
}

func TestAppendProfileECSInvalidUTF8(t *testing.T) {
	pd, dict, p := testProfile()
	dict.AttributeTable().At(4).Value().SetStr("work\xffer")
	var e Encoder
	e.SetMode(ModeECS)
	sink := &testSink{seen: map[string]bool{}}
	encodeProfile(t, &e, sink, pd, p)
	var repaired int
	for _, d := range sink.docs {
		if strings.Contains(d.doc, "work\ufffder") {
			assert.Equal(t, RepairInvalidUTF8, d.repair)
			repaired++
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(d.doc), &m))
	}
	assert.Equal(t, 4, repaired) // the two events of the first sample and their downsampled copies
}

// TestAppendProfileECSOnCPUOnly: Universal Profiling holds on-CPU samples; a profile of another
// type writes nothing in the ecs mode (and is written in the otel mode).
func TestAppendProfileECSOnCPUOnly(t *testing.T) {
	for _, mode := range []Mode{ModeOTel, ModeECS} {
		pd, dict, p := testProfile()
		p.PeriodType().SetTypeStrindex(5) // "/usr/lib/libc.so.6", not "cpu"
		var e Encoder
		e.SetMode(mode)
		var buf []byte
		sink := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
		e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
		sink.encode(dict, p)
		if mode == ModeECS {
			assert.Equal(t, RejectUnsupported, e.Rejection().Reason)
			assert.Empty(t, buf)
		} else {
			assert.Empty(t, e.Rejection().Reason)
			assert.NotEmpty(t, sink.docs)
		}
	}
}

// TestAppendProfileECSEventBound: a profile of maxECSEvents samples is written, one event
// document per sample; one more sample and it is rejected whole, with nothing written, while
// the otel mode, whose events carry their count, still writes it.
func TestAppendProfileECSEventBound(t *testing.T) {
	for _, tc := range []struct {
		extra  int64
		reason string
	}{{0, ""}, {1, RejectProfileTooLarge}} {
		pd, dict, p := testProfile()
		// The first sample's two timestamps are one sample each.
		p.Samples().At(1).Values().SetAt(0, maxECSEvents-2+tc.extra)
		var e Encoder
		e.SetMode(ModeECS)
		var buf []byte
		sink := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
		e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
		sink.encode(dict, p)
		assert.Equal(t, tc.reason, e.Rejection().Reason)
		events := 0
		for _, d := range sink.docs {
			if d.kind == ProfileEvent && d.where == "" {
				events++
			}
		}
		if tc.reason != "" {
			assert.Empty(t, buf)
			assert.Empty(t, sink.docs)
		} else {
			assert.Equal(t, maxECSEvents, events)
		}

		e.SetMode(ModeOTel)
		buf = buf[:0]
		otel := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
		otel.encode(dict, p)
		assert.Empty(t, e.Rejection().Reason)
		assert.NotEmpty(t, otel.docs)
	}
}
