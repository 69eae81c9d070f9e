// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"errors"
	"slices"
)

// Reasons a data point is not written, reported in MetricsReport.
const (
	RejectNoValue          = "no_value"
	RejectBucketMismatch   = "histogram_bucket_mismatch"
	RejectScaleOutOfRange  = "scale_out_of_range"
	RejectUnsupportedType  = "unsupported_metric_type"
	RejectInvalidIndexName = "invalid_index_name"
	// RejectFieldTaken: in ecs mode, a metric whose name is a field the document already
	// holds (@timestamp, data_stream.*, _doc_count) or lies below an ECS field.
	RejectFieldTaken = "ecs_field_taken"
	// RejectBoundsNotIncreasing: a histogram whose explicit bounds are not strictly increasing
	// (a NaN bound included).
	RejectBoundsNotIncreasing = "histogram_bounds_not_increasing"
	// RejectInvalidMetricName: a metric name that Elasticsearch refuses as a field name where
	// the mode writes it: in the otel mode's metrics object an empty or whitespace-only name;
	// at the ecs mode's document root also a leading or trailing dot, consecutive dots and a
	// whitespace-only part.
	RejectInvalidMetricName = "invalid_metric_name"
	// RejectTargetNotAllowed: a data point whose route the MetricRouteFunc refused with a
	// [*TargetNotAllowedError]: its attributes chose a target the configuration does not allow.
	RejectTargetNotAllowed = "target_not_allowed"
	numRejectReasons       = 9
)

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken, RejectBoundsNotIncreasing, RejectInvalidMetricName, RejectTargetNotAllowed,
}

// TargetNotAllowedError marks an error of a MetricRouteFunc that refuses the target a data
// point's attributes chose because the configuration does not allow it, not because the name is
// invalid: the data point is rejected with RejectTargetNotAllowed instead of
// RejectInvalidIndexName.
type TargetNotAllowedError struct{ Err error }

func (e *TargetNotAllowedError) Error() string { return e.Err.Error() }
func (e *TargetNotAllowedError) Unwrap() error { return e.Err }

// MetricsReport tells what EncodeMetrics could not write.
type MetricsReport struct {
	// rejected counts data points not written, by reason (see Reject*), with the name of the
	// first metric rejected for each reason; Rejections reports them.
	rejected      [numRejectReasons]int
	rejectedNames [numRejectReasons]string
	// NonFinite counts NaN and ±Inf values skipped, with the name of the first such metric:
	// gauge and sum values, summary quantiles, and the whole value of a histogram or summary
	// that a NaN or infinite sum (the {sum, value_count} form, or a histogram without buckets)
	// or explicit bounds without a finite one leave without a value Elasticsearch can store.
	NonFinite     int
	NonFiniteName string
	// NoIndex counts data points skipped for their _noindex hint.
	NoIndex int
	// FirstError is the first routing error of the data points rejected with
	// RejectInvalidIndexName, FirstNotAllowed that of RejectTargetNotAllowed.
	FirstError, FirstNotAllowed error
}

// Rejections yields, in the order of the Reject* reasons, a Rejection for each reason some
// data points were rejected for: their count and the name of the first metric.
func (r *MetricsReport) Rejections(yield func(Rejection) bool) {
	for i, n := range r.rejected {
		if n == 0 {
			continue
		}
		if !yield(Rejection{Reason: rejectReasons[i], Records: n, Name: r.rejectedNames[i]}) {
			return
		}
	}
}

func (r *MetricsReport) reject(reason int, name string) { r.rejectN(reason, name, 1) }

// rejectN counts n data points rejected for reason.
func (r *MetricsReport) rejectN(reason int, name string, n int) {
	if n == 0 {
		return
	}
	if r.rejected[reason] == 0 {
		r.rejectedNames[reason] = name
	}
	r.rejected[reason] += n
}

func rejectIndex(reason string) int {
	return slices.Index(rejectReasons[:], reason)
}

func (r *MetricsReport) nonFinite(name string) {
	if r.NonFinite == 0 {
		r.NonFiniteName = name
	}
	r.NonFinite++
}

// rejectRoute counts a data point of the metric name whose route failed with err.
func (r *MetricsReport) rejectRoute(err error, name string) {
	if _, ok := errors.AsType[*TargetNotAllowedError](err); ok {
		r.reject(rejectIndex(RejectTargetNotAllowed), name)
		if r.FirstNotAllowed == nil {
			r.FirstNotAllowed = err
		}
		return
	}
	r.reject(rejectIndex(RejectInvalidIndexName), name)
	if r.FirstError == nil {
		r.FirstError = err
	}
}
