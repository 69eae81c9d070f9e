// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Every record a push does not send is counted with its fate (rejected, skipped, or retryable
// for a push that gave up waiting for room in flight) and its error.type, through
// bulk.Indexer.RecordUnsent, the one writer of otelcol.elasticsearch.docs.fate and docs.processed
// (its attribute rules are those of the documents that are sent), and rejections are logged
// once per push and error type, rate-limited. Records are rejected when they cannot be routed,
// when their mapping mode cannot be used, or when the encoder refuses them; they are skipped for
// their _noindex hint, and metric values for being NaN or infinite. What happens to the
// documents that are sent is counted by the bulk package.

// recordEncoding counts what encoding repaired, rejected and skipped in one push, and logs the
// rejections, once per push and error type.
func (p *Pipeline) recordEncoding(ctx context.Context, st *pushState) {
	for r, n := range st.repairs {
		attrs := metadatakeys.Attributes(ctx, p.metadataKeys, nil)
		attrs = append(attrs, attribute.String("reason", string(r)))
		p.telemetry.ElasticsearchDocsRepaired.Add(ctx, int64(n), metric.WithAttributes(attrs...))
	}
	for errorType, n := range st.rejected {
		p.indexer.RecordUnsent(ctx, bulk.UnsentRejected, errorType, n)
		if suppressed, ok := p.invalidRouteLog.Allow(); ok {
			p.logger.Warn("Records rejected before sending", zap.String("error.type", errorType),
				zap.Int("records", n), zap.Error(st.firstRejection[errorType]), zap.Int("suppressed_log_lines", suppressed))
		}
	}
	if st.noIndex > 0 {
		p.indexer.RecordUnsent(ctx, bulk.UnsentSkipped, "_noindex", st.noIndex)
	}
}

// recordMetricsReport counts and logs, once per push, the data points and values that the
// encoder could not write.
func (p *Pipeline) recordMetricsReport(ctx context.Context, r *serializer.MetricsReport) {
	for rj := range r.Rejections {
		p.indexer.RecordUnsent(ctx, bulk.UnsentRejected, rj.Reason, rj.Records)
		if suppressed, ok := p.invalidRouteLog.Allow(); ok {
			fields := []zap.Field{
				zap.Int("data_points", rj.Records), zap.String("reason", rj.Reason),
				zap.String("metric", rj.Name), zap.Int("suppressed_log_lines", suppressed),
			}
			switch rj.Reason {
			case serializer.RejectInvalidIndexName:
				fields = append(fields, zap.Error(r.FirstError))
			case serializer.RejectTargetNotAllowed:
				fields = append(fields, zap.Error(r.FirstNotAllowed))
			}
			p.logger.Warn("Metric data points rejected", fields...)
		}
	}
	if r.NonFinite > 0 {
		p.indexer.RecordUnsent(ctx, bulk.UnsentSkipped, "non_finite_value", r.NonFinite)
		p.logger.Warn("Metric values that are NaN or infinite were not written: Elasticsearch cannot store them",
			zap.Int("values", r.NonFinite), zap.String("metric", r.NonFiniteName))
	}
	if r.NoIndex > 0 {
		p.indexer.RecordUnsent(ctx, bulk.UnsentSkipped, "_noindex", r.NoIndex)
	}
}

// reject counts n records rejected before sending, keeping the first error of each type for
// the log.
func (st *pushState) reject(errorType string, n int, err error) {
	st.rejected[errorType] += n
	if _, ok := st.firstRejection[errorType]; !ok {
		st.firstRejection[errorType] = err
	}
}

// rejectMode counts n records rejected because their mapping mode cannot be used; the push
// then returns a permanent error.
func (st *pushState) rejectMode(err error, n int) {
	errorType := ErrorTypeUnsupportedMode
	if me, ok := errors.AsType[*modeError](err); ok {
		errorType = me.errorType
	}
	st.reject(errorType, n, err)
	st.modeRejected = err
}
