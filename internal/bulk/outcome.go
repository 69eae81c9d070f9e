// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/elastic/go-docappender/v2"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// Outcomes of a document, the values of the fate attribute of docs.fate (docs.processed's
// outcome attribute takes contrib's values, see telemetry.go).
const (
	OutcomeIndexed   = "indexed"
	OutcomeDuplicate = "duplicate"
	OutcomeRejected  = "rejected"
	// OutcomeRetryable is the fate of documents that their caller sends again: handed back at
	// shutdown, or not sent because the push gave up waiting for room in flight. A failure
	// that Send retries itself is not a fate: it is counted as a retry.
	OutcomeRetryable    = "retryable"
	OutcomeFailureStore = "failure_store"
	OutcomeDropped      = "dropped"
	// OutcomeSkipped counts the records deliberately not written: log records, spans, span
	// events and metric data points with the _noindex hint, and NaN and ±Inf metric values.
	OutcomeSkipped = "skipped"
	// OutcomeDeadLettered is the fate of documents rejected for good or given up whose dead
	// letter was stored, instead of rejected or dropped.
	OutcomeDeadLettered = "dead_lettered"
)

// Result counts the final outcome of the documents of one Send. FailureStore counts the
// documents of Indexed that Elasticsearch wrote to the failure store of their data stream. HandedBack counts the
// documents without an outcome handed back to the caller at shutdown (see
// Config.HandBackOnStop): the caller then keeps the whole batch, and the documents already
// counted indexed, duplicate or rejected are sent again after the restart.
type Result struct {
	Indexed, Duplicate, Rejected, Dropped, FailureStore, DeadLettered, HandedBack int
}

// responseMismatch returns an error when the response to the session's request does not
// answer each of its documents with one item, in order: nil when it does.
func (s *session) responseMismatch(stat docappender.BulkIndexerResponseStat) error {
	c, r := &s.client, &s.client.resp
	// The items that only said created were left out by the session's client, and so were
	// the odd items; docappender numbered the others in the order it read them (see
	// compactClient).
	created := r.items - len(r.kept) - len(r.odd)
	got := int(stat.Indexed) + created + len(stat.FailedDocs) + len(r.odd)
	mismatch := !c.compacted || got != s.req.docs || r.items != s.req.docs ||
		int(stat.Indexed)+len(stat.FailedDocs) != len(r.kept)
	for _, f := range stat.FailedDocs {
		if f.Position < 0 || f.Position >= len(r.kept) {
			mismatch = true
		}
	}
	if mismatch {
		return fmt.Errorf("bulk response has %d items for %d documents sent; their outcome is unknown", got, s.req.docs)
	}
	return nil
}

// classify counts the outcome of each document of the chunk pending of a successful request,
// whose items are the first len(pending) of the response in s's client: the session's own
// chunk comes first in a request it sent, and a follower's items are handed over numbered from
// 0 (handOver). It returns the documents to retry, written over the front of pending. The
// response matches the request (responseMismatch).
func (ix *Indexer) classify(ctx context.Context, s *session, b *Batch, stat docappender.BulkIndexerResponseStat, pending []int) []int {
	r := &s.client.resp
	inChunk := func(pos int) bool { return pos < len(pending) }
	count := func(positions []int) int {
		n := 0
		for _, p := range positions {
			if inChunk(p) {
				n++
			}
		}
		return n
	}
	kept, fs, odd, failed := count(r.kept), count(r.failureStore), 0, 0
	for _, o := range r.odd {
		if inChunk(o.pos) {
			odd++
		}
	}
	for _, f := range stat.FailedDocs {
		if inChunk(r.kept[f.Position]) {
			failed++
		}
	}
	// The created items the client left out, and the kept ones docappender counted as indexed.
	indexed := (len(pending) - kept - odd) + (kept - failed)
	s.result.Indexed += indexed
	s.result.FailureStore += fs
	// A document written to the failure store is a success in docs.processed, as docappender
	// and contrib count it, with a second failure_store point (recordFailureStore). It is not
	// searchable where the user looks, so its fate is failure_store, and a line says where.
	ix.recordDocs(ctx, s, docRecord{outcome: outcomeSuccess, status: http.StatusCreated}, indexed)
	ix.recordFate(ctx, s, docRecord{fate: OutcomeIndexed, status: http.StatusCreated}, max(indexed-fs, 0))
	ix.recordFate(ctx, s, docRecord{fate: OutcomeFailureStore, failureStore: failureStoreUsed, status: http.StatusCreated}, min(fs, indexed))
	ix.recordFailureStore(ctx, s, fs, count(r.failureStoreFailed), count(r.failureStoreNotEnabled))
	ix.logFailureStore(b, pending, r.failureStore, fs)
	for _, o := range r.odd {
		if !inChunk(o.pos) {
			continue
		}
		// Whether the document was written is unknown: like a response that does not
		// match the request, it is dropped (and dead-lettered), and the push's error is
		// permanent, since a resend could store it twice.
		i := pending[o.pos]
		s.result.Dropped++
		// contrib counts an answer it cannot read as internal_server_error.
		ix.recordDocs(ctx, s, docRecord{
			fate: OutcomeDropped, outcome: outcomeInternalError, errorType: ErrorTypeUnexpectedStatus, status: o.status,
		}, 1)
		s.failures.add(OutcomeDropped, o.status, ErrorTypeUnexpectedStatus, o.reason, b.items[i].Index)
		s.toDead(i, o.status, ErrorTypeUnexpectedStatus, o.reason)
		if !s.deadLettering {
			if s.unknown == 0 {
				s.firstUnknown = o.reason
			}
			s.unknown++
			s.permanent = true
		}
	}
	retry := s.retry[:0]
	for _, f := range stat.FailedDocs {
		p := r.kept[f.Position] // checked by responseMismatch
		if !inChunk(p) {
			continue
		}
		i := pending[p]
		f.Error.Reason = esclient.TruncateReason(f.Error.Reason)
		switch {
		case f.Status == http.StatusConflict:
			s.result.Duplicate++
			ix.recordDocs(ctx, s, itemRecord(OutcomeDuplicate, f.Status, f.Error.Type), 1)
			if !b.items[i].DerivedID {
				s.failures.addItem(f, OutcomeDuplicate, b, i) // a user-given id met another document
			}
		case ix.retryableDocument(f.Status):
			retry = append(retry, i)
			// Sent again: not a final result, counted as a retry (sendChunk).
			s.noteFailure(b, i, f.Status, f.Error.Type)
			s.failures.addItem(f, OutcomeRetryable, b, i)
		default:
			s.result.Rejected++
			ix.recordDocs(ctx, s, itemRecord(OutcomeRejected, f.Status, f.Error.Type), 1)
			s.toDead(i, f.Status, f.Error.Type, f.Error.Reason)
			s.failures.addItem(f, OutcomeRejected, b, i)
			if ix.cfg.LogFailedDocsInput {
				if suppressed, ok := ix.docLimiter.Allow(); ok {
					ix.cfg.Logger.Warn("Document rejected",
						zap.String("index", f.Index), zap.Int("status", f.Status),
						zap.String("error.type", f.Error.Type), zap.String("error.reason", f.Error.Reason),
						zap.ByteString("document", b.Document(i)), zap.Int("suppressed_log_lines", suppressed))
				}
			}
		}
	}
	s.retry = retry // keep the storage for the next round
	return append(pending[:0], retry...)
}

// logFailureStore logs, rate-limited, that n documents of the chunk pending were written to the
// failure store of their data stream, naming the data stream of the first. The bulk answer does
// not say why Elasticsearch refused them for the data stream itself: the failure store's
// document does, in its error field.
func (ix *Indexer) logFailureStore(b *Batch, pending, positions []int, n int) {
	if n == 0 {
		return
	}
	suppressed, ok := ix.limiter.Allow()
	if !ok {
		return
	}
	ds := ""
	for _, p := range positions {
		if p < len(pending) {
			ds = b.items[pending[p]].Index
			break
		}
	}
	ix.cfg.Logger.Warn("Documents written to their data stream's failure store: Elasticsearch accepted them but could not index them "+
		"into the data stream, so they are not searchable there. The bulk answer does not say why; the failure store's documents do "+
		"(error.type, error.message): search "+ds+"::failures",
		zap.Int("documents", n), zap.String("data_stream", ds), zap.Int("suppressed_log_lines", suppressed))
}

// ErrorTypeUnexpectedStatus is the error.type of a document answered by a bulk response item
// that Elasticsearch does not give to a create action (see responseItem.problem).
const ErrorTypeUnexpectedStatus = "unexpected_status"

// unknownOutcome counts the documents pending of a request whose answer does not tell their
// fate (a response that does not match the request, or one too long to read): they are
// dropped and dead-lettered, and the push's error is permanent, since a resend could store
// them twice. It returns err.
func (ix *Indexer) unknownOutcome(ctx context.Context, s *session, b *Batch, pending []int, errorType string, status int, err error) error {
	// contrib counts an answer it cannot read as internal_server_error.
	ix.recordDocs(ctx, s, docRecord{fate: OutcomeDropped, outcome: outcomeInternalError, errorType: errorType, status: status}, len(pending))
	s.result.Dropped += len(pending)
	reason := esclient.TruncateReason(err.Error())
	s.failures.add(OutcomeDropped, status, errorType, reason, b.items[pending[0]].Index)
	for _, i := range pending {
		s.toDead(i, status, errorType, reason)
	}
	s.permanent = true
	return err
}

// giveUp counts the documents pending, left without a final outcome, and returns the error
// that says why: the retries are spent, the push was canceled, or the exporter is shutting
// down. They are dropped, logged and listed for the dead-letter index, or handed back (see
// handingBack), which Send logs once for the whole batch.
func (ix *Indexer) giveUp(ctx context.Context, s *session, pending []int, status, attempts int, err error) error {
	handBack := ix.handingBack(s)
	ix.givenUp(context.WithoutCancel(ctx), s, pending, status)
	stopped, canceled := ix.stopCtx.Err() != nil, ctx.Err() != nil
	switch {
	case stopped:
		err = fmt.Errorf("%d documents not sent: %w: %w", len(pending), errStopped, err)
	case canceled:
		err = fmt.Errorf("%d documents not sent: %w", len(pending), errors.Join(err, ctx.Err()))
	default:
		err = fmt.Errorf("%d documents not sent after %d attempts: %w", len(pending), attempts, err)
	}
	if handBack {
		return err
	}
	// One reason string for all of them, and one per type of last failure.
	reason := esclient.TruncateReason(err.Error())
	var typed map[string]string
	for _, i := range pending {
		st, r := status, reason
		if i < len(s.lastFailure) && s.lastFailure[i].status != 0 {
			f := s.lastFailure[i]
			if typed == nil {
				typed = map[string]string{}
			}
			if r = typed[f.errorType]; r == "" {
				r = esclient.TruncateReason(f.errorType + ": " + reason)
				typed[f.errorType] = r
			}
			st = f.status
		}
		s.toDead(i, st, "not_delivered", r)
	}
	msg := "Dropping documents: retries exhausted"
	switch {
	case stopped:
		msg = "Dropping documents: the exporter is shutting down"
	case canceled:
		msg = "Dropping documents: the push was canceled"
	case attempts == 0:
		msg = "Dropping documents: the bulk request could not be made"
	}
	ix.cfg.Logger.Error(msg, zap.Int("documents", len(pending)), zap.Int("attempts", attempts), zap.Error(err))
	return err
}

// handingBack tells whether the documents of s's batch given up now are handed back to the
// caller rather than dropped (see Config.HandBackOnStop): the exporter is shutting down, and
// the caller keeps the whole batch, whatever part of it was written, for after the restart.
// Dead letters are never handed back: they are written once the push's own documents are
// done.
func (ix *Indexer) handingBack(s *session) bool {
	return ix.cfg.HandBackOnStop && ix.stopCtx.Err() != nil && !s.deadLettering
}

// givenUp counts the documents pending left without an outcome after their last attempt,
// whose request ended with status: with the outcome, status and error type of their own last
// failure when the request was answered (an item failure), or those of the request.
func (ix *Indexer) givenUp(ctx context.Context, s *session, pending []int, status int) {
	request := docRecord{outcome: s.lastOutcome, status: status}
	if status != http.StatusOK {
		ix.unsent(ctx, s, len(pending), request)
		return
	}
	request.outcome = outcomeInternalError // a document answered 200 has an item failure
	// Runs of documents with the same last failure are counted together.
	var run docRecord
	n := 0
	for _, i := range pending {
		r := request
		if i < len(s.lastFailure) && s.lastFailure[i].status != 0 {
			r = itemRecord("", s.lastFailure[i].status, s.lastFailure[i].errorType)
		}
		if n > 0 && r != run {
			ix.unsent(ctx, s, n, run)
			n = 0
		}
		run = r
		n++
	}
	ix.unsent(ctx, s, n, run)
}

// notAttempted is the record of documents not sent because an earlier request of the Send
// failed: they take the outcome of that failure.
func (*Indexer) notAttempted(s *session) docRecord {
	outcome := s.failOutcome
	if outcome == "" {
		outcome = outcomeInternalError
	}
	return docRecord{outcome: outcome, errorType: "not_attempted"}
}

// unsent counts n documents of s's batch left without an outcome, with the attributes of r:
// dropped, or handed back (see handingBack).
func (ix *Indexer) unsent(ctx context.Context, s *session, n int, r docRecord) {
	if ix.handingBack(s) {
		// Sent again after the restart: a fate, but no outcome of contrib's.
		s.result.HandedBack += n
		r.fate, r.outcome, r.errorType = OutcomeRetryable, "", "shutdown"
		ix.recordDocs(ctx, s, r, n)
		return
	}
	s.result.Dropped += n
	r.fate = OutcomeDropped
	ix.recordDocs(ctx, s, r, n)
}
