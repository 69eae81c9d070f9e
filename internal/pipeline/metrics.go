// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"errors"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// walkMetrics encodes and routes the data points of md, once per mapping mode that its scopes
// use, and counts what could not be written.
func walkMetrics(_ context.Context, st *pushState, md pmetric.Metrics) {
	st.metricsByMode(md, func(mode serializer.Mode, md pmetric.Metrics) {
		st.setMode(mode)
		st.encodeMetrics(md)
	})
	st.recordMetricsReport(&st.metricsReport)
}

// encodeMetrics walks the resources, scopes, metrics and data points of md, all of the
// encoder's mode: it skips a point with the _noindex hint, routes each other point and has the
// encoder add it; the encoder then groups the points (several points in one document, see
// internal/serializer/metrics_grouping.go), and each of its documents is added to the batch.
func (st *pushState) encodeMetrics(md pmetric.Metrics) {
	enc := &st.enc
	enc.BeginMetrics()
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		res := rm.Resource().Attributes()
		enc.AddMetricsResource(rm)
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			scope := sm.Scope()
			enc.AddMetricsScope(sm)
			st.metricRoute = metricRoute{}
			ms := sm.Metrics()
			for k := range ms.Len() {
				metric := ms.At(k)
				n, rj := enc.AddMetric(metric)
				if rj.Reason != "" {
					st.metricsReport.reject(rj.Reason, rj.Records, rj.Name, nil)
					continue
				}
				for pi := range n {
					p := enc.MetricPoint(pi)
					if p.NoIndex {
						st.report.Unsent(bulk.UnsentSkipped, errorTypeNoIndex, 1)
						continue
					}
					st.addPoint(p, scope, res, metric.Name())
				}
			}
		}
	}
	enc.GroupMetrics()
	for {
		start := len(st.batch.Buf)
		var doc *serializer.MetricsDocument
		var more bool
		st.batch.Buf, doc, more = enc.AppendMetricsDocument(st.batch.Buf)
		if !more {
			return
		}
		st.metricsReport.document(doc)
		if !doc.Written || st.refusedMetric(start, doc) {
			continue // a refused document's templates are not sent
		}
		for _, t := range doc.Templates {
			st.batch.AddTemplate(t.Path, t.Template)
		}
		st.add(start, bulk.Item{Index: doc.Index, RequireDataStream: doc.DataStream.Type != ""})
	}
}

// addPoint routes data point p of the metric name and has the encoder add it, or counts it
// when it cannot be routed.
func (st *pushState) addPoint(p serializer.MetricPoint, scope pcommon.InstrumentationScope, res pcommon.Map, name string) {
	t, err := st.metricRoute.target, st.metricRoute.err
	if !st.metricRoute.covers(p) {
		t, err = st.routePoint(p, scope, res)
		st.metricRoute.keep(p, t, err)
	}
	if err != nil {
		st.metricsReport.unrouted(err, name)
		return
	}
	st.enc.AddMetricPoint(t)
}

// routePoint routes data point p and returns the encoder's target for it. With dead letters on,
// a target that is not allowed is the encoder's refused target of that name
// (RefusedMetricTarget), whose documents are handed to the batch as refused.
func (st *pushState) routePoint(p serializer.MetricPoint, scope pcommon.InstrumentationScope, res pcommon.Map) (serializer.MetricTarget, error) {
	t, err := st.metrics.Route(signal.Metrics, p.Attrs, scope.Attributes(), res, scope.Name(), p.Timestamp)
	if err == nil {
		return st.enc.MetricTarget(t.Index, dataStream(t)), nil
	}
	if refused, ok := errors.AsType[*routing.TargetNotAllowedError](err); ok && st.p.indexer.DeadLetters() {
		st.refuseMetric(refused)
		return st.enc.RefusedMetricTarget(refused.Name), nil
	}
	return 0, err
}

// metricRoute is the route of the last data point of the scope being walked that has no
// routing attribute (serializer.MetricPoint's Routes): the points of the scope with none that
// share its timestamp take it without routing, so that the points of a metric, and of its
// scope's other metrics scraped at the same time, are routed once, and are added with the
// encoder's target kept. Routing reads of a data point's attributes only the routing
// attributes, so the route is the same.
type metricRoute struct {
	valid  bool
	ts     pcommon.Timestamp
	target serializer.MetricTarget
	err    error
}

// covers reports whether p takes the route kept.
func (r *metricRoute) covers(p serializer.MetricPoint) bool {
	return !p.Routes && r.valid && r.ts == p.Timestamp
}

// keep keeps the route of p for the points that may take it.
func (r *metricRoute) keep(p serializer.MetricPoint, t serializer.MetricTarget, err error) {
	if !p.Routes {
		*r = metricRoute{valid: true, ts: p.Timestamp, target: t, err: err}
	}
}

// metricsReport is what a push could not write of its data points: the points rejected, by
// reason (error.type), with the name of the first metric and the first error of each, and the
// NaN and infinite values skipped. accounting.go counts and logs it.
type metricsReport struct {
	rejected      []metricRejection // in order of the first rejection of each reason
	nonFinite     int
	nonFiniteName string
}

type metricRejection struct {
	reason string
	points int
	metric string
	err    error // the routing error of the first, for the routing reasons
}

// reject counts n data points of metric rejected for reason.
func (r *metricsReport) reject(reason string, n int, metric string, err error) {
	for i := range r.rejected {
		if rj := &r.rejected[i]; rj.reason == reason {
			rj.points += n
			return
		}
	}
	r.rejected = append(r.rejected, metricRejection{reason: reason, points: n, metric: metric, err: err})
}

// unrouted counts a data point of metric that could not be routed: its target is not allowed
// (routing.ErrorTypeTargetNotAllowed), or not a valid name.
func (r *metricsReport) unrouted(err error, metric string) {
	if _, ok := errors.AsType[*routing.TargetNotAllowedError](err); ok {
		r.reject(routing.ErrorTypeTargetNotAllowed, 1, metric, err)
		return
	}
	r.reject(routing.ErrorTypeInvalidIndexName, 1, metric, err)
}

// document counts the data points and values that a document of the encoder left out.
func (r *metricsReport) document(d *serializer.MetricsDocument) {
	for _, rj := range d.Rejected {
		r.reject(rj.Reason, rj.Records, rj.Name, nil)
	}
	if d.NonFinite > 0 {
		if r.nonFinite == 0 {
			r.nonFiniteName = d.NonFiniteName
		}
		r.nonFinite += d.NonFinite
	}
}

func (r *metricsReport) reset() {
	clear(r.rejected)
	r.rejected = r.rejected[:0]
	r.nonFinite, r.nonFiniteName = 0, ""
}

// metricsByMode calls encode once per mapping mode that the scopes of md resolve to, with the
// scopes of that mode, and counts the data points of the scopes whose mode cannot be used as
// rejected. When every scope resolves to one usable mode, as in every request that does not
// mix modes, md itself is encoded; otherwise the scopes of each mode are copied.
func (st *pushState) metricsByMode(md pmetric.Metrics, encode func(serializer.Mode, pmetric.Metrics)) {
	rms := md.ResourceMetrics()
	first, mixed := serializer.Mode(0), false
	seen := false
	for i := range rms.Len() {
		sms := rms.At(i).ScopeMetrics()
		for j := range sms.Len() {
			mode, err := st.modes.scope(sms.At(j).Scope().Attributes())
			switch {
			case err != nil:
				mixed = true
			case !seen:
				first, seen = mode, true
			case mode != first:
				mixed = true
			}
		}
	}
	if !mixed {
		if seen {
			encode(first, md)
		}
		return
	}
	var parts [serializer.NumModes]pmetric.Metrics
	for i := range rms.Len() {
		rm := rms.At(i)
		var dst [serializer.NumModes]pmetric.ResourceMetrics
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			mode, err := st.modes.scope(sm.Scope().Attributes())
			if err != nil {
				st.rejectMode(err, dataPoints(sm))
				continue
			}
			if parts[mode] == (pmetric.Metrics{}) {
				parts[mode] = pmetric.NewMetrics()
			}
			if dst[mode] == (pmetric.ResourceMetrics{}) {
				dst[mode] = newResourceMetrics(parts[mode], rm)
			}
			sm.CopyTo(dst[mode].ScopeMetrics().AppendEmpty())
		}
	}
	for mode, part := range parts {
		if part != (pmetric.Metrics{}) {
			encode(serializer.Mode(mode), part)
		}
	}
}

// newResourceMetrics appends to md a ResourceMetrics with rm's resource and no scopes.
func newResourceMetrics(md pmetric.Metrics, rm pmetric.ResourceMetrics) pmetric.ResourceMetrics {
	dst := md.ResourceMetrics().AppendEmpty()
	rm.Resource().CopyTo(dst.Resource())
	dst.SetSchemaUrl(rm.SchemaUrl())
	return dst
}

// dataPoints returns the number of data points of a scope.
func dataPoints(sm pmetric.ScopeMetrics) int {
	n := 0
	ms := sm.Metrics()
	for i := range ms.Len() {
		switch m := ms.At(i); m.Type() {
		case pmetric.MetricTypeGauge:
			n += m.Gauge().DataPoints().Len()
		case pmetric.MetricTypeSum:
			n += m.Sum().DataPoints().Len()
		case pmetric.MetricTypeHistogram:
			n += m.Histogram().DataPoints().Len()
		case pmetric.MetricTypeExponentialHistogram:
			n += m.ExponentialHistogram().DataPoints().Len()
		case pmetric.MetricTypeSummary:
			n += m.Summary().DataPoints().Len()
		}
	}
	return n
}
