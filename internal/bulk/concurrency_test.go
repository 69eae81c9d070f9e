// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimiterStartsLowAndGrowsWithLargeRequests(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	assert.Equal(t, startLimit, l.Limit(), "starts low")
	*l.fill = growFill
	var up []int
	for range 10 {
		up = append(up, full(t, l, clock, 10*time.Millisecond, false))
	}
	// The first window sets the RTT baseline; then one more per window, up to the maximum.
	assert.Equal(t, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 10}, up)
}

func TestLimiterStartsAtAMaximumBelowTheStart(t *testing.T) {
	l, _ := newTestLimiter(1, true)
	assert.Equal(t, 1, l.Limit())
}

func TestLimiterHoldsWithMidSizedRequests(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	*l.fill = (growFill + shrinkFill) / 2
	for range 10 {
		full(t, l, clock, 10*time.Millisecond, false)
	}
	assert.Equal(t, startLimit, l.Limit(), "requests neither large enough to grow nor small enough to shrink")
}

func TestLimiterShrinksWithSmallRequestsWhilePushesWait(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 10*time.Millisecond, 10)

	// Small requests at the limit: pushes wait for slots, fewer slots make them share requests.
	*l.fill = shrinkFill / 2
	var down []int
	for range 12 {
		down = append(down, full(t, l, clock, 10*time.Millisecond, false))
	}
	// (The first window still holds mostly requests of the previous round.)
	assert.Equal(t, []int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1}, down, "down by one per window, never below 1")
	// At the lowest limit, a push that finds nothing in flight still has a slot at once.
	require.True(t, l.tryAcquire())
}

func TestLimiterKeepsItsLimitWhenNoPushWaits(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 10*time.Millisecond, 10)
	// Small requests, the limit reached, but each push found its slot free: shrinking would
	// only make them wait.
	*l.fill = shrinkFill / 2
	for range 5 {
		for range l.Limit() {
			require.True(t, l.tryAcquire())
		}
		clock.advance(10 * time.Millisecond)
		for range l.Limit() {
			l.release(10*time.Millisecond, false, true)
		}
	}
	assert.Equal(t, 10, l.Limit())
}

func TestLimiterKeepsItsLimitWithSmallRequestsBelowIt(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 10*time.Millisecond, 10)
	// A low rate: small requests, never the limit reached. Nothing waits, nothing changes.
	*l.fill = shrinkFill / 2
	for range 5 {
		round(t, l, clock, 3, 10*time.Millisecond, false)
	}
	assert.Equal(t, 10, l.Limit())
}

func TestLimiterShrinksUnderBackpressureAndRecovers(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 10*time.Millisecond, 10)

	// 429s: one decrease per window, to 90% and at least by one, down to 1 and no lower.
	var down []int
	for range 12 {
		down = append(down, full(t, l, clock, 10*time.Millisecond, true))
	}
	assert.Equal(t, []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1}, down)

	// Recovery: RTT at the baseline and the limit reached, one more per window up to the
	// maximum.
	var up []int
	for range 12 {
		up = append(up, full(t, l, clock, 10*time.Millisecond, false))
	}
	assert.Equal(t, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10}, up)
}

func TestLimiterMultiplicativeDecrease(t *testing.T) {
	l, clock := newTestLimiter(100, true)
	rampUp(t, l, clock, 10*time.Millisecond, 100)
	var got []int
	for range 4 {
		got = append(got, full(t, l, clock, 10*time.Millisecond, true))
	}
	assert.Equal(t, []int{90, 81, 72, 64}, got)
}

func TestLimiterShrinksWhenLatencyClimbs(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 20*time.Millisecond, 10)

	// 30 ms is within the relative bound (50% above the baseline): no change.
	full(t, l, clock, 29*time.Millisecond, false)
	assert.Equal(t, 10, l.Limit(), "a moderate rise is not congestion")

	// Well above the baseline: decrease; as the baseline follows the new latency, the
	// decreases stop.
	var got []int
	for range 12 {
		got = append(got, full(t, l, clock, 200*time.Millisecond, false))
	}
	// The step up decreases the limit; once the baseline has followed it, 200 ms is the new
	// normal and the limit grows back.
	assert.Equal(t, []int{9, 8, 8, 9, 10, 10, 10, 10, 10, 10, 10, 10}, got)

	// Latency that keeps climbing keeps the limit going down.
	got = got[:0]
	rtt := 200 * time.Millisecond
	for range 5 {
		rtt *= 2
		got = append(got, full(t, l, clock, rtt, false))
	}
	// (The first window still holds mostly requests of the previous round.)
	assert.Equal(t, []int{10, 9, 8, 7, 6}, got)
}

func TestLimiterGrowsOnlyWhenTheLimitIsReached(t *testing.T) {
	l, clock := newTestLimiter(10, true)
	rampUp(t, l, clock, 10*time.Millisecond, 10)
	for range 3 {
		full(t, l, clock, 10*time.Millisecond, true)
	}
	// The first healthy round ends the window of the last 429s.
	round(t, l, clock, 2, 10*time.Millisecond, false)
	before := l.Limit()
	require.Less(t, before, 10)
	// Two requests at a time never reach the limit: there is no demand for more.
	for range 5 {
		round(t, l, clock, 2, 10*time.Millisecond, false)
	}
	assert.Equal(t, before, l.Limit())
}

func TestLimiterIgnoresFailuresWithoutBackpressure(t *testing.T) {
	l, clock := newTestLimiter(5, true)
	rampUp(t, l, clock, 10*time.Millisecond, 5)
	// Refused connections: neither back-pressure nor an RTT sample.
	for range 5 {
		require.NoError(t, l.acquire(context.Background()))
		clock.advance(time.Second)
		l.release(time.Microsecond, false, false)
	}
	assert.Equal(t, 5, l.Limit())
}

func TestLimiterFixedWhenNotAdaptive(t *testing.T) {
	l, clock := newTestLimiter(4, false)
	for range 5 {
		full(t, l, clock, 10*time.Millisecond, true)
	}
	assert.Equal(t, 4, l.Limit())
}

func TestLimiterBlocksBeyondTheLimit(t *testing.T) {
	l, _ := newTestLimiter(2, false)
	ctx := context.Background()
	require.NoError(t, l.acquire(ctx))
	require.NoError(t, l.acquire(ctx))

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, l.acquire(short), context.DeadlineExceeded, "a third request waits")

	got := make(chan error, 1)
	go func() { got <- l.acquire(ctx) }()
	require.Eventually(t, func() bool { return l.g.waiting() == 1 }, 10*time.Second, time.Millisecond,
		"a request beyond the limit waits")
	l.release(time.Millisecond, false, true)
	require.NoError(t, <-got, "a slot given back lets the waiter through")
}

func TestLimiterNoLimit(t *testing.T) {
	l, _ := newTestLimiter(0, true)
	for range 100 {
		require.NoError(t, l.acquire(context.Background()))
	}
	assert.Equal(t, 0, l.Limit())
}

func TestRequestBackpressure(t *testing.T) {
	none := &docappender.BulkIndexerResponseStat{}
	items429 := &docappender.BulkIndexerResponseStat{FailedDocs: []docappender.BulkIndexerResponseItem{
		{Status: http.StatusBadRequest}, {Status: http.StatusTooManyRequests},
	}}
	items400 := &docappender.BulkIndexerResponseStat{FailedDocs: []docappender.BulkIndexerResponseItem{{Status: http.StatusBadRequest}}}
	tests := []struct {
		name   string
		status int
		stat   *docappender.BulkIndexerResponseStat
		err    error
		ctxErr error
		want   bool
	}{
		{"ok", http.StatusOK, none, nil, nil, false},
		{"request 429", http.StatusTooManyRequests, none, nil, nil, true},
		{"request 503", http.StatusServiceUnavailable, none, nil, nil, true},
		{"request 502", http.StatusBadGateway, none, nil, nil, true},
		{"request 504", http.StatusGatewayTimeout, none, nil, nil, true},
		{"request 400", http.StatusBadRequest, none, nil, nil, false},
		{"item 429", http.StatusOK, items429, nil, nil, true},
		{"item 400", http.StatusOK, items400, nil, nil, false},
		{"request timeout", 0, none, context.DeadlineExceeded, nil, true},
		{"push canceled", 0, none, context.Canceled, context.Canceled, false},
		{"push deadline", 0, none, context.DeadlineExceeded, context.DeadlineExceeded, false},
		{"connection refused", 0, none, &testNetError{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, requestBackpressure(tt.status, tt.stat, tt.err, tt.ctxErr))
		})
	}
}
