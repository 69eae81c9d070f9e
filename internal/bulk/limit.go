// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/otel/metric"
)

// This file holds the two limits on what the exporter has in flight, apart from the Indexer's
// send loop so that each can change without the other:
//
//   - ByteBudget caps the bytes held by the pushes of one exporter (all signals): encoded
//     documents waiting to be sent or retried, and their request buffers. A push that does
//     not fit waits, which pushes back on the collector's pipeline.
//   - concurrencyLimiter caps the bulk requests in flight at once, adapting the cap to how
//     Elasticsearch copes (AIMD, see adaptLocked).
//
// Both hand out room first come, first served through a gate.

// gate hands out room from a capacity, first come, first served: a request that does not fit
// waits, and so do the requests behind it, so that a large one is never starved by small ones.
// A request larger than the whole capacity is let through when nothing else holds room, so it
// cannot wait forever. It is safe for concurrent use.
type gate struct {
	mu       sync.Mutex
	capacity int64 // 0 or less: no limit
	used     int64
	waiters  []*gateWaiter
}

type gateWaiter struct {
	n     int64
	ready chan struct{} // closed once granted
}

func newGate(capacity int64) *gate { return &gate{capacity: capacity} }

// fitsLocked tells whether n more fit now. g.mu must be held.
func (g *gate) fitsLocked(n int64) bool {
	return g.capacity <= 0 || g.used == 0 || g.used+n <= g.capacity
}

// acquire takes n, waiting for room until ctx ends. On error nothing is held.
func (g *gate) acquire(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil // nothing to wait for, e.g. a push with no records
	}
	g.mu.Lock()
	if len(g.waiters) == 0 && g.fitsLocked(n) {
		g.used += n
		g.mu.Unlock()
		return nil
	}
	w := &gateWaiter{n: n, ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.ready:
		// Granted meanwhile: give it back.
		g.used -= n
	default:
		for i, o := range g.waiters {
			if o == w {
				g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
				break
			}
		}
	}
	// The waiter gone may have held up those behind it.
	g.grantLocked()
	return ctx.Err()
}

// grow takes n without waiting, even past the capacity.
func (g *gate) grow(n int64) {
	g.mu.Lock()
	g.used += n
	g.mu.Unlock()
}

// release gives back n.
func (g *gate) release(n int64) {
	g.mu.Lock()
	g.used -= n
	g.grantLocked()
	g.mu.Unlock()
}

// setCapacity changes the capacity; waiters that now fit are let through.
func (g *gate) setCapacity(c int64) {
	g.mu.Lock()
	g.capacity = c
	g.grantLocked()
	g.mu.Unlock()
}

// grantLocked lets through, in order, the waiters that fit. g.mu must be held.
func (g *gate) grantLocked() {
	for len(g.waiters) > 0 && g.fitsLocked(g.waiters[0].n) {
		w := g.waiters[0]
		g.waiters[0] = nil
		g.waiters = g.waiters[1:]
		g.used += w.n
		close(w.ready)
	}
}

// held returns the room taken now.
func (g *gate) held() int64 {
	used, _ := g.state()
	return used
}

// waiting returns the number of acquires waiting.
func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters)
}

// state returns the room taken and the capacity.
func (g *gate) state() (used, capacity int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used, g.capacity
}

// ByteBudget caps the bytes that the pushes of one exporter hold in flight. It is shared by
// the logs, metrics and traces exporters of a component and safe for concurrent use.
//
// A push takes room before it holds the bytes (Acquire, from an estimate), corrects the amount
// once it knows it (Grow or Release; growing never waits, so two pushes that both grow cannot
// wait for each other), and gives everything back when it returns. Room is handed out first
// come, first served. A push larger than the whole cap goes through when no other push holds
// room, so it runs alone and never waits forever. The bytes held can thus exceed the cap by
// what the pushes under way underestimated, and by one push larger than the cap.
type ByteBudget struct {
	g *gate
}

// NewByteBudget returns a budget of maxBytes; 0 or less means no cap (the bytes are counted,
// nothing waits).
func NewByteBudget(maxBytes int64) *ByteBudget { return &ByteBudget{g: newGate(maxBytes)} }

// Acquire takes n bytes, waiting until they fit. It returns an error, and holds nothing, when
// ctx ends first; the error is not permanent, so the caller's data is kept or sent again.
func (b *ByteBudget) Acquire(ctx context.Context, n int64) error {
	if err := b.g.acquire(ctx, n); err != nil {
		held, capacity := b.g.state()
		return fmt.Errorf("waiting for room for %d bytes under the in-flight byte cap of %d bytes (%d held): %w",
			n, capacity, held, err)
	}
	return nil
}

// Grow takes n more bytes without waiting.
func (b *ByteBudget) Grow(n int64) { b.g.grow(n) }

// Release gives back n bytes.
func (b *ByteBudget) Release(n int64) { b.g.release(n) }

// Held returns the bytes held now.
func (b *ByteBudget) Held() int64 { return b.g.held() }

// Stop lifts the cap: the exporter is shutting down, and the pushes that still come, from the
// sending queue's drain, go on to the Indexer, which is stopped too and gives their documents
// up, counted, without holding them.
func (b *ByteBudget) Stop() { b.g.setCapacity(0) }

// ConcurrencyConfig configures the limit on bulk requests in flight at once, shared by every
// Send of an Indexer.
type ConcurrencyConfig struct {
	// Max is the most bulk requests in flight at once; 0 or less means no limit.
	Max int
	// Adaptive lets the limit move between 1 and Max (see adaptLocked); otherwise it stays at
	// Max.
	Adaptive bool
	// now is the clock; nil means time.Now. Tests set it.
	now func() time.Time
}

// The AIMD parameters. They follow the usual choices for adaptive request concurrency: a
// smoothing factor of 0.4 for the RTT baseline, a decrease to 90% of the limit, and a rise of
// the RTT above the baseline by 2.5 mean deviations counting as congestion. The relative
// bound keeps a very steady baseline (deviation near 0) from reading jitter as congestion, and
// the absolute one keeps sub-millisecond noise on a fast link from doing so.
const (
	rttAlpha          = 0.4
	decreaseRatio     = 0.9
	rttDeviationScale = 2.5
	rttRelativeBound  = 0.5
	minRTTRise        = 5 * time.Millisecond
	minWindow         = time.Millisecond
)

// concurrencyLimiter caps the bulk requests in flight. When adaptive, it changes the cap once
// per window of about one round-trip time, like TCP congestion control and Vector's adaptive
// request concurrency:
//
//   - multiplicative decrease (to 90%, at least by one, never below 1) when a request of the
//     window met back-pressure — 429 for the request or for any document, 502, 503, 504, or
//     the request timed out — or when the window's mean RTT is well above the baseline (more
//     than 2.5 mean deviations, more than 50% and more than 5 ms above it);
//   - additive increase (by one, up to Max) when the limit was reached during the window, so
//     that more requests were wanted, and the window's mean RTT is near the baseline (within
//     one mean deviation of it);
//   - otherwise no change.
//
// The baseline is an exponentially weighted moving average of the windows' mean RTTs, and of
// their deviation from it; requests that met back-pressure or failed do not feed it.
type concurrencyLimiter struct {
	g        *gate
	adaptive bool
	max      int
	gauge    metric.Int64Gauge
	now      func() time.Time

	mu    sync.Mutex
	limit int
	// baseline RTT, in seconds, and its mean deviation; valid once haveBaseline.
	baseline, deviation float64
	haveBaseline        bool
	// the current window
	windowStart  time.Time
	rttSum       float64
	rttCount     int
	backpressure bool
	atLimit      bool
	inFlight     int
}

// newConcurrencyLimiter returns a limiter that records its limit to gauge, when not nil.
func newConcurrencyLimiter(cfg ConcurrencyConfig, gauge metric.Int64Gauge) *concurrencyLimiter {
	l := &concurrencyLimiter{adaptive: cfg.Adaptive && cfg.Max > 0, max: cfg.Max, gauge: gauge, now: cfg.now}
	if l.now == nil {
		l.now = time.Now
	}
	l.limit = max(cfg.Max, 0)
	l.g = newGate(int64(l.limit))
	l.windowStart = l.now()
	l.recordLocked()
	return l
}

// Limit returns the current limit; 0 means none.
func (l *concurrencyLimiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// acquire waits for a request slot until ctx ends.
func (l *concurrencyLimiter) acquire(ctx context.Context) error {
	if err := l.g.acquire(ctx, 1); err != nil {
		return err
	}
	l.mu.Lock()
	l.inFlight++
	if l.limit > 0 && l.inFlight >= l.limit {
		l.atLimit = true
	}
	l.mu.Unlock()
	return nil
}

// release gives the slot back with what the request showed: its round-trip time, and whether
// it met back-pressure (then the RTT is not a sample of normal service) or failed otherwise
// (sample false: a refused connection says nothing about latency).
func (l *concurrencyLimiter) release(rtt time.Duration, backpressure, sample bool) {
	l.mu.Lock()
	l.inFlight--
	changed := false
	if l.adaptive {
		switch {
		case backpressure:
			l.backpressure = true
		case sample:
			l.rttSum += rtt.Seconds()
			l.rttCount++
		}
		changed = l.adaptLocked()
		if changed {
			l.recordLocked()
		}
	}
	limit := l.limit
	l.mu.Unlock()
	if changed {
		l.g.setCapacity(int64(limit))
	}
	l.g.release(1)
}

// adaptLocked ends the window when it has lasted about one RTT, and changes the limit as the
// type's doc says. It reports whether the limit changed. l.mu must be held.
func (l *concurrencyLimiter) adaptLocked() bool {
	now := l.now()
	window := minWindow
	if l.haveBaseline {
		window = max(window, time.Duration(l.baseline*float64(time.Second)))
	}
	if now.Sub(l.windowStart) < window {
		return false
	}
	old := l.limit
	var mean float64
	if l.rttCount > 0 {
		mean = l.rttSum / float64(l.rttCount)
	}
	switch {
	case l.backpressure:
		l.decreaseLocked()
	case l.rttCount == 0:
		// Nothing was learned.
	case !l.haveBaseline:
		l.baseline, l.deviation, l.haveBaseline = mean, 0, true
	default:
		high := l.baseline + max(rttDeviationScale*l.deviation, rttRelativeBound*l.baseline, minRTTRise.Seconds())
		switch {
		case mean > high:
			l.decreaseLocked()
		case l.atLimit && mean <= l.baseline+l.deviation && l.limit < l.max:
			l.limit++
		}
		diff := mean - l.baseline
		l.baseline += rttAlpha * diff
		l.deviation += rttAlpha * (math.Abs(diff) - l.deviation)
	}
	l.windowStart = now
	l.rttSum, l.rttCount = 0, 0
	l.backpressure = false
	l.atLimit = l.inFlight >= l.limit
	return l.limit != old
}

func (l *concurrencyLimiter) decreaseLocked() {
	next := int(float64(l.limit) * decreaseRatio)
	if next >= l.limit {
		next = l.limit - 1
	}
	l.limit = max(next, 1)
}

// recordLocked sets the gauge to the current limit; under l.mu, so that two changes are
// recorded in the order they happened.
func (l *concurrencyLimiter) recordLocked() {
	if l.gauge != nil {
		l.gauge.Record(context.Background(), int64(l.limit))
	}
}

// requestBackpressure tells whether a finished request is a sign that Elasticsearch is
// overloaded: 429 for the request or any of its documents, 502, 503 or 504, or a request that
// timed out while its push had not ended. ctxErr is the push's context error.
func requestBackpressure(status int, stat *docappender.BulkIndexerResponseStat, err, ctxErr error) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case 0:
		return ctxErr == nil && errors.Is(err, context.DeadlineExceeded)
	}
	for _, f := range stat.FailedDocs {
		if f.Status == http.StatusTooManyRequests {
			return true
		}
	}
	return false
}

// ConcurrencyLimit returns the current limit on bulk requests in flight; 0 means none.
func (ix *Indexer) ConcurrencyLimit() int { return ix.requests.Limit() }

// RequestBufferBytes returns the memory a Send of n bytes of encoded documents needs for its
// request body: one request of at most MaxBulkBytes, compressed by the ratio of the last
// request sent (none before the first), and the piece it is assembled in (see requestBody).
// The exporter counts it in its ByteBudget.
func (ix *Indexer) RequestBufferBytes(n int) int {
	if ix.cfg.MaxBulkBytes > 0 {
		n = min(n, ix.cfg.MaxBulkBytes)
	}
	return ix.sizes.compressed(n) + min(n, bodyPiece)
}

// requestSizes tracks the compression ratio of request bodies. It is safe for concurrent use.
type requestSizes struct {
	// ratio is the last compressed/uncompressed ratio, in millionths; 0 before the first
	// request.
	ratio atomic.Int64
}

func (r *requestSizes) observe(compressed, uncompressed int) {
	if uncompressed > 0 {
		r.ratio.Store(int64(compressed) * 1_000_000 / int64(uncompressed))
	}
}

// compressed returns what n uncompressed bytes take once compressed.
func (r *requestSizes) compressed(n int) int {
	ratio := r.ratio.Load()
	if ratio <= 0 || ratio >= 1_000_000 {
		return n
	}
	return int(int64(n) * ratio / 1_000_000)
}
