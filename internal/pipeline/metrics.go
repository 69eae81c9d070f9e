// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// walkMetrics encodes and routes the data points of md, grouped into documents by the
// encoder, once per mapping mode that its scopes use.
func walkMetrics(_ context.Context, st *pushState, md pmetric.Metrics) {
	st.metricsByMode(md, func(mode serializer.Mode, md pmetric.Metrics) {
		st.setMode(mode)
		report := st.enc.EncodeMetrics(&st.batch.Buf, md, st.routeMetric, st)
		st.recordMetricsReport(&report)
	})
}

// AddMetricsDocument is the push's serializer.MetricsSink: it adds a metric document, with its
// dynamic templates, to the batch, or, for data points whose target is not allowed, hands it
// to the batch as refused (see routeMetric).
func (st *pushState) AddMetricsDocument(start int, index string, ds serializer.DataStream, templates []serializer.DynamicTemplate) {
	if st.refusedMetric(start, index) {
		return // its templates are not sent
	}
	for _, t := range templates {
		st.batch.AddTemplate(t.Path, t.Template)
	}
	st.add(start, bulk.Item{Index: index, RequireDataStream: ds.Type != ""})
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
