// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Every record a push does not send is collected in the push's report (pushState.report) with
// its fate (rejected, skipped, or retryable for a push that gave up waiting for room in flight)
// and its error.type, and so is each document that encoding repaired, with its reason; the push
// hands the report to the bulk indexer once (bulk.Indexer.RecordPreSend), which writes every
// docs.* counter: docs.fate and docs.processed (with the attribute rules of the documents that
// are sent) and docs.repaired. Rejections are logged here, once per push and error type,
// rate-limited. Records are rejected when they cannot be routed, when their mapping mode cannot
// be used, or when the encoder refuses them; they are skipped for their _noindex hint, and
// metric values for being NaN or infinite. What happens to the documents that are sent is
// counted by the bulk package.

// errorTypeNoIndex is the error.type of the records skipped for their _noindex hint.
const errorTypeNoIndex = "_noindex"

// recordPreSend logs the rejections of one push, once per push and error type, and hands its
// report to the bulk indexer.
func (p *Pipeline) recordPreSend(ctx context.Context, st *pushState) {
	for errorType, err := range st.firstRejection {
		if suppressed, ok := p.invalidRouteLog.Allow(); ok {
			p.logger.Warn("Records rejected before sending", zap.String("error.type", errorType),
				zap.Int("records", st.report.Count(bulk.UnsentRejected, errorType)), zap.Error(err),
				zap.Int("suppressed_log_lines", suppressed))
		}
	}
	p.indexer.RecordPreSend(ctx, &st.report)
}

// recordMetricsReport adds to the push's report, and logs once per encoding, the data points
// and values that the encoder could not write.
func (st *pushState) recordMetricsReport(r *serializer.MetricsReport) {
	p := st.p
	for rj := range r.Rejections {
		st.report.Unsent(bulk.UnsentRejected, rj.Reason, rj.Records)
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
		st.report.Unsent(bulk.UnsentSkipped, "non_finite_value", r.NonFinite)
		p.logger.Warn("Metric values that are NaN or infinite were not written: Elasticsearch cannot store them",
			zap.Int("values", r.NonFinite), zap.String("metric", r.NonFiniteName))
	}
	st.report.Unsent(bulk.UnsentSkipped, errorTypeNoIndex, r.NoIndex)
}

// reject counts n records rejected before sending, keeping the first error of each type for
// the log.
func (st *pushState) reject(errorType string, n int, err error) {
	st.report.Unsent(bulk.UnsentRejected, errorType, n)
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
