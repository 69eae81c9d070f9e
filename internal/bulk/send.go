// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// ErrHandedBack is wrapped by the error of a Send whose batch is handed back to its caller at
// shutdown (see Config.HandBackOnStop): the caller keeps the whole batch and sends it again.
var ErrHandedBack = errors.New("the batch is handed back to the persistent queue")

// Send sends every document of b and returns once each has a final outcome, or the retry
// budget is spent. It returns nil when no document was dropped: indexed, duplicates and
// documents rejected for good (counted and logged) are final outcomes. Otherwise the error is
// retryable when no document of b was written, so that the caller may resend the whole batch
// without duplicates, and permanent when some were or when a resend could store a document
// twice. A batch handed back at shutdown (Result.HandedBack > 0) returns a retryable error
// wrapping ErrHandedBack, whatever part of it was written.
// The documents the pipeline refused (Batch.Refuse) are never sent: each is rejected for good
// at once, and dead-lettered with the others when dead letters are on.
//
// Only Send makes an error permanent, once: the errors of the steps below it are plain, and
// the session notes whether the push's error must be permanent.
func (ix *Indexer) Send(ctx context.Context, b *Batch) (Result, error) {
	if b.Len() == 0 && b.Refused() == 0 {
		return Result{}, nil
	}
	s := ix.getSession()
	defer ix.putSession(s)
	ix.setMetadata(ctx, s)
	ix.recordReceived(ctx, s, b.Len()+b.Refused())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ix.sends.add(s, cancel)
	defer ix.sends.remove(s)

	ix.refuse(ctx, s, b)
	sendErr := ix.sendAll(ctx, s, b)
	if sendErr == nil && s.unknown > 0 {
		sendErr = fmt.Errorf("%d documents answered by bulk response items that Elasticsearch does not give to a create, "+
			"their outcome is unknown (first: %s)", s.unknown, s.firstUnknown)
	}
	r := &s.result
	handedBack := r.HandedBack > 0
	deadLettered := false
	switch {
	case handedBack:
		// The whole batch goes back: what was written of it is sent again after the restart
		// (a 409 duplicate with deterministic ids), and the dead letters are written then.
		ix.cfg.Logger.Warn("Handing documents back to the persistent queue: the exporter is shutting down; "+
			"the whole batch is sent again after the restart",
			zap.Int("documents", b.Len()), zap.Int("not_written", r.HandedBack),
			zap.Int("written", r.Indexed+r.Duplicate+r.Rejected), zap.Error(sendErr))
	case len(s.dead)+b.Refused() > 0 && ix.cfg.DeadLetterIndex != "" && ix.abortCtx.Err() == nil:
		deadLettered = true
		if ix.deadLetter(ctx, s, b) {
			// Every document left without an outcome is now in the dead-letter index.
			sendErr = nil
		} else if sendErr == nil {
			sendErr = errors.New("documents rejected for good could not be written to the dead-letter index")
		}
	}
	if !deadLettered {
		ix.recordHeldFates(ctx, s)
	}
	ix.logFailures(s)
	switch {
	case sendErr == nil:
		return s.result, nil
	case handedBack:
		return s.result, fmt.Errorf("%w: %w", ErrHandedBack, sendErr)
	case s.permanent || r.Indexed > 0 || r.Duplicate > 0 || r.Rejected > 0 || r.FailureStore > 0:
		return s.result, consumererror.NewPermanent(sendErr)
	}
	return s.result, sendErr
}

// refuse counts the documents of b that the pipeline refused (Batch.Refuse) as rejected for
// good, as RecordPreSend counts a record rejected before sending (docs.processed failed_client,
// no status), and notes them for the failure log. Their dead letters are written by deadLetter.
func (ix *Indexer) refuse(ctx context.Context, s *session, b *Batch) {
	for i := range b.refused {
		r := &b.refused[i]
		s.result.Rejected++
		ix.writeDocPoints(ctx, s, docRecord{outcome: outcomeFailedClient, errorType: r.errorType}, 1)
		ix.recordFate(ctx, s, docRecord{fate: OutcomeRejected, errorType: r.errorType}, 1)
		s.failures.add(OutcomeRejected, 0, r.errorType, r.reason, r.index)
	}
}

// sendAll sends the documents of b in bulk requests of at most MaxBulkBytes, or less after a
// 413 (see requestLimit), and of at most MaxBulkDocs documents.
func (ix *Indexer) sendAll(ctx context.Context, s *session, b *Batch) error {
	limit, maxDocs := ix.requestLimit(), ix.cfg.MaxBulkDocs
	for next := 0; next < b.Len(); {
		s.chunk = s.chunk[:0]
		size := 0
		for next < b.Len() {
			n := itemBytes(b, next)
			if len(s.chunk) > 0 && (size+n > limit || len(s.chunk) == maxDocs) {
				break
			}
			s.chunk = append(s.chunk, next)
			size += n
			next++
		}
		if err := ix.sendChunk(ctx, s, b, s.chunk); err != nil {
			// Documents after a failed request are not attempted: the same failure
			// would meet them.
			if rest := b.Len() - next; rest > 0 {
				handBack := ix.handingBack(s)
				ix.unsent(ctx, s, rest, ix.notAttempted(s))
				if !handBack {
					reason := esclient.TruncateReason("an earlier request of the same push failed: " + err.Error())
					for i := next; i < b.Len(); i++ {
						s.toDead(i, 0, "not_attempted", reason)
					}
				}
			}
			return err
		}
	}
	return nil
}

// itemBytes returns the bytes document i of b adds to a request: its document, its action line
// and newlines.
func itemBytes(b *Batch, i int) int {
	it := &b.items[i]
	n := it.end - it.start + itemOverhead(it)
	for _, t := range b.Templates(i) {
		n += len(t.Path) + len(t.Template) + len(`,"dynamic_templates":{"":""}`)
	}
	return n
}

// sendChunk sends the documents s.chunk of b, retrying what is retryable, and counts every
// document's outcome.
func (ix *Indexer) sendChunk(ctx context.Context, s *session, b *Batch, pending []int) error {
	defer ix.recordRequest(ctx, s) // the request of the last attempt, once it is not sent again
	resent := false                // after a refusal of include_source_on_error (includesource.go)
	for attempt := 0; ; attempt++ {
		wholeRequest := false // the retry below, if any, sends the whole request again
		res := ix.flush(ctx, s, b, pending)
		if res.addErr != nil {
			return ix.giveUp(ctx, s, pending, 0, attempt, res.addErr)
		}
		stat, status, retryAfter, err := res.stat, res.status, res.retryAfter, res.err
		if err != nil {
			if ctx.Err() != nil {
				return ix.giveUp(ctx, s, pending, status, attempt+1, err)
			}
			if status == http.StatusRequestEntityTooLarge {
				if res.shared {
					// The request held other pushes' chunks too: its leader lowered
					// the request size, and the chunk is sent again, in a smaller
					// request or alone, where a 413 splits it.
					attempt--
					continue
				}
				ix.tooLarge(b, pending)
				return ix.split(ctx, s, b, pending)
			}
			if tooLarge, ok := errors.AsType[errResponseTooLarge](err); ok {
				return ix.unknownOutcome(ctx, s, b, pending, "response_too_large", http.StatusOK, tooLarge)
			}
			if !resent && ix.includeSourceRefused(status, err) {
				// Sent again at once without the parameter: not a retry, but the same
				// request for the request metrics.
				resent = true
				attempt--
				ix.resendRequest(s)
				continue
			}
			retryable := ix.retryableRequest(status, err)
			wholeRequest = true
			if status != 0 || !retryable {
				err = requestError(status, err, len(pending), ix.cfg.UnauthorizedHint)
			}
			if !retryable {
				ix.recordDocs(ctx, s, docRecord{fate: OutcomeRejected, outcome: s.lastOutcome, status: status}, len(pending))
				s.result.Rejected += len(pending)
				reason := err.Error() // one string for all of them
				for _, i := range pending {
					s.toDead(i, status, "request_rejected", reason)
				}
				s.permanent = true
				return err
			}
		} else {
			ix.noteSuccess()
			if res.mismatch != nil {
				// The server answered for other documents than those sent: their fate is
				// unknown, and resending would risk duplicates.
				return ix.unknownOutcome(ctx, s, b, pending, "response_mismatch", http.StatusOK, res.mismatch)
			}
			pending = ix.classify(ctx, s, b, stat, pending)
			if len(pending) == 0 {
				return nil
			}
			err = fmt.Errorf("%d documents failed with a retryable status", len(pending))
		}
		if ix.canRetry(s.retries) && ctx.Err() == nil {
			if ix.wait(ctx, max(ix.backoff(attempt), retryAfter)) == nil {
				s.retries++
				ix.recordRetried(ctx, s, len(pending), wholeRequest)
				if wholeRequest {
					ix.resendRequest(s)
				}
				continue
			}
		}
		return ix.giveUp(ctx, s, pending, status, attempt+1, err)
	}
}

// split handles 413 Request Entity Too Large, which Elasticsearch or a proxy in front of it
// answers for a body over its limit: the documents are sent again in two halves, down to single
// documents. A single document that is still too large is rejected for good, with its size in
// the log and the telemetry.
func (ix *Indexer) split(ctx context.Context, s *session, b *Batch, pending []int) error {
	if len(pending) == 1 {
		i := pending[0]
		size := b.items[i].end - b.items[i].start
		s.result.Rejected++
		ix.recordDocs(ctx, s, itemRecord(OutcomeRejected, http.StatusRequestEntityTooLarge, "request_entity_too_large"), 1)
		reason := fmt.Sprintf("a single document of %d bytes is over the server's request size limit", size)
		s.failures.add(OutcomeRejected, http.StatusRequestEntityTooLarge, "request_entity_too_large", reason, b.items[i].Index)
		s.toDead(i, http.StatusRequestEntityTooLarge, "request_entity_too_large", reason)
		return nil
	}
	// The halves get their own storage: classify reuses a chunk's storage for its retries.
	half := len(pending) / 2
	first := append([]int(nil), pending[:half]...)
	second := append([]int(nil), pending[half:]...)
	ix.cfg.Logger.Debug("Bulk request too large; sending it in halves", zap.Int("documents", len(pending)))
	if err := ix.sendChunk(ctx, s, b, first); err != nil {
		handBack := ix.handingBack(s)
		ix.unsent(ctx, s, len(second), ix.notAttempted(s))
		if !handBack {
			reason := esclient.TruncateReason("the other half of a split request failed: " + err.Error())
			for _, i := range second {
				s.toDead(i, 0, "not_attempted", reason)
			}
		}
		return err
	}
	return ix.sendChunk(ctx, s, b, second)
}

// requestError says why a request of n documents failed with status (0 for no answer), with
// what the server answered and a hint for the failures a user can fix, in at most esclient.MaxReason
// bytes. unauthorized is the hint of a 401 (Config.UnauthorizedHint).
func requestError(status int, err error, n int, unauthorized string) error {
	hint := ""
	switch status {
	case http.StatusUnauthorized:
		hint = ": check user/password or api_key"
		if unauthorized != "" {
			hint = ", " + unauthorized
		}
	case http.StatusForbidden:
		hint = ": the credentials lack the privilege to write to these indices"
	}
	if ff, ok := errors.AsType[docappender.ErrorFlushFailed](err); ok {
		return errors.New(esclient.TruncateReason(fmt.Sprintf("bulk request answered HTTP %d%s (%d documents): %s",
			status, hint, n, esclient.TruncateReason(ff.ResponseBody()))))
	}
	if hint, ok := esclient.TLSConfigProblem(err); ok {
		return fmt.Errorf("bulk request failed (%d documents): %s: %w", n, hint, err)
	}
	return fmt.Errorf("bulk request failed (%d documents): %w", n, err)
}
