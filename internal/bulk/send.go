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

// Send sends every document of b and returns once each has a final outcome, or the retry
// budget is spent. It returns nil when no document was dropped: indexed, duplicates and
// documents rejected for good (counted and logged) are final outcomes. Otherwise the error is
// retryable when no document of b was indexed, so that the caller may resend the whole batch
// without duplicates, and permanent when some were.
func (ix *Indexer) Send(ctx context.Context, b *Batch) (Result, error) {
	if b.Len() == 0 {
		return Result{}, nil
	}
	s, err := ix.getSession()
	if err != nil {
		return Result{}, err
	}
	defer ix.putSession(s)
	ix.setMetadata(ctx, s)
	ix.recordReceived(ctx, s, b.Len())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(ix.abortCtx, cancel)()

	sendErr := ix.sendAll(ctx, s, b)
	if len(s.dead) > 0 && ix.cfg.DeadLetterIndex != "" && ix.abortCtx.Err() == nil && s.result.HandedBack == 0 {
		if ix.deadLetter(ctx, s, b) {
			// Every document left without an outcome is now in the dead-letter index.
			sendErr = nil
		} else if sendErr == nil {
			sendErr = errors.New("documents rejected for good could not be written to the dead-letter index")
		}
	}
	ix.logFailures(s)
	if sendErr == nil {
		return s.result, nil
	}
	if s.result.Indexed > 0 || s.result.Duplicate > 0 || s.result.Rejected > 0 {
		return s.result, consumererror.NewPermanent(sendErr)
	}
	return s.result, sendErr
}

// sendAll sends the documents of b in bulk requests of at most MaxBulkBytes.
func (ix *Indexer) sendAll(ctx context.Context, s *session, b *Batch) error {
	for next := 0; next < b.Len(); {
		s.chunk = s.chunk[:0]
		size := 0
		for next < b.Len() {
			it := &b.items[next]
			n := it.end - it.start + itemOverhead(it)
			for _, t := range b.Templates(next) {
				n += len(t.Path) + len(t.Template) + len(`,"dynamic_templates":{"":""}`)
			}
			if len(s.chunk) > 0 && size+n > ix.cfg.MaxBulkBytes {
				break
			}
			s.chunk = append(s.chunk, next)
			size += n
			next++
		}
		if err := ix.sendChunk(ctx, s, b, s.chunk); err != nil {
			// Documents after a failed request are not attempted: the same failure
			// would meet them.
			rest := b.Len() - next
			ix.unsent(ctx, s, rest, ix.notAttempted(s))
			for i := next; i < b.Len(); i++ {
				s.toDead(i, 0, "not_attempted", "an earlier request of the same push failed: "+err.Error())
			}
			return err
		}
	}
	return nil
}

// sendChunk sends the documents s.chunk of b, retrying what is retryable, and counts every
// document's outcome.
func (ix *Indexer) sendChunk(ctx context.Context, s *session, b *Batch, pending []int) error {
	resent := false // after a refusal of include_source_on_error (includesource.go)
	for attempt := 0; ; attempt++ {
		if err := s.add(b, pending); err != nil {
			err = fmt.Errorf("adding documents to the bulk request: %w", err)
			s.lastOutcome = outcomeInternalError
			if nerr := ix.newBulkIndexer(s); nerr != nil {
				err = errors.Join(err, nerr)
			}
			return ix.giveUp(ctx, s, pending, 0, attempt, err)
		}
		stat, status, retryAfter, err := ix.flush(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				return ix.giveUp(ctx, s, pending, status, attempt+1, err)
			}
			if status == http.StatusRequestEntityTooLarge {
				return ix.split(ctx, s, b, pending)
			}
			if !resent && ix.includeSourceRefused(s, status, err) {
				resent = true
				attempt-- // sent again at once without the parameter: not a retry
				continue
			}
			retryable := ix.retryableRequest(status, err)
			if status != 0 || !retryable {
				err = requestError(status, err, len(pending))
			}
			if !retryable {
				ix.recordDocs(ctx, s, docRecord{fate: OutcomeRejected, outcome: s.lastOutcome, status: status}, len(pending))
				s.result.Rejected += len(pending)
				for _, i := range pending {
					s.toDead(i, status, "request_rejected", err.Error())
				}
				return consumererror.NewPermanent(err)
			}
		} else {
			ix.noteSuccess()
			pending, err = ix.classify(ctx, s, b, stat, pending)
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				return nil
			}
			err = fmt.Errorf("%d documents failed with a retryable status", len(pending))
		}
		if ix.canRetry(attempt) && ctx.Err() == nil {
			if ix.wait(ctx, max(ix.backoff(attempt), retryAfter)) == nil {
				ix.recordRetried(ctx, s, len(pending))
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
		ix.unsent(ctx, s, len(second), ix.notAttempted(s))
		for _, i := range second {
			s.toDead(i, 0, "not_attempted", "the other half of a split request failed: "+err.Error())
		}
		return err
	}
	return ix.sendChunk(ctx, s, b, second)
}

// requestError says why a request of n documents failed with status (0 for no answer), with
// what the server answered and a hint for the failures a user can fix.
func requestError(status int, err error, n int) error {
	hint := ""
	switch status {
	case http.StatusUnauthorized:
		hint = ": check user/password or api_key"
	case http.StatusForbidden:
		hint = ": the credentials lack the privilege to write to these indices"
	}
	if ff, ok := errors.AsType[docappender.ErrorFlushFailed](err); ok {
		return fmt.Errorf("bulk request answered HTTP %d%s (%d documents): %s", status, hint, n, ff.ResponseBody())
	}
	if hint, ok := esclient.TLSConfigProblem(err); ok {
		return fmt.Errorf("bulk request failed (%d documents): %s: %w", n, hint, err)
	}
	return fmt.Errorf("bulk request failed (%d documents): %w", n, err)
}
