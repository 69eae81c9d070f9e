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

// session is the state of one Send: a docappender bulk indexer of its own (they are not safe
// for concurrent use), its client, the scratch of its requests, and the outcomes counted so far.
// The Indexer keeps sessions in a free list; putSession clears one for the next Send.
type session struct {
	bi           *docappender.BulkIndexer
	client       compactClient // bi's client
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
}

// getSession takes a session from the free list, or makes a new one when the list is empty or
// the session it gave was made with older settings.
func (ix *Indexer) getSession() (*session, error) {
	gen := ix.gen.Load()
	if s, ok := ix.sessions.Get(); ok && s.gen == gen {
		return s, nil
	}
	return ix.newSession(gen)
}

// putSession clears s and keeps it for the next Send, unless the settings changed since it was
// made or the free list is full.
func (ix *Indexer) putSession(s *session) {
	s.bi.Reset()
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

// newSession returns a session with its own bulk indexer, made with the Indexer's settings of
// generation gen.
func (ix *Indexer) newSession(gen uint64) (*session, error) {
	s := &session{gen: gen, running: -1}
	s.client = compactClient{next: ix.cfg.Client, budget: ix.cfg.Budget}
	s.failures.quietConflicts = ix.cfg.SuppressConflictErrors
	if err := ix.newBulkIndexer(s); err != nil {
		return nil, err
	}
	return s, nil
}

// newBulkIndexer gives s a new bulk indexer. It is also how a session drops documents it added
// but will not send: docappender's Reset only zeroes counters, and its next Flush would send
// them with the next request's.
func (ix *Indexer) newBulkIndexer(s *session) error {
	bi, err := docappender.NewBulkIndexer(docappender.BulkIndexerConfig{
		Client:               &s.client,
		MaxDocumentRetries:   0, // retries are ours, see the package doc
		CompressionLevel:     ix.cfg.CompressionLevel,
		Pipeline:             ix.cfg.Pipeline,
		IncludeSourceOnError: docappender.Value(ix.includeSource.Load()),
		FilterPath:           ix.cfg.FilterPath, // empty: docappender's DefaultFilterPath, AccountingFilterPath
	})
	if err != nil {
		return err
	}
	s.bi = bi
	return nil
}

// flush sends what the bulk indexer holds and records the attempt's telemetry. It returns the
// HTTP status of a failed request, 0 for a network failure, and the wait the server asked for
// with Retry-After.
func (ix *Indexer) flush(ctx context.Context, s *session) (docappender.BulkIndexerResponseStat, int, time.Duration, error) {
	bi := s.bi
	if err := ix.requests.acquire(ctx); err != nil {
		err = fmt.Errorf("waiting for a bulk request slot: %w", err)
		s.lastOutcome = outcomeTimeout // the push's context ended before the request was sent
		// The documents added are not sent; a later attempt adds them again.
		if nerr := ix.newBulkIndexer(s); nerr != nil {
			err = errors.Join(err, nerr)
		}
		return docappender.BulkIndexerResponseStat{}, 0, 0, err
	}
	reqCtx := ctx
	if ix.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(ctx, ix.cfg.RequestTimeout)
		defer cancel()
	}
	// Zero the byte counts, so that a request without an answer counts none, and the wait
	// asked for, so that a request that fails before it is sent asks for none.
	bi.Reset()
	s.client.retryAfter = 0
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
		ix.sizes.observe(bi.BytesFlushed(), bi.BytesUncompressedFlushed())
	}
	end := time.Now()
	ix.requests.release(end, end.Sub(start), requestBackpressure(status, &stat, err, ctx.Err()), err == nil)
	s.lastOutcome = requestOutcome(status, err)
	ix.recordAttempt(ctx, s, s.lastOutcome, status, start)
	return stat, status, s.client.retryAfter, err
}
