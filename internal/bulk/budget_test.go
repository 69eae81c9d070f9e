// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestByteBudgetWaitsFirstComeFirstServed(t *testing.T) {
	b := NewByteBudget(100)
	ctx := context.Background()
	require.NoError(t, b.Acquire(ctx, 60))

	// 50 does not fit; 10 would, but waits behind it.
	errs := make(chan error, 2)
	for i, n := range []int64{50, 10} {
		go func() { errs <- b.Acquire(ctx, n) }()
		require.Eventually(t, func() bool { return b.g.waiting() == i+1 }, 10*time.Second, time.Millisecond,
			"nothing passes the first waiter")
	}
	b.Release(60)
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	assert.Equal(t, int64(60), b.Held())
}

func TestByteBudgetLetsALargePushThroughAlone(t *testing.T) {
	b := NewByteBudget(100)
	ctx := context.Background()
	require.NoError(t, b.Acquire(ctx, 30))

	done := make(chan error, 1)
	go func() { done <- b.Acquire(ctx, 500) }()
	require.Eventually(t, func() bool { return b.g.waiting() == 1 }, 10*time.Second, time.Millisecond,
		"the large push waits for the others to finish")
	b.Release(30)
	require.NoError(t, <-done, "alone, the large push goes through")
	assert.Equal(t, int64(500), b.Held())

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, b.Acquire(short, 1), context.DeadlineExceeded, "nothing runs beside it")
	b.Release(500)
	require.NoError(t, b.Acquire(ctx, 1))
}

func TestByteBudgetCanceledWaitHoldsNothing(t *testing.T) {
	b := NewByteBudget(100)
	ctx := context.Background()
	require.NoError(t, b.Acquire(ctx, 80))

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	err := b.Acquire(short, 50)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "in-flight byte cap of 100 bytes (80 held)")
	assert.Equal(t, int64(80), b.Held())

	// A canceled waiter at the head no longer holds up the one behind it.
	blocked, cancelBlocked := context.WithCancel(ctx)
	first := make(chan error, 1)
	go func() { first <- b.Acquire(blocked, 90) }()
	require.Eventually(t, func() bool { return b.g.waiting() == 1 }, 10*time.Second, time.Millisecond)
	second := make(chan error, 1)
	go func() { second <- b.Acquire(ctx, 20) }()
	require.Eventually(t, func() bool { return b.g.waiting() == 2 }, 10*time.Second, time.Millisecond)
	cancelBlocked()
	require.ErrorIs(t, <-first, context.Canceled)
	require.NoError(t, <-second)
	assert.Equal(t, int64(100), b.Held())
}

func TestByteBudgetGrowNeverWaits(t *testing.T) {
	b := NewByteBudget(100)
	require.NoError(t, b.Acquire(context.Background(), 90))
	b.Grow(50)
	assert.Equal(t, int64(140), b.Held(), "a push that underestimated takes what it needs")
	b.Release(140)
	assert.Zero(t, b.Held())
}

func TestByteBudgetStopLetsWaitersThrough(t *testing.T) {
	b := NewByteBudget(100)
	require.NoError(t, b.Acquire(context.Background(), 100))
	done := make(chan error, 1)
	go func() { done <- b.Acquire(context.Background(), 100) }()
	require.Eventually(t, func() bool { return b.g.waiting() == 1 }, 10*time.Second, time.Millisecond)
	b.Stop()
	require.NoError(t, <-done)
}

func TestByteBudgetNoCap(t *testing.T) {
	b := NewByteBudget(0)
	for range 10 {
		require.NoError(t, b.Acquire(context.Background(), 1<<30))
	}
	assert.Equal(t, int64(10<<30), b.Held())
}

func TestRequestBufferBytes(t *testing.T) {
	// The compressed request, and the piece its body is assembled in (at most bodyPiece).
	ix := &Indexer{cfg: Config{MaxBulkBytes: 1000}}
	assert.Equal(t, 500+500, ix.RequestBufferBytes(500), "uncompressed before the first request")
	assert.Equal(t, 1000+1000, ix.RequestBufferBytes(5000), "one request at a time")
	ix.sizes.observe(100, 1000)
	assert.Equal(t, 100+1000, ix.RequestBufferBytes(5000), "compressed like the last request")
	ix = &Indexer{cfg: Config{MaxBulkBytes: 5 << 20}}
	ix.sizes.observe(100, 1000)
	assert.Equal(t, (5<<20)/10+bodyPiece, ix.RequestBufferBytes(10<<20), "a piece is at most bodyPiece")
	ix = &Indexer{cfg: Config{MaxBulkBytes: 1000, CompressionLevel: 1}}
	ix.sizes.observe(100, 1000)
	assert.Equal(t, 100+1000+compressorBytes, ix.RequestBufferBytes(5000), "with gzip, the compressor's state")
	assert.Zero(t, ix.RequestBufferBytes(0), "no request, no compressor")
}

// Reserve takes room out of the capacity without holding it: what is left is handed out, and a
// request larger than it still goes through alone.
func TestByteBudgetReserve(t *testing.T) {
	b := NewByteBudget(100)
	b.Reserve(30)
	assert.Zero(t, b.Held())
	require.NoError(t, b.Acquire(context.Background(), 70))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.Error(t, b.Acquire(ctx, 1), "70 of 100 are left")
	b.Release(70)
	require.NoError(t, b.Acquire(context.Background(), 200), "alone, larger than the cap")
	b.Release(200)
}
