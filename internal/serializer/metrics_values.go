// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// writeMetricValue writes the value of one data point and returns its dynamic template, or
// "" when the value is refused or skipped, as the document's MetricsDocument records (the
// caller then removes what was written), and the point's document count with whether it
// carries the _doc_count hint.
func (e *Encoder) writeMetricValue(p *metricPoint, info *metricInfo) (tpl string, count uint64, hinted bool) {
	m := &e.metrics
	i := int(p.idx)
	name := info.name
	switch info.typ {
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
		counter := info.counter
		hinted = p.hints&hasDocCount != 0
		switch p.numType {
		case pmetric.NumberDataPointValueTypeInt:
			e.w.int(int64(p.num))
			if counter {
				return "counter_long", 1, hinted
			}
			return "gauge_long", 1, hinted
		case pmetric.NumberDataPointValueTypeDouble:
			v := math.Float64frombits(p.num)
			if !finite(v) {
				m.nonFinite(name)
				return "", 0, false
			}
			e.w.float(v)
			if counter {
				return "counter_double", 1, hinted
			}
			return "gauge_double", 1, hinted
		}
		m.rejectPoint(RejectNoValue, name)
		return "", 0, false
	case pmetric.MetricTypeHistogram:
		dp := info.metric.Histogram().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		bounds, counts := dp.ExplicitBounds(), dp.BucketCounts()
		if counts.Len() > 0 && counts.Len() != bounds.Len()+1 {
			m.rejectPoint(RejectBucketMismatch, name)
			return "", 0, false
		}
		if p.hints&hasAggregateMetricDouble != 0 {
			if !increasingBounds(bounds) {
				m.rejectPoint(RejectBoundsNotIncreasing, name)
				return "", 0, false
			}
			if !e.writeSumCount(dp.Sum(), dp.Count()) {
				m.nonFinite(name)
				return "", 0, false
			}
			return "summary", dp.Count(), hinted
		}
		switch e.writeHistogram(dp, p.hints&hasHistogramRaw != 0) {
		case histogramBadBounds:
			m.rejectPoint(RejectBoundsNotIncreasing, name)
			return "", 0, false
		case histogramNonFinite:
			m.nonFinite(name)
			return "", 0, false
		}
		return "histogram", dp.Count(), hinted
	case pmetric.MetricTypeExponentialHistogram:
		dp := info.metric.ExponentialHistogram().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		if s := dp.Scale(); s < -10 || s > 20 {
			m.rejectPoint(RejectScaleOutOfRange, name)
			return "", 0, false
		}
		if p.hints&hasAggregateMetricDouble != 0 {
			if !e.writeSumCount(dp.Sum(), dp.Count()) {
				m.nonFinite(name)
				return "", 0, false
			}
			return "summary", dp.Count(), hinted
		}
		e.writeExponentialHistogram(dp, p.hints&hasHistogramRaw != 0)
		return "histogram", dp.Count(), hinted
	case pmetric.MetricTypeSummary:
		dp := info.metric.Summary().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		if !e.writeSumCount(dp.Sum(), dp.Count()) {
			m.nonFinite(name)
			return "", 0, false
		}
		return "summary", dp.Count(), hinted
	}
	return "", 0, false
}

// writeSumCount writes {"sum": x, "value_count": n}, the aggregate_metric_double form, and
// reports whether it could: a NaN or infinite sum leaves the form without a value Elasticsearch
// can store (with ignore_malformed it would drop the whole field), and writes nothing.
func (e *Encoder) writeSumCount(sum float64, count uint64) bool {
	if !finite(sum) {
		return false
	}
	e.w.raw(`{"sum":`)
	e.w.float(sum)
	e.w.raw(`,"value_count":`)
	e.w.uint(capCount(count))
	e.w.byte('}')
	return true
}

// capCount keeps counts within the long Elasticsearch stores.
func capCount(c uint64) uint64 {
	return min(c, math.MaxInt64)
}

// capDocCount keeps a _doc_count within the integer Elasticsearch's _doc_count field takes.
func capDocCount(c uint64) uint64 {
	return min(c, math.MaxInt32)
}
