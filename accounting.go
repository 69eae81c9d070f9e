// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Every record a push does not send is counted in otelcol.elasticsearch.docs.fate with its
// fate (rejected, skipped, or retryable for a push that gave up waiting for room in flight), its
// error.type and no HTTP status, and rejections are logged once per push and error type,
// rate-limited. A rejected record is also counted in otelcol.elasticsearch.docs.processed with
// contrib's outcome failed_client, as contrib counts it; a skipped one, or one not sent for
// want of room, is not (see internal/bulk's telemetry.go). Records are rejected when they cannot
// be routed, when their mapping mode cannot be used, or when the encoder refuses them; they are
// skipped for their _noindex hint. What happens to the documents that are sent is counted by
// the bulk package.

// recordEncoding counts what encoding repaired, rejected and skipped in one push, and logs the
// rejections, once per push and error type.
func (e *esExporter) recordEncoding(ctx context.Context, st *pushState) {
	for r, n := range st.repairs {
		attrs := metadatakeys.Attributes(ctx, e.metadataKeys, nil)
		attrs = append(attrs, attribute.String("reason", string(r)))
		e.telemetry.ElasticsearchDocsRepaired.Add(ctx, int64(n), metric.WithAttributes(attrs...))
	}
	for errorType, n := range st.rejected {
		e.countUnsent(ctx, bulk.OutcomeRejected, errorType, n)
		if suppressed, ok := e.invalidRouteLog.Allow(); ok {
			e.logger.Warn("Records rejected before sending", zap.String("error.type", errorType),
				zap.Int("records", n), zap.Error(st.firstRejection[errorType]), zap.Int("suppressed_log_lines", suppressed))
		}
	}
	if st.noIndex > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "_noindex", st.noIndex)
	}
}

// recordMetricsReport counts and logs, once per push, the data points and values that the
// encoder could not write.
func (e *esExporter) recordMetricsReport(ctx context.Context, r *serializer.MetricsReport) {
	for i, n := range r.Rejected {
		if n == 0 {
			continue
		}
		reason := serializer.RejectReason(i)
		e.countUnsent(ctx, bulk.OutcomeRejected, reason, n)
		if suppressed, ok := e.invalidRouteLog.Allow(); ok {
			fields := []zap.Field{
				zap.Int("data_points", n), zap.String("reason", reason),
				zap.String("metric", r.RejectedNames[i]), zap.Int("suppressed_log_lines", suppressed),
			}
			if reason == serializer.RejectInvalidIndexName {
				fields = append(fields, zap.Error(r.FirstError))
			}
			e.logger.Warn("Metric data points rejected", fields...)
		}
	}
	if r.NonFinite > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "non_finite_value", r.NonFinite)
		e.logger.Warn("Metric values that are NaN or infinite were not written: Elasticsearch cannot store them",
			zap.Int("values", r.NonFinite), zap.String("metric", r.NonFiniteName))
	}
	if r.NoIndex > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "_noindex", r.NoIndex)
	}
}

// countUnsent counts documents, data points or values that were never sent: rejected or
// skipped while encoding, or not sent for want of room in flight (no HTTP status).
func (e *esExporter) countUnsent(ctx context.Context, fate, errorType string, n int) {
	attrs := metadatakeys.Attributes(ctx, e.metadataKeys, make([]attribute.KeyValue, 0, len(e.metadataKeys)+2))
	if errorType != "" {
		attrs = append(attrs, attribute.String("error.type", errorType))
	}
	// The last attribute is the fate for docs.fate, then the outcome for docs.processed:
	// metric.WithAttributes copies the attributes it is given.
	attrs = append(attrs, attribute.String("fate", fate))
	e.telemetry.ElasticsearchDocsFate.Add(ctx, int64(n), metric.WithAttributes(attrs...))
	if fate == bulk.OutcomeRejected {
		attrs[len(attrs)-1] = attribute.String("outcome", bulk.OutcomeFailedClient)
		e.telemetry.ElasticsearchDocsProcessed.Add(ctx, int64(n), metric.WithAttributes(attrs...))
	}
}

// unrouted counts a record that could not be routed.
func (st *pushState) unrouted(err error) { st.reject("invalid_index_name", 1, err) }

// reject counts n records rejected before sending, keeping the first error of each type for
// the log.
func (st *pushState) reject(errorType string, n int, err error) {
	st.rejected[errorType] += n
	if _, ok := st.firstRejection[errorType]; !ok {
		st.firstRejection[errorType] = err
	}
}

// skipNoIndex reports whether a record (log record, span or span event) with the attribute
// keys found by routing.ScanRecord carries the _noindex hint, and counts it as skipped.
func (st *pushState) skipNoIndex(keys routing.RecordKeys, attrs pcommon.Map) bool {
	if keys&routing.RecordMappingHints == 0 || !serializer.NoIndex(attrs) {
		return false
	}
	st.noIndex++
	return true
}

// rejectMode counts n records rejected because their mapping mode cannot be used; the push
// then returns a permanent error.
func (st *pushState) rejectMode(err error, n int) {
	errorType := errorTypeUnsupportedMode
	if me, ok := errors.AsType[*modeError](err); ok {
		errorType = me.errorType
	}
	st.reject(errorType, n, err)
	st.modeRejected = err
}

// rejectedByEncoder reports whether the encoder refused the record just given to it (it then
// wrote nothing after start), and counts the rejection.
func (st *pushState) rejectedByEncoder(start int) bool {
	reason := st.enc.Rejection()
	if reason == "" {
		return false
	}
	st.batch.Buf = st.batch.Buf[:start]
	var err error // only the first error of a type is logged: made once per push
	if _, ok := st.firstRejection[reason]; !ok {
		err = fmt.Errorf("mapping mode %s cannot write the record: %s", st.mode, reason)
	}
	st.reject(reason, 1, err)
	return true
}
