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
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// Outcomes of a document, the values of the outcome attribute of the documents metric.
const (
	OutcomeIndexed      = "indexed"
	OutcomeDuplicate    = "duplicate"
	OutcomeRejected     = "rejected"
	OutcomeRetryable    = "retryable"
	OutcomeFailureStore = "failure_store"
	OutcomeDropped      = "dropped"
	// OutcomeSkipped counts metric data points and values deliberately not written: NaN and
	// ±Inf values, and points with the _noindex hint.
	OutcomeSkipped = "skipped"
	// OutcomeDeadLettered counts documents stored in the dead-letter index, after they were
	// counted as rejected or dropped.
	OutcomeDeadLettered = "dead_lettered"
)

// Result counts the final outcome of the documents of one Send. HandedBack counts the
// documents handed back to the caller at shutdown (see Config.HandBackOnStop).
type Result struct {
	Indexed, Duplicate, Rejected, Dropped, FailureStore, DeadLettered, HandedBack int
}

// classify counts the outcome of each document of a successful request and returns the
// documents to retry, written over the front of pending.
func (ix *Indexer) classify(ctx context.Context, s *session, b *Batch, stat docappender.BulkIndexerResponseStat, pending []int) ([]int, error) {
	// The items that only said created were counted by the session's client, not by
	// docappender, which numbered the others in the order it read them.
	indexed := int(stat.Indexed) + s.client.created
	got := indexed + len(stat.FailedDocs)
	mismatch := got != len(pending) ||
		(s.client.compacted && int(stat.Indexed)+len(stat.FailedDocs) != len(s.client.kept))
	for _, f := range stat.FailedDocs {
		if p := s.client.position(f.Position); p < 0 || p >= len(pending) {
			mismatch = true
		}
	}
	if mismatch {
		// The server answered for other documents than those sent: their fate is unknown,
		// and resending would risk duplicates.
		ix.recordDocs(ctx, s.outcome(OutcomeDropped), "response_mismatch", http.StatusOK, len(pending))
		s.result.Dropped += len(pending)
		err := fmt.Errorf("bulk response has %d items for %d documents sent; their outcome is unknown", got, len(pending))
		for _, i := range pending {
			s.toDead(i, http.StatusOK, "response_mismatch", err.Error())
		}
		return nil, consumererror.NewPermanent(err)
	}
	if indexed > 0 {
		s.result.Indexed += indexed
		ix.recordDocs(ctx, s.outcome(OutcomeIndexed), "", http.StatusCreated, indexed)
	}
	if fs := int(stat.FailureStoreDocs.Used); fs > 0 {
		s.result.FailureStore += fs
		ix.recordDocs(ctx, OutcomeFailureStore, "", http.StatusCreated, fs)
	}
	retry := s.retry[:0]
	for _, f := range stat.FailedDocs {
		i := pending[s.client.position(f.Position)] // checked above
		switch {
		case f.Status == http.StatusConflict:
			s.result.Duplicate++
			ix.recordDocs(ctx, s.outcome(OutcomeDuplicate), f.Error.Type, f.Status, 1)
			if !b.items[i].DerivedID {
				s.failures.addItem(f, OutcomeDuplicate) // a user-given id met another document
			}
		case ix.retryableDocument(f.Status):
			retry = append(retry, i)
			s.noteFailure(b, i, f.Status, f.Error.Type)
			ix.recordDocs(ctx, OutcomeRetryable, f.Error.Type, f.Status, 1)
			s.failures.addItem(f, OutcomeRetryable)
		default:
			s.result.Rejected++
			ix.recordDocs(ctx, s.outcome(OutcomeRejected), f.Error.Type, f.Status, 1)
			s.toDead(i, f.Status, f.Error.Type, f.Error.Reason)
			s.failures.addItem(f, OutcomeRejected)
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
	return append(pending[:0], retry...), nil
}

// recordDocs counts n documents of the given outcome in the documents metric.
func (ix *Indexer) recordDocs(ctx context.Context, outcome, errorType string, status, n int) {
	if n == 0 {
		return
	}
	ix.cfg.Telemetry.ElasticsearchDocsProcessed.Add(ctx, int64(n), metric.WithAttributeSet(attribute.NewSet(
		attribute.String("outcome", outcome),
		attribute.String("error.type", errorType),
		attribute.Int("http.response.status_code", status),
	)))
}

// giveUp counts and logs the documents left without a final outcome, and returns the error
// that says why: the retries are spent, the push was canceled, or the exporter is shutting
// down.
func (ix *Indexer) giveUp(ctx context.Context, s *session, pending []int, status, attempts int, err error) error {
	ix.unsent(context.WithoutCancel(ctx), s, status, len(pending))
	defer func() {
		for _, i := range pending {
			st, reason := status, err.Error()
			if i < len(s.lastFailure) && s.lastFailure[i].status != 0 {
				st, reason = s.lastFailure[i].status, s.lastFailure[i].errorType+": "+reason
			}
			s.toDead(i, st, "not_delivered", reason)
		}
	}()
	switch {
	case ix.stopCtx.Err() != nil:
		err = fmt.Errorf("%d documents not sent: %w: %w", len(pending), errStopped, err)
	case ctx.Err() != nil:
		err = fmt.Errorf("%d documents not sent: %w", len(pending), errors.Join(err, ctx.Err()))
	default:
		err = fmt.Errorf("%d documents not sent after %d attempts: %w", len(pending), attempts, err)
	}
	if s.result.HandedBack > 0 {
		ix.cfg.Logger.Warn("Handing documents back to the persistent queue: shutting down", zap.Int("documents", len(pending)),
			zap.Int("attempts", attempts), zap.Error(err))
		return err
	}
	ix.cfg.Logger.Error("Dropping documents: retries exhausted", zap.Int("documents", len(pending)),
		zap.Int("attempts", attempts), zap.Error(err))
	return err
}

// unsent counts n documents of s's batch left without an outcome: dropped, unless they are
// handed back (see Config.HandBackOnStop): the exporter is shutting down and no document of
// the batch has an outcome yet, so that the caller may keep the whole batch.
func (ix *Indexer) unsent(ctx context.Context, s *session, status, n int) {
	r := s.result
	if ix.cfg.HandBackOnStop && ix.stopCtx.Err() != nil && !s.deadLettering &&
		r.Indexed+r.Duplicate+r.Rejected+r.FailureStore+r.Dropped == 0 {
		s.result.HandedBack += n
		ix.recordDocs(ctx, OutcomeRetryable, "shutdown", status, n)
		return
	}
	s.result.Dropped += n
	ix.recordDocs(ctx, s.outcome(OutcomeDropped), "", status, n)
}
