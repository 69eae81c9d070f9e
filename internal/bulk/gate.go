// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"sync"
)

// Two limits on what the exporter has in flight, apart from the Indexer's send loop so that
// each can change without the other:
//
//   - ByteBudget (budget.go) caps the bytes held by the pushes of one exporter (all signals): encoded
//     documents waiting to be sent or retried, and their request buffers. A push that does
//     not fit waits, which pushes back on the collector's pipeline.
//   - concurrencyLimiter (concurrency.go) caps the bulk requests in flight at once, adapting the cap to how
//     Elasticsearch copes (AIMD) and to the size of the requests (see adaptLocked).
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
	return g.acquireUnless(ctx, n, nil)
}

// errStopWaiting is returned by acquireUnless when its stop channel is readable.
var errStopWaiting = errors.New("stopped waiting")

// tryAcquire takes n if it fits now and nobody waits, and reports whether it did.
func (g *gate) tryAcquire(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiters) == 0 && g.fitsLocked(n) {
		g.used += n
		return true
	}
	return false
}

// acquireUnless is acquire that also stops waiting, with errStopWaiting, once a value can be
// received from stop (which it receives); a nil stop never does. On error nothing is held.
func (g *gate) acquireUnless(ctx context.Context, n int64, stop <-chan struct{}) error {
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

	err := errStopWaiting
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-stop:
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
	return err
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

// reserve lowers a limited capacity by n, to no less than 1.
func (g *gate) reserve(n int64) {
	g.mu.Lock()
	if g.capacity > 0 {
		g.capacity = max(g.capacity-n, 1)
	}
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
