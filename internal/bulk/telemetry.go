// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The self-telemetry speaks two vocabularies on purpose. The attribute outcome takes contrib's
// values, recorded in the situations where contrib's elasticsearch exporter records them, so
// that dashboards built on contrib's self-telemetry keep their meaning; the attribute fate
// takes this exporter's values (the Outcome constants), which say more. Each document handed
// to Send is counted once with an outcome, at its final result in the Send; the points without
// one (a retryable failure that is sent again, the dead-letter copies) are what contrib does not
// count. An attribute that has no value (no status because no response arrived, no error type)
// is left out, never recorded empty or zero.

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

	failureStoreUsed       = string(docappender.FailureStoreStatusUsed)
	failureStoreFailed     = string(docappender.FailureStoreStatusFailed)
	failureStoreNotEnabled = string(docappender.FailureStoreStatusNotEnabled)
)

// OutcomeFailedClient is the outcome of a record that the exporter could not encode or route:
// a failure on the client's side, as contrib counts it.
const OutcomeFailedClient = outcomeFailedClient

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

// docRecord is what the documents metric records for some documents: fate is always set, the
// other attributes only when they have a value.
type docRecord struct {
	fate, outcome, errorType, failureStore string
	status                                 int
}

// itemRecord is the record of a document whose bulk item failed with status and errorType.
func itemRecord(fate string, status int, errorType string) docRecord {
	return docRecord{fate: fate, outcome: statusOutcome(status), status: status, errorType: errorType}
}

// recordDocs counts n documents of s in the documents metric. While s sends dead letters, the
// fate is that of the original documents (see session.outcome) and no outcome is recorded:
// contrib counted the originals already. The last failure recorded with an outcome is kept in
// s.failOutcome, for the documents that a failed request leaves unsent.
func (ix *Indexer) recordDocs(ctx context.Context, s *session, r docRecord, n int) {
	if n == 0 {
		return
	}
	r.fate = s.outcome(r.fate)
	if s.deadLettering {
		r.outcome = ""
	}
	attrs := s.pointAttrs()
	attrs = append(attrs, attribute.String(attrFate, r.fate))
	if r.outcome != "" {
		attrs = append(attrs, attribute.String(attrOutcome, r.outcome))
		if r.outcome != outcomeSuccess && r.outcome != outcomeFailureStore {
			s.failOutcome = r.outcome
		}
	}
	attrs = appendDocAttributes(attrs, r.errorType, r.failureStore, r.status)
	s.attrs = attrs
	ix.cfg.Telemetry.ElasticsearchDocsProcessed.Add(ctx, int64(n), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

// recordFailureStore counts, as contrib does, the documents of a response that Elasticsearch
// refused while their failure store failed or is not enabled: a second point, with outcome
// failure_store and no fate, besides the document's own. Documents written to the failure
// store are counted once, in classify.
func (ix *Indexer) recordFailureStore(ctx context.Context, s *session, stat docappender.BulkIndexerResponseStat) {
	if s.deadLettering {
		return
	}
	for _, fs := range [...]struct {
		status string
		n      int64
	}{{failureStoreFailed, stat.FailureStoreDocs.Failed}, {failureStoreNotEnabled, stat.FailureStoreDocs.NotEnabled}} {
		if fs.n == 0 {
			continue
		}
		attrs := s.pointAttrs()
		attrs = append(attrs, attribute.String(attrOutcome, outcomeFailureStore), attribute.String(attrFailureStore, fs.status))
		s.attrs = attrs
		ix.cfg.Telemetry.ElasticsearchDocsProcessed.Add(ctx, fs.n, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	}
}

// pointAttrs starts the attributes of a point in s's scratch with the metadata attributes,
// before the exporter's own, so that these win over a metadata key of the same name.
func (s *session) pointAttrs() []attribute.KeyValue {
	s.attrs = append(s.attrs[:0], s.meta...)
	return s.attrs
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

// recordRequest counts a bulk request and its latency, and the bytes of its body when it was
// answered (bi's counts are zero otherwise: flush resets them before each request).
func (ix *Indexer) recordRequest(ctx context.Context, s *session, outcome string, status int, seconds float64) {
	tel := ix.cfg.Telemetry
	meta := s.metaOption()
	if n := s.bi.BytesFlushed(); n > 0 {
		tel.ElasticsearchFlushedBytes.Add(ctx, int64(n), meta)
	}
	if n := s.bi.BytesUncompressedFlushed(); n > 0 {
		tel.ElasticsearchFlushedUncompressedBytes.Add(ctx, int64(n), meta)
	}
	attrs := s.pointAttrs()
	attrs = append(attrs, attribute.String(attrOutcome, outcome))
	if status != 0 {
		attrs = append(attrs, attribute.Int(attrStatusCode, status))
	}
	s.attrs = attrs
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	tel.ElasticsearchBulkRequestsCount.Add(ctx, 1, set)
	tel.ElasticsearchBulkRequestsLatency.Record(ctx, seconds, set)
}

// recordReceived counts the n documents handed to Send, and recordRetried those sent again.
func (ix *Indexer) recordReceived(ctx context.Context, s *session, n int) {
	ix.cfg.Telemetry.ElasticsearchDocsReceived.Add(ctx, int64(n), s.metaOption())
}

func (ix *Indexer) recordRetried(ctx context.Context, s *session, n int) {
	ix.cfg.Telemetry.ElasticsearchDocsRetried.Add(ctx, int64(n), s.metaOption())
}

// LowerKeys returns the metadata_keys as the attribute names they are recorded under:
// lower-cased, as contrib records them.
func LowerKeys(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.ToLower(k)
	}
	return out
}

// setMetadata sets the metadata attributes of s from the client metadata of ctx.
func (ix *Indexer) setMetadata(ctx context.Context, s *session) {
	s.meta = MetadataAttributes(ctx, ix.metadataKeys, s.meta[:0])
	s.metaSet = attribute.NewSet(s.meta...)
	s.metaOpt = nil
	if len(s.meta) > 0 {
		s.metaOpt = metric.WithAttributeSet(s.metaSet)
	}
}

// noAttributes records a point without attributes; made once, since each option made for a
// measurement is an allocation.
var noAttributes = metric.WithAttributeSet(attribute.Set{})

// metaOption is the option that records the metadata attributes of s alone.
func (s *session) metaOption() metric.MeasurementOption {
	if s.metaOpt == nil {
		return noAttributes
	}
	return s.metaOpt
}

// MetadataAttributes appends to dst an attribute per key (see LowerKeys) that the client
// metadata of ctx holds, named after the key and holding its values, as contrib records them
// on its self-telemetry. Client metadata keys are case-insensitive.
func MetadataAttributes(ctx context.Context, keys []string, dst []attribute.KeyValue) []attribute.KeyValue {
	if len(keys) == 0 {
		return dst
	}
	info := client.FromContext(ctx)
	for _, k := range keys {
		if v := info.Metadata.Get(k); len(v) > 0 {
			dst = append(dst, attribute.StringSlice(k, v))
		}
	}
	return dst
}
