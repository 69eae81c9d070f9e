// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/otel/attribute"
)

// Group commit: the pushes that wait for a request slot share the next bulk request.
//
// A push whose attempt finds a slot free (concurrencyLimiter.tryAcquire) sends at once. One
// that must wait puts its chunk (the documents of its batch the attempt sends) in the
// waiting room, under its partition, and waits for a slot. Whichever push holds a slot for an
// attempt, having added its own chunk, takes the chunks waiting in its partition, in the order
// they came, while the request stays within requestLimit and MaxBulkDocs, and sends them all in
// its request: it leads the request. A push whose chunk was taken stops waiting for a slot (one
// granted meanwhile is given back) and waits for the leader to hand it the outcome of the request:
// its status, Retry-After and error, and the items of the response that answer its chunk,
// numbered from 0 in its own session's compactResponse (handOver). From there each push goes
// on as if it had sent its chunk alone: it classifies its own documents, retries only its own
// failures (a retry is a new chunk, which may be grouped again), dead-letters, hands back at
// shutdown, and counts its documents in its own Result and telemetry. The request itself is
// counted once, by its leader: the request metrics, the concurrency limiter's observation, the
// compression sizes.
//
// A waiting push whose context ends before a leader takes its chunk withdraws it and gives its
// documents up, unsent. Once taken, a chunk is sent whatever happens to the push that leads
// the request: a shared request runs under a context that only RequestTimeout and Abort end.
//
// A partition is what makes requests differ: the metadata_keys attribute set, so that the
// documents of different client metadata are never in one request. The request's parameters
// are those of the request body its leader takes (requestBody), whoever's chunks it holds. The
// mapping mode does not change a request: each document carries its own index.

// groupKey is a partition of the waiting room.
type groupKey struct {
	meta attribute.Distinct
}

// groupWait is a session's place in the waiting room: its chunk while it waits, and the
// outcome of the request a leader sent it in.
type groupWait struct {
	key     groupKey
	batch   *Batch
	pending []int
	bytes   int
	// offset is the position of the chunk's first item in the leader's request.
	offset int
	// taken tells that a leader took the chunk; under the room's lock.
	taken bool
	// wake receives a value when a leader takes the chunk, done when its outcome is in res.
	wake, done chan struct{}
	res        flushResult
	// failed holds the failed documents of res, numbered in the session's compactResponse.
	failed []docappender.BulkIndexerResponseItem
}

func newGroupWait() groupWait {
	return groupWait{wake: make(chan struct{}, 1), done: make(chan struct{}, 1)}
}

// waitingRoom holds the chunks that wait for a request slot, by partition, in arrival order.
type waitingRoom struct {
	mu      sync.Mutex
	waiting map[groupKey][]*session
	// n is the number of chunks waiting, read without the lock to skip an empty room.
	n atomic.Int32
}

// enter puts the chunk of s in the room.
func (w *waitingRoom) enter(s *session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == nil {
		w.waiting = map[groupKey][]*session{}
	}
	w.waiting[s.group.key] = append(w.waiting[s.group.key], s)
	w.n.Add(1)
}

// leave takes the chunk of s out of the room, unless a leader took it: it reports whether
// one did.
func (w *waitingRoom) leave(s *session) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.group.taken {
		return true
	}
	key := s.group.key
	q := w.waiting[key]
	if i := slices.Index(q, s); i >= 0 {
		q = slices.Delete(q, i, i+1)
		w.n.Add(-1)
	}
	w.setLocked(key, q)
	return false
}

// take appends to followers the chunks waiting under key, in arrival order, while size plus
// their bytes stays within limit and docs plus their documents within maxDocs (0: no cap),
// and marks them taken.
func (w *waitingRoom) take(followers []*session, key groupKey, size, limit, docs, maxDocs int) []*session {
	if w.n.Load() == 0 {
		return followers
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.waiting[key]
	n := 0
	for ; n < len(q); n++ {
		g := &q[n].group
		if size+g.bytes > limit || (maxDocs > 0 && docs+len(g.pending) > maxDocs) {
			break
		}
		size += g.bytes
		docs += len(g.pending)
	}
	if n == 0 {
		return followers
	}
	for _, f := range q[:n] {
		f.group.taken = true
		f.group.wake <- struct{}{}
	}
	followers = append(followers, q[:n]...)
	rest := copy(q, q[n:])
	clear(q[rest:])
	w.n.Add(int32(-n))
	w.setLocked(key, q[:rest])
	return followers
}

// setLocked stores the queue of key, dropping it when empty so that partitions come and go.
func (w *waitingRoom) setLocked(key groupKey, q []*session) {
	if len(q) == 0 {
		delete(w.waiting, key)
		return
	}
	w.waiting[key] = q
}

// chunkBytes returns the bytes the documents pending of b add to a request.
func chunkBytes(b *Batch, pending []int) int {
	n := 0
	for _, i := range pending {
		n += itemBytes(b, i)
	}
	return n
}

// handOver gives the follower f the outcome of the request the leader s sent its chunk in:
// res, and when the response matched the request, the items answering f's chunk, numbered
// from 0, in f's own compactResponse and failed documents.
func handOver(s, f *session, res flushResult) {
	g := &f.group
	out := flushResult{status: res.status, retryAfter: res.retryAfter, err: res.err, mismatch: res.mismatch, addErr: res.addErr, shared: true}
	if res.err == nil && res.mismatch == nil && res.addErr == nil {
		lo, hi := g.offset, g.offset+len(g.pending)
		r, fr := &s.client.resp, &f.client.resp
		fr.reset()
		fr.items = len(g.pending)
		k0, k1 := sort.SearchInts(r.kept, lo), sort.SearchInts(r.kept, hi)
		fr.kept = rebase(fr.kept, r.kept, lo, hi)
		fr.failureStore = rebase(fr.failureStore, r.failureStore, lo, hi)
		fr.failureStoreFailed = rebase(fr.failureStoreFailed, r.failureStoreFailed, lo, hi)
		fr.failureStoreNotEnabled = rebase(fr.failureStoreNotEnabled, r.failureStoreNotEnabled, lo, hi)
		for _, o := range r.odd {
			if o.pos >= lo && o.pos < hi {
				o.pos -= lo
				fr.odd = append(fr.odd, o)
			}
		}
		failed := g.failed[:0]
		for _, d := range res.stat.FailedDocs {
			if d.Position >= k0 && d.Position < k1 {
				d.Position -= k0
				failed = append(failed, d)
			}
		}
		g.failed = failed
		out.stat.FailedDocs = failed
		out.stat.Indexed = int64(k1 - k0 - len(failed))
	}
	g.res = out
	g.done <- struct{}{}
}

// rebase appends to dst the sorted positions of src in [lo, hi), less lo.
func rebase(dst, src []int, lo, hi int) []int {
	dst = dst[:0]
	for _, p := range src[sort.SearchInts(src, lo):] {
		if p >= hi {
			break
		}
		dst = append(dst, p-lo)
	}
	return dst
}
