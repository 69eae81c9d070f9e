// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

// sizeRecovery is how long a request size limit learned from a 413 holds before it doubles,
// on its way back to MaxBulkBytes.
const sizeRecovery = 5 * time.Minute

// sizeLimit remembers, across Sends, the request size that a server or a proxy in front of it
// accepts after it answered 413 Request Entity Too Large: the requests that follow are cut at
// that size rather than at MaxBulkBytes, so that they are not refused and split again. The
// limit is half the size of the last request refused. It doubles after every sizeRecovery
// without a 413, until it is MaxBulkBytes again (a limit raised on the server is used again
// within minutes; one that still holds costs one 413 and a split per sizeRecovery). It is safe
// for concurrent use.
type sizeLimit struct {
	mu    sync.Mutex
	limit int       // 0 when none is learned
	since time.Time // the last 413, or the last doubling
}

// get returns the size to cut requests at: configured, or less after a 413.
func (l *sizeLimit) get(configured int, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit == 0 {
		return configured
	}
	for l.limit < configured && now.Sub(l.since) >= sizeRecovery {
		l.limit *= 2
		l.since = l.since.Add(sizeRecovery)
	}
	if l.limit >= configured {
		l.limit = 0
		return configured
	}
	return l.limit
}

// refused notes that a request of size bytes was answered 413, and returns the new limit and
// whether it went down.
func (l *sizeLimit) refused(size int, now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since = now
	half := max(size/2, 1)
	if l.limit == 0 || half < l.limit {
		l.limit = half
		return half, true
	}
	return l.limit, false
}

// requestLimit returns the size at which Sends cut their requests.
func (ix *Indexer) requestLimit() int {
	return ix.sizeLimit.get(ix.cfg.MaxBulkBytes, time.Now())
}

// tooLarge notes that the request of the documents pending of b was answered 413.
func (ix *Indexer) tooLarge(b *Batch, pending []int) {
	ix.refusedSize(chunkBytes(b, pending))
}

// refusedSize notes that a request of size bytes was answered 413.
func (ix *Indexer) refusedSize(size int) {
	if limit, lowered := ix.sizeLimit.refused(size, time.Now()); lowered && limit < ix.cfg.MaxBulkBytes {
		ix.cfg.Logger.Warn("Bulk request too large for the server; cutting requests smaller for a while",
			zap.Int("refused_bytes", size), zap.Int("max_request_bytes", limit), zap.Duration("recovery", sizeRecovery))
	}
}
