// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"fmt"
	"sync/atomic"
)

// ByteBudget caps the bytes that the pushes of one exporter hold in flight. It is shared by
// the logs, metrics, traces and profiles exporters of a component and safe for concurrent use.
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

// Reserve takes n bytes out of the capacity for good, for memory that the cap counts but no
// push holds (the batches kept between pushes). A push larger than what is left still runs
// alone once no other push holds room.
func (b *ByteBudget) Reserve(n int64) { b.g.reserve(n) }

// Held returns the bytes held now.
func (b *ByteBudget) Held() int64 { return b.g.held() }

// Stop lifts the cap: the exporter is shutting down, and the pushes that still come, from the
// sending queue's drain, go on to the Indexer, which is stopped too and gives their documents
// up, counted, without holding them.
func (b *ByteBudget) Stop() { b.g.setCapacity(0) }

// RequestBufferBytes returns the memory a Send of n bytes of encoded documents needs for its
// request body: one request of at most MaxBulkBytes, compressed by the ratio of the last
// request sent (none before the first), and the piece it is assembled in (see chunk); with
// Config.Snappy, the whole uncompressed request instead of the piece; with gzip, the state of
// the compressor (compressorBytes). The exporter counts it in its ByteBudget, for each push:
// an upper bound, since a push holds a request body only while its request is built and sent
// (requestBody), and at most Concurrency.Max are.
func (ix *Indexer) RequestBufferBytes(n int) int {
	if ix.cfg.MaxBulkBytes > 0 {
		n = min(n, ix.cfg.MaxBulkBytes)
	}
	if ix.codec != nil {
		// The bulk indexer may hold the request uncompressed, for the client to encode it
		// (encoding.go).
		return ix.sizes.compressed(n) + n
	}
	state := 0
	if n > 0 && ix.cfg.CompressionLevel != 0 {
		state = compressorBytes
	}
	return ix.sizes.compressed(n) + min(n, bodyPiece) + state
}

// compressorBytes is what the gzip writer of a request body holds once it has written a
// request: the tables and history of klauspost/compress's encoder at the low levels the
// exporter uses (about 0.9 MiB at level 1 in the heap profile of a collector under load).
const compressorBytes = 1 << 20

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
