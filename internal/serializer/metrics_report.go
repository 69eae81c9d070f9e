// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import "slices"

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
	numRejectReasons = 6
)

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken,
}

// MetricsReport tells what EncodeMetrics could not write.
type MetricsReport struct {
	// Rejected counts data points not written, by reason (see Reject*), with the name of the
	// first metric rejected for each reason.
	Rejected      [numRejectReasons]int
	RejectedNames [numRejectReasons]string
	// NonFinite counts NaN and ±Inf values skipped (numbers, and summary quantiles), with the
	// name of the first such metric.
	NonFinite     int
	NonFiniteName string
	// NoIndex counts data points skipped for their _noindex hint.
	NoIndex int
	// FirstError is the first routing error.
	FirstError error
}

// RejectReason returns the name of reason i, for i < len(Rejected).
func RejectReason(i int) string { return rejectReasons[i] }

func (r *MetricsReport) reject(reason int, name string) {
	if r.Rejected[reason] == 0 {
		r.RejectedNames[reason] = name
	}
	r.Rejected[reason]++
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
