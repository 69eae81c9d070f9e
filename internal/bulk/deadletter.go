// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// deadLetter sends a dead-letter document for each document that the pipeline refused
// (Batch.Refuse: the index its record chose, status 0 since no request was made) and each
// document in s.dead, and reports whether all of them were stored.
func (ix *Indexer) deadLetter(ctx context.Context, s *session, b *Batch) bool {
	now := time.Now()
	for _, r := range b.refused {
		start := len(s.dlq.Buf)
		s.dlq.Buf = appendDeadLetter(s.dlq.Buf, b.Buf[r.start:r.end], r.index, 0, r.errorType, r.reason, now)
		s.dlq.Add(start, Item{Index: ix.cfg.DeadLetterIndex, DocumentID: ContentID(s.dlq.Buf[start:]), DerivedID: true})
	}
	for _, d := range s.dead {
		start := len(s.dlq.Buf)
		doc := b.Document(d.item)
		if d.status == http.StatusRequestEntityTooLarge {
			// The whole document would be too large again: keep its beginning.
			doc = truncateUTF8(doc, maxTooLargeSource)
		}
		s.dlq.Buf = appendDeadLetter(s.dlq.Buf, doc, b.items[d.item].Index,
			d.status, d.errorType, d.reason, now)
		// A content-derived id makes a dead letter sent again after a lost answer a 409,
		// not a second copy.
		s.dlq.Add(start, Item{Index: ix.cfg.DeadLetterIndex, DocumentID: ContentID(s.dlq.Buf[start:]), DerivedID: true})
	}
	before := s.result
	s.deadLettering = true
	err := ix.sendAll(ctx, s, &s.dlq)
	s.deadLettering = false
	// A 409 means the same dead letter (content-derived id) is already stored, e.g. by an
	// attempt whose answer was lost.
	stored := s.result.Indexed - before.Indexed + s.result.Duplicate - before.Duplicate
	// The dead letters are not the push's documents: keep the push's counts.
	s.result = before
	s.result.DeadLettered += stored
	if dead := len(s.dead) + len(b.refused); err != nil || stored != dead {
		ix.cfg.Logger.Error("Documents could not be written to the dead-letter index",
			zap.String("index", ix.cfg.DeadLetterIndex), zap.Int("documents", dead-stored), zap.Error(err))
		return false
	}
	return true
}

// appendDeadLetter appends the dead-letter document of a document that Elasticsearch rejected
// for good or that could not be delivered: the time, the original document as a string, the
// index it was meant for, the HTTP status (0 when there was no answer) and the error's type
// and reason.
func appendDeadLetter(dst, doc []byte, index string, status int, errorType, reason string, now time.Time) []byte {
	dst = append(dst, `{"@timestamp":"`...)
	dst = now.UTC().AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","document":"`...)
	// The document was written by the serializer: it is valid UTF-8.
	dst, _ = jsonstr.AppendEscaped(dst, string(doc))
	dst = append(dst, `","index":`...)
	dst, _ = jsonstr.Append(dst, index)
	dst = append(dst, `,"http":{"response":{"status_code":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, `}},"error":{"type":`...)
	dst, _ = jsonstr.Append(dst, errorType)
	dst = append(dst, `,"reason":`...)
	dst, _ = jsonstr.Append(dst, reason)
	return append(dst, `}}`...)
}

// truncateUTF8 returns at most n bytes of b, cut before a UTF-8 sequence rather than inside
// one.
func truncateUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

type itemFailure struct {
	status    int
	errorType string
}

// noteFailure remembers the retryable failure of document i of b.
func (s *session) noteFailure(b *Batch, i, status int, errorType string) {
	if s.deadLettering {
		return
	}
	if len(s.lastFailure) < b.Len() {
		s.lastFailure = append(s.lastFailure, make([]itemFailure, b.Len()-len(s.lastFailure))...)
	}
	s.lastFailure[i] = itemFailure{status: status, errorType: errorType}
}

// maxTooLargeSource is how much of a document too large for the server its dead letter keeps.
const maxTooLargeSource = 1024

// deadLetter is a document rejected for good or given up, waiting for the dead-letter index.
type deadLetter struct {
	item              int
	status            int
	errorType, reason string
}

// toDead records document i for the dead-letter index, unless the dead letters themselves are
// being sent.
func (s *session) toDead(i, status int, errorType, reason string) {
	if !s.deadLettering {
		s.dead = append(s.dead, deadLetter{item: i, status: status, errorType: errorType, reason: reason})
	}
}

// outcome returns the outcome to record for the documents being sent: while dead letters are
// sent, indexed means dead-lettered and any failure means the original is dropped.
func (s *session) outcome(o string) string {
	if !s.deadLettering {
		return o
	}
	switch o {
	case OutcomeIndexed, OutcomeDuplicate:
		return OutcomeDeadLettered
	case OutcomeRejected, OutcomeDropped:
		return OutcomeDropped
	}
	return o
}
