// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"

import (
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// AppendMetrics appends the documents of md to dst as the exporter's pipeline has the
// serializer write them (internal/pipeline/metrics.go), every data point bound for index, a
// data stream ds unless ds is zero, and calls doc, unless nil, with the start of each document
// in dst and its dynamic templates (valid during the call). It returns dst and the number of
// data points skipped for their _noindex hint or rejected, and of values skipped.
func AppendMetrics(e *serializer.Encoder, dst []byte, md pmetric.Metrics, index string, ds serializer.DataStream,
	doc func(start int, templates []serializer.DynamicTemplate),
) ([]byte, int) {
	unwritten := 0
	e.BeginMetrics()
	target := e.MetricTarget(index, ds)
	for _, rm := range md.ResourceMetrics().All() {
		e.AddMetricsResource(rm)
		for _, sm := range rm.ScopeMetrics().All() {
			e.AddMetricsScope(sm)
			for _, m := range sm.Metrics().All() {
				n, rj := e.AddMetric(m)
				unwritten += rj.Records
				for i := range n {
					if e.MetricPoint(i).NoIndex {
						unwritten++
						continue
					}
					e.AddMetricPoint(target)
				}
			}
		}
	}
	e.GroupMetrics()
	for {
		start := len(dst)
		var d *serializer.MetricsDocument
		var more bool
		dst, d, more = e.AppendMetricsDocument(dst)
		if !more {
			return dst, unwritten
		}
		unwritten += len(d.Rejected) + d.NonFinite
		if d.Written && doc != nil {
			doc(start, d.Templates)
		}
	}
}
