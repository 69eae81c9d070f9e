// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"
)

// The self-telemetry speaks two vocabularies on purpose, in metrics of their own. The
// metrics named after contrib's (docs.processed, docs.retried, docs.retried_http_request, ...)
// record contrib's outcome values in the situations where contrib's elasticsearch exporter
// records them, so that dashboards built on contrib's self-telemetry keep their meaning and
// their sums: each document handed to Send is counted once in docs.processed, at its final
// result in the Send, and a failure that is sent again is counted only as a retry. The fate
// metric (docs.fate) takes this exporter's values (the Outcome constants), which say more:
// each document of the Send is counted there once too, with its final fate, including those
// contrib has no outcome for (handed back at shutdown, dead-lettered). An attribute that has
// no value (no status because no response arrived, no error type) is left out, never
// recorded empty or zero.

// Values of the outcome attribute, contrib's. Bulk requests record all but outcomeFailureStore.
const (
	outcomeSuccess       = "success"
	outcomeFailedClient  = "failed_client"
	outcomeFailedServer  = "failed_server"
	outcomeTimeout       = "timeout"
	outcomeTooMany       = "too_many"
	outcomeFailureStore  = "failure_store"
	outcomeInternalError = "internal_server_error"
)

// Attribute names, and the values of failure_store that are recorded.
const (
	attrOutcome      = "outcome"
	attrFate         = "fate"
	attrErrorType    = "error.type"
	attrStatusCode   = "http.response.status_code"
	attrFailureStore = "failure_store"
	attrReason       = "reason"

	failureStoreUsed       = string(docappender.FailureStoreStatusUsed)
	failureStoreFailed     = string(docappender.FailureStoreStatusFailed)
	failureStoreNotEnabled = string(docappender.FailureStoreStatusNotEnabled)
)

// requestOutcome is contrib's outcome of a bulk request that ended with status (0 for no
// response) and err. Contrib counts a timed-out or canceled request as timeout, any other
// request without a response as internal_server_error, and a status that is not an error as
// success; a 3xx, which contrib leaves without outcome, counts as failed_client.
func requestOutcome(status int, err error) string {
	switch {
	case err == nil:
		return outcomeSuccess
	case isResponseTooLarge(err):
		return outcomeFailedServer // answered 200, but longer than any answer to the request can be
	case status != 0:
		return statusOutcome(status)
	case isTimeout(err):
		return outcomeTimeout
	}
	return outcomeInternalError
}

// statusOutcome is contrib's outcome of a failed bulk request or item with an HTTP status.
func statusOutcome(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return outcomeTooMany
	case status >= 500:
		return outcomeFailedServer
	}
	return outcomeFailedClient
}

func isResponseTooLarge(err error) bool {
	_, ok := errors.AsType[errResponseTooLarge](err)
	return ok
}

// isTimeout tells whether a request without a response timed out or was canceled.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// docRecord is what the documents metrics record for some documents: outcome is that of
// docs.processed (none: not counted there), fate that of docs.fate (none: not a final fate);
// the other attributes are recorded by both when they have a value.
type docRecord struct {
	fate, outcome, errorType, failureStore string
	status                                 int
}

// itemRecord is the record of a document whose bulk item failed with status and errorType.
func itemRecord(fate string, status int, errorType string) docRecord {
	return docRecord{fate: fate, outcome: statusOutcome(status), status: status, errorType: errorType}
}

// recordDocs counts n documents of s: in docs.processed with r's outcome, in docs.fate with
// r's fate, each when it is set. While s sends dead letters, no outcome is recorded (contrib
// counted the originals already) and the fate is that of the original documents (see
// session.outcome). The last failure recorded with an outcome is kept in s.failOutcome, for
// the documents that a failed request leaves unsent.
func (ix *Indexer) recordDocs(ctx context.Context, s *session, r docRecord, n int) {
	if n == 0 {
		return
	}
	if s.deadLettering {
		r.outcome = ""
	}
	if r.outcome != "" {
		if r.outcome != outcomeSuccess && r.outcome != outcomeFailureStore {
			s.failOutcome = r.outcome
		}
		p := r
		p.fate = ""
		ix.writeDocPoints(ctx, s, p, n)
	}
	if r.fate != "" {
		r.outcome = ""
		ix.recordFate(ctx, s, r, n)
	}
}

// writeDocPoints is the one writer of docs.processed and docs.fate, for the documents of a
// Send and for the records a push never sent (RecordPreSend): it counts n in docs.processed
// with r's outcome when it is set, and in docs.fate with r's fate when it is set, each point
// with the metadata attributes of s and those of r's other attributes that have a value.
func (ix *Indexer) writeDocPoints(ctx context.Context, s *session, r docRecord, n int) {
	if r.outcome != "" {
		p := r
		p.fate = ""
		ix.cfg.Telemetry.ElasticsearchDocsProcessed.Add(ctx, int64(n), ix.points.options(s, p).add...)
	}
	if r.fate != "" {
		r.outcome = ""
		ix.cfg.Telemetry.ElasticsearchDocsFate.Add(ctx, int64(n), ix.points.options(s, r).add...)
	}
}

// Unsent is why a push did not send some of its records.
type Unsent int

const (
	// UnsentRejected is a record that cannot make a document: it cannot be routed, its
	// mapping mode cannot be used, or the encoder refused it. Fate rejected; contrib counts it
	// in docs.processed with outcome failed_client, and so does the exporter.
	UnsentRejected Unsent = iota
	// UnsentSkipped is a record, data point or value deliberately not written: a _noindex
	// hint, a NaN or infinite value. Fate skipped; not in docs.processed.
	UnsentSkipped
	// UnsentRetryable is a record that the push handed back to its caller, with an error that
	// is not permanent, before sending anything: it gave up waiting for room in flight. Fate
	// retryable; not in docs.processed.
	UnsentRetryable
)

// PreSend is one push's report of what it did before sending: the records it never handed to
// Send, by why and error.type, and the documents that encoding repaired, by reason. The push
// fills it while it encodes and hands it to RecordPreSend once. The zero value is ready to use;
// Reset empties it and keeps its memory, so that a push state reuses it without allocating.
type PreSend struct {
	unsent   map[unsentKey]int
	repaired map[string]int
}

type unsentKey struct {
	why       Unsent
	errorType string
}

// Unsent adds n records not sent for why, with errorType.
func (r *PreSend) Unsent(why Unsent, errorType string, n int) {
	if n == 0 {
		return
	}
	if r.unsent == nil {
		r.unsent = map[unsentKey]int{}
	}
	r.unsent[unsentKey{why, errorType}] += n
}

// Repaired adds n documents whose content encoding repaired for reason.
func (r *PreSend) Repaired(reason string, n int) {
	if n == 0 {
		return
	}
	if r.repaired == nil {
		r.repaired = map[string]int{}
	}
	r.repaired[reason] += n
}

// Count returns the records added as not sent for why, with errorType.
func (r *PreSend) Count(why Unsent, errorType string) int {
	return r.unsent[unsentKey{why, errorType}]
}

// Empty tells whether the report holds nothing.
func (r *PreSend) Empty() bool { return len(r.unsent) == 0 && len(r.repaired) == 0 }

// Reset empties the report and keeps its memory.
func (r *PreSend) Reset() {
	clear(r.unsent)
	clear(r.repaired)
}

// RecordPreSend counts what a push reported before sending, with the metadata attributes of
// ctx's client metadata and no HTTP status: the records never handed to Send in docs.fate with
// their fate and error.type (a rejection also in docs.processed, as the documents of a Send
// are counted), the repaired documents in docs.repaired with their reason. The push calls it
// once; the documents it sends are counted by Send.
func (ix *Indexer) RecordPreSend(ctx context.Context, r *PreSend) {
	if r.Empty() {
		return
	}
	var s session
	ix.setMetadata(ctx, &s)
	for k, n := range r.unsent {
		rec := docRecord{errorType: k.errorType}
		switch k.why {
		case UnsentRejected:
			rec.fate, rec.outcome = OutcomeRejected, outcomeFailedClient
		case UnsentSkipped:
			rec.fate = OutcomeSkipped
		case UnsentRetryable:
			rec.fate = OutcomeRetryable
		}
		ix.writeDocPoints(ctx, &s, rec, n)
	}
	for reason, n := range r.repaired {
		attrs := make([]attribute.KeyValue, 0, len(s.meta)+1)
		attrs = append(append(attrs, s.meta...), attribute.String(attrReason, reason))
		ix.cfg.Telemetry.ElasticsearchDocsRepaired.Add(ctx, int64(n), metric.WithAttributes(attrs...))
	}
}

// recordFate counts n documents of s in docs.fate. The fate of a document rejected for good
// or given up waits for the end of the Send while a dead letter may still be written for it:
// the dead letter's result is then its fate (dead_lettered, or dropped), recorded while the
// dead letters are sent, and the waiting fates are let go; otherwise recordHeldFates records
// them.
func (ix *Indexer) recordFate(ctx context.Context, s *session, r docRecord, n int) {
	if n == 0 {
		return
	}
	r.fate = s.outcome(r.fate)
	if !s.deadLettering && ix.cfg.DeadLetterIndex != "" && (r.fate == OutcomeRejected || r.fate == OutcomeDropped) {
		s.heldFates = append(s.heldFates, heldFate{r, n})
		return
	}
	ix.writeDocPoints(ctx, s, r, n)
}

// heldFate is the fate of n documents that wait for their dead letters (see recordFate).
type heldFate struct {
	r docRecord
	n int
}

// recordHeldFates records the fates held for dead letters that are not written after all.
func (ix *Indexer) recordHeldFates(ctx context.Context, s *session) {
	for _, h := range s.heldFates {
		ix.writeDocPoints(ctx, s, h.r, h.n)
	}
	s.heldFates = s.heldFates[:0]
}

// recordFailureStore counts in docs.processed, as contrib does, the documents of a chunk whose
// bulk items name their failure store: a second point, with outcome failure_store and no
// status, besides the document's own (success for a document written to the failure store,
// the item's failure otherwise). used, failed and notEnabled count the chunk's items by the
// failure store status they name.
func (ix *Indexer) recordFailureStore(ctx context.Context, s *session, used, failed, notEnabled int) {
	if s.deadLettering {
		return
	}
	for _, fs := range [...]struct {
		status string
		n      int
	}{{failureStoreUsed, used}, {failureStoreFailed, failed}, {failureStoreNotEnabled, notEnabled}} {
		if fs.n == 0 {
			continue
		}
		ix.writeDocPoints(ctx, s, docRecord{outcome: outcomeFailureStore, failureStore: fs.status}, fs.n)
	}
}

// requestRecord is a bulk request as contrib's request metrics count it: its attempts up to
// the last, where the attempts of a request that failed whole and was sent again are one
// request (contrib's HTTP client retries them out of its telemetry's sight).
type requestRecord struct {
	pending bool // an attempt was made and the request is not counted yet
	resent  bool // the request is sent again after its last attempt (see resendRequest)
	outcome string
	status  int
	// start is when its first attempt was sent, end when its last was answered or failed;
	// bytes and uncompressed are the body's bytes if the last attempt was answered; docs the
	// documents of the request, other pushes' included.
	start, end                time.Time
	bytes, uncompressed, docs int
}

// recordAttempt counts an attempt of a bulk request, sent at start and ended at end with
// outcome and status, in bulk_requests.attempts, and notes it for the request metrics: the
// attempt continues the request noted before if resendRequest was called, and is a new
// request otherwise (the one before is counted then). bi's byte counts are zero unless the attempt
// was answered: flush resets them before each attempt.
func (ix *Indexer) recordAttempt(ctx context.Context, s *session, outcome string, status int, start, end time.Time) {
	ix.cfg.Telemetry.ElasticsearchBulkRequestsAttempts.Add(ctx, 1, ix.points.options(s, docRecord{outcome: outcome, status: status}).add...)
	r := &s.requestRec
	if r.pending && !r.resent {
		ix.recordRequest(ctx, s)
	}
	if !r.pending {
		r.start = start
	}
	r.pending, r.resent = true, false
	r.outcome, r.status, r.end = outcome, status, end
	r.bytes, r.uncompressed = s.bytesFlushed(), s.bi.BytesUncompressedFlushed()
	r.docs = s.client.docs
}

// resendRequest notes that the request of the last attempt is sent again whole: the next
// attempt is one more of the same request.
func (*Indexer) resendRequest(s *session) {
	s.requestRec.resent = true
}

// recordRequest counts the request noted by recordAttempt, if it was not counted yet: one
// request with the outcome and status of its last attempt, the latency from its first attempt
// to its last, its documents, and the bytes of its body when the last attempt was answered.
func (ix *Indexer) recordRequest(ctx context.Context, s *session) {
	r := &s.requestRec
	if !r.pending {
		return
	}
	r.pending, r.resent = false, false
	tel := ix.cfg.Telemetry
	if r.bytes > 0 {
		tel.ElasticsearchFlushedBytes.Add(ctx, int64(r.bytes), s.metaAdd...)
	}
	if r.uncompressed > 0 {
		tel.ElasticsearchFlushedUncompressedBytes.Add(ctx, int64(r.uncompressed), s.metaAdd...)
	}
	opts := ix.points.options(s, docRecord{outcome: r.outcome, status: r.status})
	tel.ElasticsearchBulkRequestsCount.Add(ctx, 1, opts.add...)
	tel.ElasticsearchBulkRequestsLatency.Record(ctx, r.end.Sub(r.start).Seconds(), opts.record...)
	tel.ElasticsearchBulkRequestsDocuments.Record(ctx, int64(r.docs), opts.record...)
}

// recordReceived counts the n documents handed to Send.
func (ix *Indexer) recordReceived(ctx context.Context, s *session, n int) {
	ix.cfg.Telemetry.ElasticsearchDocsReceived.Add(ctx, int64(n), s.metaAdd...)
}

// recordRetried counts n documents sent again: in docs.retried_http_request when their whole
// request failed, in docs.retried when they failed on their own.
func (ix *Indexer) recordRetried(ctx context.Context, s *session, n int, wholeRequest bool) {
	if wholeRequest {
		ix.cfg.Telemetry.ElasticsearchDocsRetriedHTTPRequest.Add(ctx, int64(n), s.metaAdd...)
		return
	}
	ix.cfg.Telemetry.ElasticsearchDocsRetried.Add(ctx, int64(n), s.metaAdd...)
}

// pointOptions are the options that record a point with one set of attributes. Add and Record
// take them as a variadic parameter, whose slice a call through an interface allocates unless
// it is passed whole.
type pointOptions struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

func newPointOptions(set attribute.Set) *pointOptions {
	opt := metric.WithAttributeSet(set)
	return &pointOptions{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
}

// pointKey identifies the attributes of a point: the metadata attributes of its Send, then
// those of a docRecord that have a value.
type pointKey struct {
	meta attribute.Distinct
	docRecord
}

// maxPointSets bounds the attribute sets kept by pointCache: outcomes and statuses are few,
// but error types come from the server and metadata values from the clients.
const maxPointSets = 1024

// pointCache keeps the options of the attribute sets that points were recorded with, so that a
// request does not build its sets again (attribute.NewSet sorts and copies its attributes,
// and each option made is an allocation): a bulk request records four to six points. Past
// maxPointSets sets, points with a new set build it each time.
type pointCache struct {
	sets sync.Map // pointKey → *pointOptions
	n    atomic.Int64
}

// options returns the options recording the metadata attributes of s and the attributes of r
// that have a value.
func (c *pointCache) options(s *session, r docRecord) *pointOptions {
	k := pointKey{meta: s.metaSet.Equivalent(), docRecord: r}
	if v, ok := c.sets.Load(k); ok {
		return v.(*pointOptions)
	}
	o := newPointOptions(attribute.NewSet(s.pointAttrs(r)...))
	if c.n.Load() < maxPointSets {
		if _, loaded := c.sets.LoadOrStore(k, o); !loaded {
			c.n.Add(1)
		}
	}
	return o
}

// pointAttrs returns, in s's scratch, the metadata attributes of s, then the attributes of r
// that have a value: the exporter's own come last, so that they win over a metadata key of the
// same name.
func (s *session) pointAttrs(r docRecord) []attribute.KeyValue {
	s.attrs = append(s.attrs[:0], s.meta...)
	attrs := s.attrs
	if r.fate != "" {
		attrs = append(attrs, attribute.String(attrFate, r.fate))
	}
	if r.outcome != "" {
		attrs = append(attrs, attribute.String(attrOutcome, r.outcome))
	}
	attrs = appendDocAttributes(attrs, r.errorType, r.failureStore, r.status)
	s.attrs = attrs
	return attrs
}

func appendDocAttributes(attrs []attribute.KeyValue, errorType, failureStore string, status int) []attribute.KeyValue {
	if errorType != "" {
		attrs = append(attrs, attribute.String(attrErrorType, errorType))
	}
	if failureStore != "" {
		attrs = append(attrs, attribute.String(attrFailureStore, failureStore))
	}
	if status != 0 {
		attrs = append(attrs, attribute.Int(attrStatusCode, status))
	}
	return attrs
}

// setMetadata sets the metadata attributes of s from the client metadata of ctx.
func (ix *Indexer) setMetadata(ctx context.Context, s *session) {
	s.meta = metadatakeys.Attributes(ctx, ix.metadataKeys, s.meta[:0])
	if len(s.meta) == 0 {
		s.metaSet, s.metaAdd = attribute.Set{}, noAttributes
		return
	}
	s.metaSet = attribute.NewSet(s.meta...)
	s.metaAdd = []metric.AddOption{metric.WithAttributeSet(s.metaSet)}
}

// noAttributes records a point without attributes; made once, since each option, and each
// slice of options passed to Add, made for a measurement is an allocation.
var noAttributes = []metric.AddOption{metric.WithAttributeSet(attribute.Set{})}
