// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"

import (
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// AppendLogs appends the document of every log record of ld to dst, bound for data stream ds,
// without action lines or separators: the serializer's work alone, as the pipeline has it done
// for each record (internal/pipeline/logs.go).
func AppendLogs(e *serializer.Encoder, dst []byte, ld plog.Logs, ds serializer.DataStream) []byte {
	for _, rl := range ld.ResourceLogs().All() {
		e.SetResource(rl.Resource(), rl.SchemaUrl())
		for _, sl := range rl.ScopeLogs().All() {
			e.SetScope(sl.Scope(), sl.SchemaUrl())
			for _, r := range sl.LogRecords().All() {
				dst = e.AppendLog(dst, r, ds)
			}
		}
	}
	return dst
}

// AppendSpans appends the document of every span of td to dst, bound for data stream ds, as
// AppendLogs does for log records; span events are not written.
func AppendSpans(e *serializer.Encoder, dst []byte, td ptrace.Traces, ds serializer.DataStream) []byte {
	for _, rs := range td.ResourceSpans().All() {
		e.SetResource(rs.Resource(), rs.SchemaUrl())
		for _, ss := range rs.ScopeSpans().All() {
			e.SetScope(ss.Scope(), ss.SchemaUrl())
			for _, s := range ss.Spans().All() {
				dst = e.AppendSpan(dst, s, ds)
			}
		}
	}
	return dst
}

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
