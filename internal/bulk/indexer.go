// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
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

// errStopped tells that documents were given up because the exporter is shutting down.
var errStopped = errors.New("the exporter is shutting down")

// Outcomes of a bulk request.
const (
	requestSuccess       = "success"
	requestFailedClient  = "failed_client"
	requestFailedServer  = "failed_server"
	requestFailedNetwork = "failed_network"
	requestTooMany       = "too_many"
)

// Config configures an Indexer.
type Config struct {
	Client elastictransport.Interface
	// CompressionLevel is the gzip level of request bodies, 0 for none.
	CompressionLevel int
	// MaxBulkBytes caps the uncompressed NDJSON of one bulk request. A single document larger
	// than this is sent alone.
	MaxBulkBytes int
	// Pipeline is the default ingest pipeline of every request, empty for none.
	Pipeline             string
	IncludeSourceOnError docappender.Value
	// RequestTimeout bounds each bulk request; zero means no bound.
	RequestTimeout time.Duration
	Retry          RetryConfig
	Logger         *zap.Logger
	// Telemetry holds the instruments the Indexer records to: bulk requests, their latency,
	// documents by outcome, retries, bytes flushed and the concurrency limit. Nil records
	// nothing.
	Telemetry *metadata.TelemetryBuilder
	// LogRateLimit is the least time between two log lines about rejected documents.
	LogRateLimit time.Duration
	// LogFailedDocsInput logs the source of each document rejected for good, at most one
	// per LogRateLimit. Documents may hold sensitive data; off by default.
	LogFailedDocsInput bool
	// DeadLetterIndex, when set, receives a dead-letter document for each document rejected
	// for good or given up (see serializer.AppendDeadLetter).
	DeadLetterIndex string
	// Concurrency limits the bulk requests in flight at once, over every Send (see limit.go).
	Concurrency ConcurrencyConfig
	// HandBackOnStop hands a Send given up because of Stop back to its caller when none of
	// its documents has an outcome yet: they are counted as retryable (error.type shutdown),
	// not dropped nor dead-lettered, and Result.HandedBack says so. The exporter sets it with
	// a persistent sending queue, which keeps such a batch for after the restart.
	HandBackOnStop bool
}

// Indexer sends batches. It is safe for concurrent use: each Send takes its own
// docappender.BulkIndexer from a pool, since those are not.
type Indexer struct {
	cfg        Config
	pool       sync.Pool
	limiter    *LogLimiter
	docLimiter *LogLimiter

	// stopCtx ends when Stop is called: no more retries. abortCtx ends when Abort is called:
	// requests in flight are canceled too.
	stopCtx, abortCtx context.Context
	stop, abort       context.CancelFunc

	// includeSource and gen let SetIncludeSourceOnError change the bulk indexers' settings
	// while sends run: sessions made under an older generation are not pooled again.
	includeSource atomic.Int32
	gen           atomic.Uint64

	// authFailingSince is when requests started to be answered 401 or 403 (Unix ns), 0 when
	// the last request was not.
	authFailingSince atomic.Int64

	// requests limits the bulk requests in flight; sizes tracks request body sizes (limit.go).
	requests *concurrencyLimiter
	sizes    requestSizes
}

// Result counts the final outcome of the documents of one Send. HandedBack counts the
// documents handed back to the caller at shutdown (see Config.HandBackOnStop).
type Result struct {
	Indexed, Duplicate, Rejected, Dropped, FailureStore, DeadLettered, HandedBack int
}

// New validates cfg and returns an Indexer.
func New(cfg Config) (*Indexer, error) {
	if cfg.Client == nil {
		return nil, errors.New("bulk: no client")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Telemetry == nil {
		tb, err := metadata.NewTelemetryBuilder(component.TelemetrySettings{MeterProvider: noop.NewMeterProvider()})
		if err != nil {
			return nil, err
		}
		cfg.Telemetry = tb
	}
	ix := &Indexer{cfg: cfg, limiter: NewLogLimiter(cfg.LogRateLimit), docLimiter: NewLogLimiter(cfg.LogRateLimit)}
	ix.stopCtx, ix.stop = context.WithCancel(context.Background())
	ix.abortCtx, ix.abort = context.WithCancel(context.Background())
	ix.includeSource.Store(int32(cfg.IncludeSourceOnError))
	ix.requests = newConcurrencyLimiter(cfg.Concurrency, cfg.Telemetry.ElasticsearchBulkRequestsConcurrencyLimit)
	if _, err := ix.newSession(0); err != nil {
		return nil, err
	}
	return ix, nil
}

// Stop ends retries: each Send gives up what is left without an outcome after its current
// attempt, and a wait before a retry ends at once; requests in flight finish (within
// RequestTimeout), and a Send that starts after Stop makes one attempt. The documents given up
// are counted as dropped (or handed back, see Config.HandBackOnStop) and Send returns a
// retryable error when none of its documents was written. The exporter calls it when
// shutdown begins, before the sending queue drains: the queue's batches are sent once, and a
// shutdown during an outage does not wait for the outage to end.
func (ix *Indexer) Stop() { ix.stop() }

// Abort is Stop that also cancels the requests in flight and makes every later Send give up
// at once. The exporter calls it when the shutdown's context ends before the drain does.
func (ix *Indexer) Abort() {
	ix.stop()
	ix.abort()
}

// SetIncludeSourceOnError changes the include_source_on_error parameter of the requests sent
// from now on. The exporter sets False once it knows the server supports it, so that error
// reasons are reported without document sources.
func (ix *Indexer) SetIncludeSourceOnError(v docappender.Value) {
	if ix.includeSource.Swap(int32(v)) != int32(v) {
		ix.gen.Add(1)
	}
}

// newSession returns a session with its own bulk indexer, made with the Indexer's settings of
// generation gen.
func (ix *Indexer) newSession(gen uint64) (*session, error) {
	s := &session{gen: gen}
	s.client = compactClient{next: ix.cfg.Client}
	if err := ix.newBulkIndexer(s); err != nil {
		return nil, err
	}
	return s, nil
}

// newBulkIndexer gives s a new bulk indexer. It is also how a session drops documents it added
// but will not send: docappender cannot forget them (its Reset only zeroes counters), and its
// next Flush would send them with the next request's.
func (ix *Indexer) newBulkIndexer(s *session) error {
	bi, err := docappender.NewBulkIndexer(docappender.BulkIndexerConfig{
		Client:               &s.client,
		MaxDocumentRetries:   0, // retries are ours, see the package doc
		CompressionLevel:     ix.cfg.CompressionLevel,
		Pipeline:             ix.cfg.Pipeline,
		IncludeSourceOnError: docappender.Value(ix.includeSource.Load()),
	})
	if err != nil {
		return err
	}
	s.bi = bi
	return nil
}

type session struct {
	bi           *docappender.BulkIndexer
	client       compactClient     // bi's client
	body         requestBody       // what bi writes after the first action line (see add)
	templates    map[string]string // dynamic templates of the first document of a request
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
}

func (ix *Indexer) getSession() (*session, error) {
	gen := ix.gen.Load()
	if s, ok := ix.pool.Get().(*session); ok && s.gen == gen {
		return s, nil
	}
	return ix.newSession(gen)
}

func (ix *Indexer) putSession(s *session) {
	s.bi.Reset()
	s.body.batch, s.body.pending = nil, nil
	s.chunk, s.retry = s.chunk[:0], s.retry[:0]
	s.failures.reset()
	s.result = Result{}
	clear(s.dead)
	s.dead = s.dead[:0]
	clear(s.lastFailure)
	s.lastFailure = s.lastFailure[:0]
	s.deadLettering = false
	s.dlq.Reset()
	if s.gen == ix.gen.Load() {
		ix.pool.Put(s)
	}
}

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
			ix.unsent(ctx, s, 0, rest)
			for i := next; i < b.Len(); i++ {
				s.toDead(i, 0, "not_attempted", "an earlier request of the same push failed: "+err.Error())
			}
			return err
		}
	}
	return nil
}

// deadLetter sends a dead-letter document for each document in s.dead and reports whether
// all of them were stored.
func (ix *Indexer) deadLetter(ctx context.Context, s *session, b *Batch) bool {
	now := time.Now()
	for _, d := range s.dead {
		start := len(s.dlq.Buf)
		doc := b.Document(d.item)
		if d.status == http.StatusRequestEntityTooLarge {
			// The whole document would be too large again: keep its beginning.
			doc = serializer.TruncateUTF8(doc, maxTooLargeSource)
		}
		s.dlq.Buf = serializer.AppendDeadLetter(s.dlq.Buf, doc, b.items[d.item].Index,
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
	if err != nil || stored != len(s.dead) {
		ix.cfg.Logger.Error("Documents could not be written to the dead-letter index",
			zap.String("index", ix.cfg.DeadLetterIndex), zap.Int("documents", len(s.dead)-stored), zap.Error(err))
		return false
	}
	return true
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

// itemOverhead returns the bytes an item adds to a request besides its document: its action
// line and the two newlines. Names that need JSON escaping make it a little
// larger; the cut is meant to be close, not exact.
func itemOverhead(it *Item) int {
	n := len(`{"create":{}}`) + 2
	if it.Index != "" {
		n += len(`,"_index":""`) + len(it.Index)
	}
	if it.DocumentID != "" {
		n += len(`,"_id":""`) + len(it.DocumentID)
	}
	if it.Pipeline != "" {
		n += len(`,"pipeline":""`) + len(it.Pipeline)
	}
	if it.RequireDataStream {
		n += len(`,"require_data_stream":true`)
	}
	return n
}

// add hands the documents pending of b to the bulk indexer as the body of one request.
//
// docappender's Add writes an action line, the document and a newline into its buffer, or its
// gzip writer, in three writes, and allocates the newline: with one Add per document, small
// documents cost about a tenth of the push path's CPU there, and one allocation each. add
// calls Add once per request instead, with the first document's metadata and a body that
// writes the first document followed by the action line and the document of each other one
// (see requestBody). The response still has one item per document, in order, which is what
// classify reads; the session's client sends the real number of documents in
// X-Elastic-Event-Count, since docappender counts one item.
func (s *session) add(b *Batch, pending []int) error {
	first := &b.items[pending[0]]
	s.body.batch, s.body.pending = b, pending
	s.client.docs = len(pending)
	var templates map[string]string
	if first.tplEnd > first.tplStart {
		// docappender reads the map while Add writes the action line, so one map serves
		// every request.
		if s.templates == nil {
			s.templates = make(map[string]string)
		}
		clear(s.templates)
		for _, t := range b.Templates(pending[0]) {
			s.templates[t.Path] = t.Template
		}
		templates = s.templates
	}
	return s.bi.Add(docappender.BulkIndexerItem{
		Index:             first.Index,
		DocumentID:        first.DocumentID,
		Pipeline:          first.Pipeline,
		Body:              &s.body,
		DynamicTemplates:  templates,
		RequireDataStream: first.RequireDataStream,
	})
}

// sendChunk sends the documents s.chunk of b, retrying what is retryable, and counts every
// document's outcome.
func (ix *Indexer) sendChunk(ctx context.Context, s *session, b *Batch, pending []int) error {
	for attempt := 0; ; attempt++ {
		if err := s.add(b, pending); err != nil {
			err = fmt.Errorf("adding documents to the bulk request: %w", err)
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
			retryable := ix.retryableRequest(status, err)
			if status != 0 || !retryable {
				err = requestError(status, err, len(pending))
			}
			if !retryable {
				ix.recordDocs(ctx, s.outcome(OutcomeRejected), "request", status, len(pending))
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
				ix.cfg.Telemetry.ElasticsearchDocsRetried.Add(ctx, int64(len(pending)))
				continue
			}
		}
		return ix.giveUp(ctx, s, pending, status, attempt+1, err)
	}
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

// split handles 413 Request Entity Too Large, which Elasticsearch or a proxy in front of it
// answers for a body over its limit: the documents are sent again in two halves, down to single
// documents. A single document that is still too large is rejected for good, with its size in
// the log and the telemetry.
func (ix *Indexer) split(ctx context.Context, s *session, b *Batch, pending []int) error {
	if len(pending) == 1 {
		i := pending[0]
		size := b.items[i].end - b.items[i].start
		s.result.Rejected++
		ix.recordDocs(ctx, s.outcome(OutcomeRejected), "request_entity_too_large", http.StatusRequestEntityTooLarge, 1)
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
		ix.unsent(ctx, s, 0, len(second))
		for _, i := range second {
			s.toDead(i, 0, "not_attempted", "the other half of a split request failed: "+err.Error())
		}
		return err
	}
	return ix.sendChunk(ctx, s, b, second)
}

// flush sends what the bulk indexer holds and records the request's telemetry. It returns the
// HTTP status of a failed request, 0 for a network failure, and the wait the server asked for
// with Retry-After.
func (ix *Indexer) flush(ctx context.Context, s *session) (docappender.BulkIndexerResponseStat, int, time.Duration, error) {
	bi := s.bi
	if err := ix.requests.acquire(ctx); err != nil {
		err = fmt.Errorf("waiting for a bulk request slot: %w", err)
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
	var ra retryAfter
	reqCtx = context.WithValue(reqCtx, retryAfterKey{}, &ra)
	start := time.Now()
	stat, err := bi.Flush(reqCtx)
	elapsed := time.Since(start).Seconds()

	status := http.StatusOK
	outcome := requestSuccess
	if err != nil {
		status = 0
		outcome = requestFailedNetwork
		if ff, ok := errors.AsType[docappender.ErrorFlushFailed](err); ok {
			status = ff.StatusCode()
			switch {
			case status == http.StatusTooManyRequests:
				outcome = requestTooMany
			case status >= 500:
				outcome = requestFailedServer
			default:
				outcome = requestFailedClient
			}
		}
	} else {
		flushed := bi.BytesFlushed()
		ix.cfg.Telemetry.ElasticsearchFlushedBytes.Add(ctx, int64(flushed))
		ix.cfg.Telemetry.ElasticsearchFlushedUncompressedBytes.Add(ctx, int64(bi.BytesUncompressedFlushed()))
		ix.sizes.observe(flushed, bi.BytesUncompressedFlushed())
	}
	ix.requests.release(time.Since(start), requestBackpressure(status, &stat, err, ctx.Err()), err == nil)
	attrs := metric.WithAttributeSet(attribute.NewSet(
		attribute.String("outcome", outcome),
		attribute.Int("http.response.status_code", status),
	))
	ix.cfg.Telemetry.ElasticsearchBulkRequestsCount.Add(ctx, 1, attrs)
	ix.cfg.Telemetry.ElasticsearchBulkRequestsLatency.Record(ctx, elapsed, attrs)
	return stat, status, ra.wait, err
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
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return fmt.Errorf("bulk request failed (%d documents): the server's TLS certificate cannot be verified; check tls::ca_file: %w", n, err)
	}
	return fmt.Errorf("bulk request failed (%d documents): %w", n, err)
}

// logFailures writes one Warn line per Send that had rejected or failed documents, with
// counts, error types, a reason and the indices. Lines are rate-limited; the number of
// suppressed lines is reported on the next one.
func (ix *Indexer) logFailures(s *session) {
	if len(s.failures.entries) == 0 {
		return
	}
	suppressed, ok := ix.limiter.Allow()
	if !ok {
		return
	}
	var sb strings.Builder
	for i, e := range s.failures.entries {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(strconv.Itoa(e.count))
		sb.WriteString(" ")
		sb.WriteString(e.outcome)
		sb.WriteString(" (")
		sb.WriteString(strconv.Itoa(e.status))
		sb.WriteString(" ")
		sb.WriteString(e.errorType)
		if e.reason != "" {
			sb.WriteString(": ")
			sb.WriteString(e.reason)
		}
		sb.WriteString(") in ")
		sb.WriteString(e.index)
	}
	fields := []zap.Field{
		zap.String("failures", sb.String()),
		zap.Int("indexed", s.result.Indexed), zap.Int("rejected", s.result.Rejected),
		zap.Int("duplicate", s.result.Duplicate), zap.Int("dropped", s.result.Dropped),
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed_log_lines", suppressed))
	}
	ix.cfg.Logger.Warn("Documents not indexed", fields...)
}

// failureSummary groups failed documents by outcome, status, error type and index.
type failureSummary struct {
	entries []failureEntry
}

type failureEntry struct {
	outcome, errorType, reason, index string
	status, count                     int
}

const maxFailureEntries = 16

func (f *failureSummary) addItem(item docappender.BulkIndexerResponseItem, outcome string) {
	f.add(outcome, item.Status, item.Error.Type, item.Error.Reason, item.Index)
}

func (f *failureSummary) add(outcome string, status int, errorType, reason, index string) {
	for i := range f.entries {
		e := &f.entries[i]
		if e.outcome == outcome && e.status == status && e.errorType == errorType && e.index == index {
			e.count++
			return
		}
	}
	if len(f.entries) == maxFailureEntries {
		return
	}
	f.entries = append(f.entries, failureEntry{
		outcome: outcome, errorType: errorType, reason: reason,
		index: index, status: status, count: 1,
	})
}

func (f *failureSummary) reset() {
	clear(f.entries)
	f.entries = f.entries[:0]
}

// LogLimiter lets one log line through per period and counts the lines it held back. It is
// safe for concurrent use.
type LogLimiter struct {
	mu         sync.Mutex
	every      time.Duration
	last       time.Time
	suppressed int
}

// NewLogLimiter returns a LogLimiter that allows one line per period; 0 allows every line.
func NewLogLimiter(every time.Duration) *LogLimiter { return &LogLimiter{every: every} }

// Allow reports whether a line may be logged now, and how many were held back since the last
// one that was.
func (l *LogLimiter) Allow() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.suppressed++
		return 0, false
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return n, true
}
