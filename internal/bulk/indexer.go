// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric/noop"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/freelist"
	"github.com/otelcol-es/elasticsearchexporter/internal/loglimit"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"
)

// Config configures an Indexer.
type Config struct {
	Client elastictransport.Interface
	// CompressionLevel is the gzip level of request bodies, 0 for none. Ignored with Snappy.
	CompressionLevel int
	// Snappy sends request bodies in snappy once EnableSnappy is called, unless a request
	// shows that the node does not decode it; with gzip at FallbackGzipLevel until then and
	// after (encoding.go).
	Snappy bool
	// MaxBulkBytes caps the uncompressed NDJSON of one bulk request. A single document larger
	// than this is sent alone.
	MaxBulkBytes int
	// MaxBulkDocs caps the documents of one bulk request, whether it holds one push's
	// documents or those of several (group.go); 0 means no cap. The exporter sets it from
	// sending_queue::batch::max_size when the batch is sized in items.
	MaxBulkDocs int
	// Pipeline is the default ingest pipeline of every request, empty for none.
	Pipeline             string
	IncludeSourceOnError docappender.Value
	// RequestTimeout bounds each bulk request; zero means no bound.
	RequestTimeout time.Duration
	Retry          RetryConfig
	Logger         *zap.Logger
	// UnauthorizedHint, when set, is what the error of a request answered 401 says after
	// "HTTP 401,": which credentials were sent and what to check (esclient's
	// Client.UnauthorizedHint). Empty: a hint that names the settings only.
	UnauthorizedHint string
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
	// for good or given up (see appendDeadLetter).
	DeadLetterIndex string
	// Concurrency limits the bulk requests in flight at once, over every Send (see concurrency.go).
	Concurrency ConcurrencyConfig
	// FilterPath is the filter_path of bulk requests (see FilterPath); empty means
	// AccountingFilterPath, which docappender sets.
	FilterPath string
	// QueryParams are added to the URL of every bulk request: the query parameters of the
	// endpoints (esclient's Endpoints.QueryParams). The parameters the Indexer sets itself
	// (filter_path, include_source_on_error, and pipeline when Pipeline is set) replace those of
	// the same name; the configuration refuses such collisions.
	QueryParams url.Values
	// SuppressConflictErrors leaves the documents answered 409 version_conflict_engine_exception
	// out of the log line about failed documents; they are still counted.
	SuppressConflictErrors bool
	// HandBackOnStop hands a Send that gives documents up because of Stop back to its caller,
	// whatever part of its batch was written: the documents without an outcome are counted as
	// retryable (error.type shutdown), not dropped nor dead-lettered, Result.HandedBack says
	// so, and the error wraps ErrHandedBack and is not permanent. The exporter sets it with a
	// persistent sending queue, which keeps such a batch and sends it whole after the restart:
	// the documents already written are sent again, duplicates that deterministic ids make
	// 409s. At-least-once delivery thus holds across a graceful stop, as across a crash.
	HandBackOnStop bool
	// MetadataKeys are the metadata_keys: each one that the client metadata of a Send's
	// context holds becomes an attribute of the Send's telemetry, named after the key
	// lower-cased.
	MetadataKeys []string
	// IdleSessions is the most sessions (a Send's client with its response buffers, and its
	// scratch) kept between Sends for the next ones; the exporter keeps as many as one
	// signal's pushes that run at once (sending_queue::num_consumers). 0 means 10. The request
	// bodies (a docappender bulk indexer with its gzip writer and request buffer) belong to the
	// requests in flight, not to the Sends, and are kept up to Concurrency.Max (see
	// requestBody).
	IdleSessions int
	// Budget, when set, counts the response buffers of bulk requests while they are read and
	// decoded (at most ResponseLimit bytes each), next to the encoded documents the caller
	// counts: the exporter passes its in-flight ByteBudget.
	Budget *ByteBudget
}

// Indexer sends batches. It is safe for concurrent use: each Send takes a session of its own
// from a free list, and each request a docappender.BulkIndexer of its own (requestBody), since
// those are not.
type Indexer struct {
	cfg        Config
	sessions   *freelist.List[*session]
	bodies     *freelist.List[*requestBody]
	limiter    *loglimit.Limiter
	docLimiter *loglimit.Limiter

	// stopCtx ends when Stop is called: no more retries. abortCtx ends when Abort is called:
	// requests in flight are canceled too.
	stopCtx, abortCtx context.Context
	stop, abort       context.CancelFunc
	// sends are the Sends running, whose contexts Abort cancels.
	sends runningSends

	// includeSource and gen let SetIncludeSourceOnError change the bulk indexers' settings
	// while sends run: sessions made under an older generation are not kept again.
	includeSource atomic.Int32
	gen           atomic.Uint64

	// authFailingSince is when requests started to be answered 401 or 403 (Unix ns), 0 when
	// the last request was not.
	authFailingSince atomic.Int64

	// requests limits the bulk requests in flight (concurrency.go); sizes tracks the
	// compression of request bodies (budget.go).
	requests *concurrencyLimiter
	sizes    requestSizes
	// room holds the chunks waiting for a request slot, for the next request (group.go).
	room waitingRoom

	// points keeps the options of the attribute sets of the telemetry's points (telemetry.go).
	points pointCache

	// metadataKeys are Config.MetadataKeys lower-cased (see metadatakeys.Lower).
	metadataKeys []string
	// sizeLimit is the request size learned from 413 answers (toolarge.go).
	sizeLimit sizeLimit
	// codec is the state of snappy, nil unless Config.Snappy (encoding.go).
	codec *bodyCodec
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
	ix := &Indexer{
		cfg: cfg, limiter: loglimit.New(cfg.LogRateLimit), docLimiter: loglimit.New(cfg.LogRateLimit),
		metadataKeys: metadatakeys.Lower(cfg.MetadataKeys),
	}
	idle := cfg.IdleSessions
	if idle <= 0 {
		idle = defaultIdleSessions
	}
	ix.sessions = freelist.New[*session](idle, 0)
	bodies := cfg.Concurrency.Max
	if bodies <= 0 {
		bodies = idle
	}
	ix.bodies = freelist.New[*requestBody](bodies, 0)
	if cfg.Snappy {
		ix.codec = &bodyCodec{}
	}
	ix.stopCtx, ix.stop = context.WithCancel(context.Background())
	ix.abortCtx, ix.abort = context.WithCancel(context.Background())
	ix.includeSource.Store(int32(cfg.IncludeSourceOnError))
	ix.requests = newConcurrencyLimiter(cfg.Concurrency, cfg.Telemetry.ElasticsearchBulkRequestsConcurrencyLimit, time.Now())
	body, err := ix.newBody(0) // checks the bulk indexer's settings
	if err != nil {
		return nil, err
	}
	ix.bodies.Put(body, 0)
	return ix, nil
}

// defaultIdleSessions is Config.IdleSessions when unset.
const defaultIdleSessions = 10

// errStopped tells that documents were given up because the exporter is shutting down.
var errStopped = errors.New("the exporter is shutting down")

// DeadLetters tells whether documents rejected for good are dead-lettered
// (Config.DeadLetterIndex is set).
func (ix *Indexer) DeadLetters() bool { return ix.cfg.DeadLetterIndex != "" }

// Stop ends retries: each Send gives up what is left without an outcome after its current
// attempt, and a wait before a retry ends at once; requests in flight finish (within
// RequestTimeout), and a Send that starts after Stop makes one attempt. The documents given up
// are counted as dropped, and Send returns a retryable error when none of its documents was
// written; with Config.HandBackOnStop the whole batch is handed back instead, whatever part of
// it was written. The exporter calls it when
// shutdown begins, before the sending queue drains: the queue's batches are sent once, and a
// shutdown during an outage does not wait for the outage to end.
func (ix *Indexer) Stop() { ix.stop() }

// Abort is Stop that also cancels the requests in flight and makes every later Send give up
// at once. The exporter calls it when the shutdown's context ends before the drain does.
func (ix *Indexer) Abort() {
	ix.stop()
	ix.abort()
	ix.sends.abort()
}

// runningSends holds the cancel function of each Send running, so that Abort can cancel their
// requests and waits. Adding and removing a Send allocates nothing (the list keeps its
// storage), where a context.AfterFunc on the Indexer's abort context allocates twice per Send.
type runningSends struct {
	mu      sync.Mutex
	aborted bool
	running []*session
}

// add registers the Send of s, whose context cancel ends; after Abort it cancels at once.
func (r *runningSends) add(s *session, cancel context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted {
		cancel()
		return
	}
	s.cancel, s.running = cancel, len(r.running)
	r.running = append(r.running, s)
}

// remove forgets the Send of s.
func (r *runningSends) remove(s *session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := s.running; i >= 0 && i < len(r.running) && r.running[i] == s {
		last := len(r.running) - 1
		moved := r.running[last]
		r.running[i], moved.running = moved, i
		r.running[last] = nil
		r.running = r.running[:last]
	}
	s.cancel, s.running = nil, -1
}

// abort cancels every Send running, and each one added from now on.
func (r *runningSends) abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aborted = true
	for _, s := range r.running {
		s.cancel()
	}
}

// SetIncludeSourceOnError changes the include_source_on_error parameter of the requests sent
// from now on. The exporter sets False once it knows the server supports it, so that error
// reasons are reported without document sources.
func (ix *Indexer) SetIncludeSourceOnError(v docappender.Value) {
	if ix.includeSource.Swap(int32(v)) != int32(v) {
		ix.gen.Add(1)
	}
}
