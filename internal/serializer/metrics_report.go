// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

// Reasons a data point is not written, as a Rejection reports them: of every data point of a
// metric (AddMetric), or of one data point of a document (MetricsDocument.Rejected).
const (
	RejectNoValue         = "no_value"
	RejectBucketMismatch  = "histogram_bucket_mismatch"
	RejectScaleOutOfRange = "scale_out_of_range"
	RejectUnsupportedType = "unsupported_metric_type"
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
)

// MetricsDocument is what AppendMetricsDocument did with one document of grouped data points:
// its target and dynamic templates when it wrote it, the data points it refused and the
// values it skipped. It is valid until the next call.
type MetricsDocument struct {
	Index      string
	DataStream DataStream
	// Refused tells that the document's data points were added with a RefusedMetricTarget.
	Refused bool
	// Templates are the dynamic templates of the document's metrics.
	Templates []DynamicTemplate
	// Written tells that the document was appended; it is not when every value of its data
	// points was refused or skipped.
	Written bool
	// Rejected holds one Rejection per data point of the document that was not written, with
	// the name of its metric.
	Rejected []Rejection
	// NonFinite counts the NaN and ±Inf values skipped, with the name of the first such metric:
	// gauge and sum values, summary quantiles, and the whole value of a histogram or summary
	// that a NaN or infinite sum (the {sum, value_count} form, or a histogram without buckets)
	// or explicit bounds without a finite one leave without a value Elasticsearch can store.
	NonFinite     int
	NonFiniteName string
}

// DynamicTemplate is the dynamic template of one field of a metrics document: the field's path
// and the name of the template Elasticsearch maps it with. The pipeline hands each to the bulk
// item of its document (bulk.Batch.AddTemplate), whose action line names it.
type DynamicTemplate struct {
	Path, Template string
}

// rejectPoint records a data point of the metric name that the document does not hold.
func (s *metricsState) rejectPoint(reason, name string) {
	s.doc.Rejected = append(s.doc.Rejected, Rejection{Reason: reason, Records: 1, Name: name})
}

// nonFinite records a NaN or infinite value of the metric name that was skipped.
func (s *metricsState) nonFinite(name string) {
	if s.doc.NonFinite == 0 {
		s.doc.NonFiniteName = name
	}
	s.doc.NonFinite++
}
