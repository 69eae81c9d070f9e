// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The metric tests drive the encoder as the pipeline does (internal/pipeline/metrics.go): walk
// the resources, scopes, metrics and data points, skip a point with the _noindex hint, route
// each point (the tests' own routing functions stand in for internal/routing; a point without
// routing attributes takes the route of the scope's last such point at its timestamp), add it,
// then append every document, and count what was not written in a MetricsReport.

// MetricRouteFunc resolves the index of a data point from its attributes, its scope's and its
// resource's. ds is the zero DataStream for a plain index.
type MetricRouteFunc func(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (index string, ds DataStream, err error)

// MetricsSink receives each metric document after it is appended to the buffer.
type MetricsSink interface {
	// AddMetricsDocument records the document written at the end of the buffer from start on.
	// templates is only valid during the call.
	AddMetricsDocument(start int, index string, ds DataStream, templates []DynamicTemplate)
}

// RejectInvalidIndexName is the reason of the data points that the routing functions of the
// tests refuse (internal/routing's error.type).
const RejectInvalidIndexName = "invalid_index_name"

const numRejectReasons = 8

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken, RejectBoundsNotIncreasing, RejectInvalidMetricName,
}

func rejectIndex(reason string) int { return slices.Index(rejectReasons[:], reason) }

// MetricsReport is what encodeMetricsPush could not write of a push.
type MetricsReport struct {
	// rejected counts data points not written, by reason, with the name of the first metric
	// rejected for each reason.
	rejected      [numRejectReasons]int
	rejectedNames [numRejectReasons]string
	NonFinite     int
	NonFiniteName string
	NoIndex       int
	// FirstError is the first routing error of the data points rejected with
	// RejectInvalidIndexName.
	FirstError error
}

func (r *MetricsReport) reject(reason int, name string) { r.rejectN(reason, name, 1) }

func (r *MetricsReport) rejectN(reason int, name string, n int) {
	if n == 0 {
		return
	}
	if r.rejected[reason] == 0 {
		r.rejectedNames[reason] = name
	}
	r.rejected[reason] += n
}

func (r *MetricsReport) rejectRoute(err error, name string) {
	r.reject(rejectIndex(RejectInvalidIndexName), name)
	if r.FirstError == nil {
		r.FirstError = err
	}
}

// document counts what AppendMetricsDocument reported of one document.
func (r *MetricsReport) document(d *MetricsDocument) {
	for _, rj := range d.Rejected {
		r.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
	}
	if d.NonFinite > 0 {
		if r.NonFinite == 0 {
			r.NonFiniteName = d.NonFiniteName
		}
		r.NonFinite += d.NonFinite
	}
}

// routeMemo is the route of the last data point of a scope without routing attributes, which
// the points of the scope without any at its timestamp take, as the pipeline's metricRoute.
type routeMemo struct {
	valid bool
	ts    pcommon.Timestamp
	index string
	ds    DataStream
	err   error
}

// encodeMetricsPush writes the documents of md to *buf as the pipeline does, calling sink for
// each, and reports the data points it could not write.
func encodeMetricsPush(e *Encoder, buf *[]byte, md pmetric.Metrics, route MetricRouteFunc, sink MetricsSink) MetricsReport {
	var rep MetricsReport
	e.BeginMetrics()
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		e.AddMetricsResource(rm)
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			e.AddMetricsScope(sm)
			scope := sm.Scope()
			var memo routeMemo
			ms := sm.Metrics()
			for k := range ms.Len() {
				n, rj := e.AddMetric(ms.At(k))
				if rj.Reason != "" {
					rep.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
					continue
				}
				for pi := range n {
					p := e.MetricPoint(pi)
					if p.NoIndex {
						rep.NoIndex++
						continue
					}
					index, ds, err := memo.index, memo.ds, memo.err
					if p.Routes || !memo.valid || memo.ts != p.Timestamp {
						index, ds, err = route(p.Attrs, scope.Attributes(), rm.Resource().Attributes(), scope.Name(), p.Timestamp)
						if !p.Routes {
							memo = routeMemo{valid: true, ts: p.Timestamp, index: index, ds: ds, err: err}
						}
					}
					if err != nil {
						rep.rejectRoute(err, ms.At(k).Name())
						continue
					}
					e.AddMetricPoint(index, ds)
				}
			}
		}
	}
	e.GroupMetrics()
	for {
		start := len(*buf)
		var d *MetricsDocument
		var more bool
		*buf, d, more = e.AppendMetricsDocument(*buf)
		if !more {
			return rep
		}
		rep.document(d)
		if d.Written {
			sink.AddMetricsDocument(start, d.Index, d.DataStream, d.Templates)
		}
	}
}
