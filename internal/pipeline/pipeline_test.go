// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// A bad static index or date format fails the check of the settings and the building of the
// pipeline, naming the key.
func TestNewRefusesBadRouting(t *testing.T) {
	set := testSettings()
	set.TracesIndex = "Bad*Index"
	require.ErrorContains(t, CheckSettings(set), "`traces_index`")
	_, err := New(set, nil, nil, nil, nil, nil)
	require.ErrorContains(t, err, "`traces_index`")
	assert.NoError(t, CheckSettings(testSettings()))
}

// A push is admitted for its records times the encoded bytes per record of the signal's last
// push, with the headroom of its batch buffer and its documents' metadata (and the request
// buffer for them; none without a bulk indexer), and that estimate is what sizes its batch; before the
// first push of a signal, the initial estimate is used. Once encoded, the push holds what its
// batch retains, as allocated.
func TestAdmissionEstimatesFromEncodedBytes(t *testing.T) {
	p := newTestPipeline(t, testSettings())
	ctx := t.Context()

	a, err := p.admit(ctx, signal.Logs, 100)
	require.NoError(t, err)
	assert.Equal(t, 100*initialBytesPerRecord[signal.Logs], a.encoded)
	assert.Equal(t, a.encoded+a.encoded/batchHeadroom+100*bulk.ItemBytes, a.held)

	p.holdInflight(&a, 50_000, 60_000) // the push encoded 500 bytes per record, in 60,000 bytes of batch
	assert.Equal(t, int64(50_000), a.encoded)
	assert.Equal(t, int64(60_000), a.held)
	p.budget.Release(a.held)

	b, err := p.admit(ctx, signal.Logs, 300)
	require.NoError(t, err)
	assert.Equal(t, int64(150_000), b.encoded)
	p.budget.Release(b.held)

	c, err := p.admit(ctx, signal.Traces, 10)
	require.NoError(t, err)
	assert.Equal(t, 10*initialBytesPerRecord[signal.Traces], c.encoded, "each signal has its own estimate")
	p.budget.Release(c.held)
}

// The batches kept between pushes are counted in the in-flight cap from the start: a quarter of
// it is taken out of what pushes may hold, and a push larger than the rest still runs alone.
func TestStateRetentionIsCounted(t *testing.T) {
	set := testSettings()
	set.MaxInflightBytes = 64 << 20
	budget := bulk.NewByteBudget(set.MaxInflightBytes)
	_, err := New(set, nil, nil, budget, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(16<<20), stateRetention(set))
	assert.Zero(t, budget.Held())

	require.NoError(t, budget.Acquire(t.Context(), 48<<20))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	require.Error(t, budget.Acquire(ctx, 1), "48 MiB of 64 are left to pushes")
	budget.Release(48 << 20)
	require.NoError(t, budget.Acquire(t.Context(), 100<<20), "a push larger than the cap runs alone")
	budget.Release(100 << 20)

	set.MaxInflightBytes = 0
	assert.Equal(t, int64(16<<20), stateRetention(set), "no cap: a fixed bound")
}

// A push's batch buffer is allocated with the whole headroom over its estimate, and a buffer
// kept from an earlier push is reused while it holds the estimate with half of it.
func TestGrowBatchReusesWithinHeadroom(t *testing.T) {
	var b bulk.Batch
	growBatch(&b, 1000, 10)
	assert.GreaterOrEqual(t, cap(b.Buf), 1250, "the estimate and a quarter")
	assert.Less(t, cap(b.Buf), 1500)
	kept := &b.Buf[:1][0]

	growBatch(&b, 1100, 10) // 1,100 and an eighth fit in 1,250
	assert.Same(t, kept, &b.Buf[:1][0], "the buffer is reused")

	growBatch(&b, 1200, 10) // 1,200 and an eighth do not
	assert.NotSame(t, kept, &b.Buf[:1][0], "a larger buffer replaces it")
	assert.GreaterOrEqual(t, cap(b.Buf), 1500)
}
