// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
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

// recordMetricsReport adds to the push's report, and logs once per push, the data points and
// values that the push could not write.
func (st *pushState) recordMetricsReport(r *metricsReport) {
	p := st.p
	for _, rj := range r.rejected {
		st.report.Unsent(bulk.UnsentRejected, rj.reason, rj.points)
		if suppressed, ok := p.invalidRouteLog.Allow(); ok {
			fields := []zap.Field{
				zap.Int("data_points", rj.points), zap.String("reason", rj.reason),
				zap.String("metric", rj.metric), zap.Int("suppressed_log_lines", suppressed),
			}
			if rj.err != nil {
				fields = append(fields, zap.Error(rj.err))
			}
			p.logger.Warn("Metric data points rejected", fields...)
		}
	}
	if r.nonFinite > 0 {
		st.report.Unsent(bulk.UnsentSkipped, "non_finite_value", r.nonFinite)
		p.logger.Warn("Metric values that are NaN or infinite were not written: Elasticsearch cannot store them",
			zap.Int("values", r.nonFinite), zap.String("metric", r.nonFiniteName))
	}
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
