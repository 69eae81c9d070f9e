// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// session is the state of one Send: the client of its requests, the scratch of its requests,
// and the outcomes counted so far. The body of a request, a docappender bulk indexer with its
// buffer and compressor, is the session's only while the request is built and sent (see
// requestBody). The Indexer keeps sessions in a free list; putSession clears one for the next
// Send.
type session struct {
	// body is the body of the request the session builds or sends, nil between requests, and
	// bi its bulk indexer.
	body         *requestBody
	bi           *docappender.BulkIndexer
	client       compactClient // the client of the session's requests
	req          bulkRequest   // the chunks of the request being built
	chunk, retry []int
	failures     failureSummary
	result       Result
	// dead lists the documents rejected for good or given up, for the dead-letter index;
	// deadLettering is set while the dead-letter batch itself is sent.
	dead          []deadLetter
	deadLettering bool
	// lastFailure holds, per document of the batch, its last retryable failure, for the
	// dead letter of a document whose retries run out.
	lastFailure []itemFailure
	dlq         Batch
	gen         uint64 // the Indexer's settings generation the bulk indexer was made with
	// cancel ends the context of the Send running, and running is its place among the
	// Indexer's running Sends (runningSends), -1 when none.
	cancel  context.CancelFunc
	running int

	// Telemetry (telemetry.go): the metadata_keys attributes of the Send, scratch for the
	// attributes of one point, the outcome of the last request, the last failure
	// recorded with an outcome, the fates that wait for dead letters, and the request of
	// the last attempt, not counted yet.
	meta                     []attribute.KeyValue
	metaSet                  attribute.Set
	metaAdd                  []metric.AddOption // records metaSet
	attrs                    []attribute.KeyValue
	lastOutcome, failOutcome string
	heldFates                []heldFate
	requestRec               requestRecord
	// retries counts the retries of the Send, of every request of it and of its dead
	// letters: together they make at most Retry.MaxRetries (see canRetry).
	retries int
	// permanent tells that the Send's error must be permanent whatever was written: a
	// resend could store documents twice, or would fail the same way.
	permanent bool
	// unknown counts the documents answered by an odd response item (see compactClient),
	// firstUnknown says why the first one was.
	unknown      int
	firstUnknown string

	// Group commit (group.go): the session's place in the waiting room, and the chunks of
	// other sessions it sends in its request as their leader.
	group     groupWait
	followers []*session
}

// getSession takes a session from the free list, or makes a new one when the list is empty or
// the session it gave was made with older settings.
func (ix *Indexer) getSession() *session {
	gen := ix.gen.Load()
	if s, ok := ix.sessions.Get(); ok && s.gen == gen {
		return s
	}
	return ix.newSession(gen)
}

// putSession clears s and keeps it for the next Send, unless the settings changed since it was
// made or the free list is full.
func (ix *Indexer) putSession(s *session) {
	s.req.reset()
	s.chunk, s.retry = s.chunk[:0], s.retry[:0]
	s.failures.reset()
	s.result = Result{}
	clear(s.dead)
	s.dead = s.dead[:0]
	clear(s.lastFailure)
	s.lastFailure = s.lastFailure[:0]
	s.deadLettering = false
	s.dlq.Reset()
	s.meta, s.metaSet, s.metaAdd = s.meta[:0], attribute.Set{}, nil
	s.lastOutcome, s.failOutcome = "", ""
	s.heldFates = s.heldFates[:0]
	s.requestRec = requestRecord{}
	s.retries, s.permanent, s.unknown, s.firstUnknown = 0, false, 0, ""
	if s.gen == ix.gen.Load() {
		ix.sessions.Put(s, 0)
	}
}

// newSession returns a session of the Indexer's settings generation gen.
func (ix *Indexer) newSession(gen uint64) *session {
	s := &session{gen: gen, running: -1, group: newGroupWait()}
	s.client = compactClient{next: ix.cfg.Client, budget: ix.cfg.Budget, codec: ix.codec, off: ix.snappyOff}
	s.failures.quietConflicts = ix.cfg.SuppressConflictErrors
	return s
}

// flushResult is what an attempt of a chunk learned from its request: the HTTP status of a
// failed request (0 for a network failure), the wait the server asked for with Retry-After,
// the request's error, and for a response that does not match the request, why. addErr is set
// when the request could not be made. shared tells that the request held the chunks of other
// pushes too (group.go). stat and the session's compactResponse hold the response's items, and
// the chunk's first item is at position 0 of them.
type flushResult struct {
	stat       docappender.BulkIndexerResponseStat
	status     int
	retryAfter time.Duration
	err        error
	mismatch   error
	addErr     error
	shared     bool
}

// flush sends the documents pending of b in a bulk request, with the chunks of the pushes of
// the same partition waiting for a request slot when it leads the request, or in the request
// of another push that takes its chunk (see group.go), and records the attempt's telemetry.
func (ix *Indexer) flush(ctx context.Context, s *session, b *Batch, pending []int) flushResult {
	if !ix.requests.tryAcquire() {
		if res, lead := ix.waitForSlot(ctx, s, b, pending); !lead {
			return res
		}
	}
	// s holds a request slot, and takes a request body for it.
	if err := ix.takeBody(s); err != nil {
		ix.requests.giveBack()
		s.lastOutcome = outcomeInternalError
		return flushResult{addErr: err}
	}
	s.req.reset()
	if _, err := s.req.add(s.bi, b, pending); err != nil {
		ix.requests.giveBack()
		return flushResult{addErr: ix.addFailed(s, err)}
	}
	size := 0
	if ix.room.n.Load() > 0 {
		size = chunkBytes(b, pending)
		key := groupKey{meta: s.metaSet.Equivalent()}
		s.followers = ix.room.take(s.followers[:0], key, size, ix.requestLimit(), len(pending), ix.cfg.MaxBulkDocs)
	}
	for _, f := range s.followers {
		size += f.group.bytes
		offset, err := s.req.add(s.bi, f.group.batch, f.group.pending)
		if err != nil {
			ix.requests.giveBack()
			res := flushResult{addErr: ix.addFailed(s, err)}
			ix.handOverAll(s, res)
			return res
		}
		f.group.offset = offset
	}
	res := ix.request(ctx, s)
	ix.putBody(s)
	if res.shared && res.status == http.StatusRequestEntityTooLarge {
		ix.refusedSize(size) // each chunk is sent again (sendChunk)
	}
	ix.handOverAll(s, res)
	return res
}

// addFailed handles a failure to add a chunk to the request: the documents added are not
// sent, and the request body that holds them is dropped (dropBody), so that a later attempt
// adds them again to another.
func (ix *Indexer) addFailed(s *session, err error) error {
	s.lastOutcome = outcomeInternalError
	ix.dropBody(s)
	return fmt.Errorf("adding documents to the bulk request: %w", err)
}

// handOverAll gives each follower of s the outcome of the request, and forgets them.
func (ix *Indexer) handOverAll(s *session, res flushResult) {
	for _, f := range s.followers {
		handOver(s, f, res)
	}
	clear(s.followers)
	s.followers = s.followers[:0]
	s.req.reset() // drop the batch references of the chunks sent
}

// waitForSlot waits for a request slot with the chunk of s in the waiting room. It reports
// lead when s got a slot with its chunk not taken; otherwise res is the outcome of the request
// a leader sent the chunk in, or the error of a wait that ended with ctx.
func (ix *Indexer) waitForSlot(ctx context.Context, s *session, b *Batch, pending []int) (res flushResult, lead bool) {
	g := &s.group
	g.key = groupKey{meta: s.metaSet.Equivalent()}
	g.batch, g.pending, g.bytes, g.taken = b, pending, chunkBytes(b, pending), false
	ix.room.enter(s)
	err := ix.requests.acquireUnless(ctx, g.wake)
	if !ix.room.leave(s) {
		g.batch, g.pending = nil, nil
		if err != nil {
			s.lastOutcome = outcomeTimeout // the push's context ended before the request was sent
			return flushResult{err: fmt.Errorf("waiting for a bulk request slot: %w", err)}, false
		}
		return flushResult{}, true
	}
	if err == nil {
		ix.requests.giveBack() // granted while a leader took the chunk
	}
	select {
	case <-g.wake:
	default:
	}
	<-g.done // the leader is done with the chunk
	res, g.res = g.res, flushResult{}
	g.batch, g.pending = nil, nil
	if res.addErr == nil {
		s.lastOutcome = requestOutcome(res.status, res.err)
	} else {
		s.lastOutcome = outcomeInternalError
	}
	return res, false
}

// request sends what the request body of s holds, under the request slot s holds, and records
// the attempt's telemetry. A request that holds the chunks of other pushes runs under a
// context that the end of ctx does not cancel: only RequestTimeout and Abort end it.
func (ix *Indexer) request(ctx context.Context, s *session) flushResult {
	bi := s.bi
	shared := len(s.followers) > 0
	s.client.docs = s.req.docs
	reqCtx := ctx
	if shared {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		stop := context.AfterFunc(ix.abortCtx, cancel)
		defer stop()
	}
	if ix.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(reqCtx, ix.cfg.RequestTimeout)
		defer cancel()
	}
	// Zero the byte counts, so that a request without an answer counts none, and the wait
	// asked for, so that a request that fails before it is sent asks for none.
	bi.Reset()
	s.client.retryAfter = 0
	fill := float64(bi.UncompressedLen()) / float64(max(ix.requestLimit(), 1))
	start := time.Now()
	stat, err := bi.Flush(reqCtx)
	s.client.release() // docappender has read what it needs of the response

	status := http.StatusOK
	if err != nil {
		status = 0
		if _, ok := errors.AsType[errResponseTooLarge](err); ok {
			// Answered 200, but longer than any answer to the request can be.
			status = http.StatusOK
		} else if ff, ok := errors.AsType[docappender.ErrorFlushFailed](err); ok {
			status = ff.StatusCode()
		}
	} else {
		ix.sizes.observe(s.bytesFlushed(), bi.BytesUncompressedFlushed())
	}
	end := time.Now()
	ctxErr := ctx.Err()
	if shared {
		ctxErr = ix.abortCtx.Err()
	}
	ix.requests.release(end, end.Sub(start), fill, requestBackpressure(status, &stat, err, ctxErr), err == nil)
	s.lastOutcome = requestOutcome(status, err)
	ix.recordAttempt(ctx, s, s.lastOutcome, status, start, end)
	res := flushResult{stat: stat, status: status, retryAfter: s.client.retryAfter, err: err, shared: shared}
	if err == nil {
		res.mismatch = s.responseMismatch(stat)
	}
	return res
}

// bytesFlushed is the body size of the request of s, if it was answered: the bytes the
// session's client encoded when it did, docappender's count otherwise.
func (s *session) bytesFlushed() int {
	if n := s.bi.BytesFlushed(); n == 0 || s.body.enc.sent < 0 {
		return n
	}
	return s.body.enc.sent
}
