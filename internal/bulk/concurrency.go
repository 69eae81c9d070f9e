// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/otel/metric"
)

// ConcurrencyConfig configures the limit on bulk requests in flight at once, shared by every
// Send of an Indexer.
type ConcurrencyConfig struct {
	// Max is the most bulk requests in flight at once; 0 or less means no limit.
	Max int
	// Adaptive lets the limit move between 1 and Max, from startLimit (see adaptLocked);
	// otherwise it stays at Max.
	Adaptive bool
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

// The request size rules. The limit starts at startLimit and grows only while the requests
// it lets through are of a useful size: at least growFill of the request size limit on
// average. It shrinks while they are small, under shrinkFill, and pushes wait for a slot, so
// that pushes that arrive together share fewer, larger requests (group.go): Elasticsearch
// spends about 1–2 ms of CPU per bulk request besides its work per document.
const (
	startLimit = 2
	growFill   = 0.125
	shrinkFill = 0.0625
)

// concurrencyLimiter caps the bulk requests in flight. When adaptive, it starts at startLimit
// (or Max, if lower) and changes the cap once per window of about one round-trip time, like
// TCP congestion control and Vector's adaptive request concurrency, with a rule of its own
// about request sizes:
//
//   - multiplicative decrease (to 90%, at least by one, never below 1) when a request of the
//     window met back-pressure — 429 for the request or for any document, 502, 503, 504, or
//     the request timed out — or when the window's mean RTT is well above the baseline (more
//     than 2.5 mean deviations, more than 50% and more than 5 ms above it);
//   - additive increase (by one, up to Max) when the limit was reached during the window, so
//     that more requests were wanted, the window's mean RTT is near the baseline (within one
//     mean deviation of it), and its requests were of a useful size (growFill): another
//     request in flight then adds throughput without making requests small;
//   - decrease by one when the limit was reached during the window, a push waited for a slot
//     and the window's requests were small (shrinkFill): fewer slots make the pushes that
//     wait share requests;
//   - otherwise no change.
//
// The limit never goes below 1, so a push that finds nothing in flight always sends at once.
//
// The baseline is an exponentially weighted moving average of the windows' mean RTTs, and of
// their deviation from it; requests that met back-pressure or failed do not feed it.
type concurrencyLimiter struct {
	g        *gate
	adaptive bool
	max      int
	gauge    metric.Int64Gauge

	mu    sync.Mutex
	limit int
	// baseline RTT, in seconds, and its mean deviation; valid once haveBaseline.
	baseline, deviation float64
	haveBaseline        bool
	// the current window
	windowStart  time.Time
	rttSum       float64
	rttCount     int
	fillSum      float64 // of the requests answered, each one's size over the size limit
	fillCount    int
	backpressure bool
	atLimit      bool
	// waited tells that a push waited for a slot during the window.
	waited   bool
	inFlight int
}

// newConcurrencyLimiter returns a limiter whose first window starts at now, and that records
// its limit to gauge, when not nil.
func newConcurrencyLimiter(cfg ConcurrencyConfig, gauge metric.Int64Gauge, now time.Time) *concurrencyLimiter {
	l := &concurrencyLimiter{adaptive: cfg.Adaptive && cfg.Max > 0, max: cfg.Max, gauge: gauge}
	l.limit = max(cfg.Max, 0)
	if l.adaptive {
		l.limit = min(l.limit, startLimit)
	}
	l.g = newGate(int64(l.limit))
	l.windowStart = now
	l.recordLocked()
	return l
}

// acquire waits for a request slot until ctx ends.
func (l *concurrencyLimiter) acquire(ctx context.Context) error {
	return l.acquireUnless(ctx, nil)
}

// tryAcquire takes a request slot if one is free now and no one waits for one, and reports
// whether it did.
func (l *concurrencyLimiter) tryAcquire() bool {
	if !l.g.tryAcquire(1) {
		return false
	}
	l.took()
	return true
}

// acquireUnless waits for a request slot until ctx ends or a value can be received from stop
// (see gate.acquireUnless).
func (l *concurrencyLimiter) acquireUnless(ctx context.Context, stop <-chan struct{}) error {
	l.mu.Lock()
	l.waited = true
	l.mu.Unlock()
	if err := l.g.acquireUnless(ctx, 1, stop); err != nil {
		return err
	}
	l.took()
	return nil
}

// giveBack returns a slot taken but not used for a request: nothing is learned from it.
func (l *concurrencyLimiter) giveBack() {
	l.mu.Lock()
	l.inFlight--
	l.mu.Unlock()
	l.g.release(1)
}

// took counts a slot taken.
func (l *concurrencyLimiter) took() {
	l.mu.Lock()
	l.inFlight++
	if l.limit > 0 && l.inFlight >= l.limit {
		l.atLimit = true
	}
	l.mu.Unlock()
}

// release gives the slot back, at now, with what the request showed: its round-trip time, its
// uncompressed size over the request size limit (fill), and whether it met back-pressure (then
// the RTT is not a sample of normal service) or failed otherwise (sample false: a refused
// connection says nothing about latency).
func (l *concurrencyLimiter) release(now time.Time, rtt time.Duration, fill float64, backpressure, sample bool) {
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
			l.fillSum += fill
			l.fillCount++
		}
		changed = l.adaptLocked(now)
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

// adaptLocked ends the window, at now, when it has lasted about one RTT, and changes the limit
// as the type's doc says. It reports whether the limit changed. l.mu must be held.
func (l *concurrencyLimiter) adaptLocked(now time.Time) bool {
	window := minWindow
	if l.haveBaseline {
		window = max(window, time.Duration(l.baseline*float64(time.Second)))
	}
	if now.Sub(l.windowStart) < window {
		return false
	}
	old := l.limit
	var mean, fill float64
	if l.rttCount > 0 {
		mean = l.rttSum / float64(l.rttCount)
		fill = l.fillSum / float64(l.fillCount)
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
		case l.atLimit && l.waited && fill < shrinkFill && l.limit > 1:
			l.limit--
		case l.atLimit && fill >= growFill && mean <= l.baseline+l.deviation && l.limit < l.max:
			l.limit++
		}
		diff := mean - l.baseline
		l.baseline += rttAlpha * diff
		l.deviation += rttAlpha * (math.Abs(diff) - l.deviation)
	}
	l.windowStart = now
	l.rttSum, l.rttCount = 0, 0
	l.fillSum, l.fillCount = 0, 0
	l.backpressure = false
	l.atLimit = l.inFlight >= l.limit
	l.waited = l.g.waiting() > 0
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
