// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// statePipeline returns a pipeline, not connected, whose pushes run numConsumers at once and
// whose in-flight cap is inflight bytes.
func statePipeline(t *testing.T, numConsumers int, inflight int64) *Pipeline {
	t.Helper()
	set := testSettings()
	set.NumConsumers = numConsumers
	set.MaxInflightBytes = inflight
	return newTestPipeline(t, set)
}

// fillState leaves st as a push leaves it: documents of n bytes in its batch, counts of repairs
// and rejections, a mode other than otel.
func fillState(st *pushState, n int) {
	for st.batch.Len() < 10 {
		start := len(st.batch.Buf)
		st.batch.Buf = append(st.batch.Buf, make([]byte, n/10)...)
		st.batch.AddTemplate("a", "b")
		st.batch.Add(start, bulk.Item{Index: "logs-x", DocumentID: "id"})
	}
	st.report.Repaired(string(serializer.RepairInvalidUTF8), 1)
	st.reject("x", 1, errors.New("x"))
	st.report.Unsent(bulk.UnsentSkipped, errorTypeNoIndex, 3)
	st.lastDataStream, st.modeRejected = "logs-x", errors.New("mode")
	st.setMode(serializer.ModeECS)
}

// assertReset checks that st holds nothing of the push that used it.
func assertReset(t *testing.T, st *pushState) {
	t.Helper()
	assert.Zero(t, st.batch.Len())
	assert.Empty(t, st.batch.Buf)
	assert.True(t, st.report.Empty(), "the report is empty")
	assert.Empty(t, st.firstRejection)
	assert.Empty(t, st.lastDataStream)
	if st.modeRejected != nil {
		t.Errorf("a mode rejection is kept: %v", st.modeRejected)
	}
	assert.Equal(t, serializer.ModeOTel, st.mode)
}

// A push state, and the memory its batch grew, outlive garbage collections between pushes (a
// sync.Pool would lose them), and come back reset.
func TestPushStateKeptAcrossCollections(t *testing.T) {
	p := statePipeline(t, 4, 64<<20)
	st, err := p.getState()
	require.NoError(t, err)
	fillState(st, 1<<20)
	grown := cap(st.batch.Buf)
	p.putState(st)
	runtime.GC()
	runtime.GC()
	runtime.GC()

	again, err := p.getState()
	require.NoError(t, err)
	assert.Same(t, st, again, "the state kept is the one given back")
	assertReset(t, again)
	assert.Equal(t, grown, cap(again.batch.Buf), "its batch buffer is kept")
}

// The free list keeps at most sending_queue::num_consumers states.
func TestPushStatesKeptAtMostNumConsumers(t *testing.T) {
	p := statePipeline(t, 2, 64<<20)
	var states []*pushState
	for range 3 {
		st, err := p.getState()
		require.NoError(t, err)
		states = append(states, st)
	}
	for _, st := range states {
		p.putState(st)
	}
	assert.Equal(t, 2, p.states.Len())
}

// The batches kept take at most a quarter of max_inflight_bytes: a state whose batch is larger
// is kept without it.
func TestPushStateBuffersKeptWithinAQuarterOfTheInflightCap(t *testing.T) {
	p := statePipeline(t, 4, 4<<20) // 1 MiB of batches kept
	small, err := p.getState()
	require.NoError(t, err)
	large, err := p.getState()
	require.NoError(t, err)
	fillState(small, 512<<10)
	fillState(large, 2<<20)
	p.putState(small)
	p.putState(large)
	assert.Equal(t, 2, p.states.Len(), "both states are kept")
	assert.LessOrEqual(t, p.states.Bytes(), int64(1<<20))

	got, _ := p.getState()
	assert.Same(t, large, got)
	assertReset(t, got)
	assert.Zero(t, cap(got.batch.Buf), "the large batch was let go")
	got, _ = p.getState()
	assert.Same(t, small, got)
	assert.Positive(t, cap(got.batch.Buf), "the small one was kept")
}

// Pushes taking and giving back states at once each hold their own (run under -race).
func TestPushStatesConcurrentUse(t *testing.T) {
	p := statePipeline(t, 3, 64<<20)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				st, err := p.getState()
				if err != nil {
					t.Error(err)
					return
				}
				assertReset(t, st)
				fillState(st, 1<<10)
				p.putState(st)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, p.states.Len(), 3)
}
