// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// ts0 is the timestamp of the data points of the tests.
const ts0 = pcommon.Timestamp(1_700_000_000_000_000_000)

// encodeMetricsState walks md as a push of the default settings does, dead letters off,
// without sending, and returns the state.
func encodeMetricsState(t *testing.T, md pmetric.Metrics) *pushState {
	t.Helper()
	st := connectedState(t, signal.Metrics, false)
	st.metricsByMode(md, func(mode serializer.Mode, md pmetric.Metrics) {
		st.setMode(mode)
		st.encodeMetrics(md)
	})
	return st
}

// docsByIndex counts the documents of the batch by index.
func docsByIndex(st *pushState) map[string]int {
	byIndex := map[string]int{}
	for i := range st.batch.Len() {
		byIndex[st.batch.Item(i).Index]++
	}
	return byIndex
}

// gaugePoint appends a data point of value 1 at ts to the gauge metric.
func gaugePoint(metric pmetric.Metric, ts pcommon.Timestamp) pmetric.NumberDataPoint {
	dp := metric.Gauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(ts)
	dp.SetIntValue(1)
	return dp
}

// The data points of a scope without routing attributes that share a timestamp take one route,
// and land where routing each would send them; a point with a routing attribute, another
// timestamp or another scope is routed on its own.
func TestMetricsRouteOncePerScopeAndTime(t *testing.T) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", "res")
	sm := rm.ScopeMetrics().AppendEmpty()
	for _, name := range []string{"a", "b"} {
		m := sm.Metrics().AppendEmpty()
		m.SetName(name)
		m.SetEmptyGauge()
		for i := range 3 {
			gaugePoint(m, ts0).Attributes().PutInt("cpu", int64(i))
		}
	}
	late := sm.Metrics().AppendEmpty()
	late.SetName("c")
	late.SetEmptyGauge()
	gaugePoint(late, ts0).Attributes().PutStr("data_stream.dataset", "own")
	gaugePoint(late, ts0+1)
	sm2 := rm.ScopeMetrics().AppendEmpty()
	sm2.Scope().Attributes().PutStr("data_stream.dataset", "scope")
	other := sm2.Metrics().AppendEmpty()
	other.SetName("d")
	other.SetEmptyGauge()
	gaugePoint(other, ts0)

	st := encodeMetricsState(t, md)
	assert.Empty(t, st.metricsReport.rejected)
	assert.Equal(t, map[string]int{
		"metrics-res.otel-default":   4, // cpu 0, 1, 2 at ts0 (a and b together), and the later point
		"metrics-own.otel-default":   1,
		"metrics-scope.otel-default": 1,
	}, docsByIndex(st))
}

// The route kept covers a data point without routing attributes at the same timestamp only.
func TestMetricRouteCovers(t *testing.T) {
	var r metricRoute
	plain := serializer.MetricPoint{Timestamp: ts0}
	assert.False(t, r.covers(plain), "nothing is kept yet")
	const target serializer.MetricTarget = 3
	r.keep(serializer.MetricPoint{Timestamp: ts0, Routes: true}, 5, nil)
	assert.False(t, r.covers(plain), "the route of a point with a routing attribute is not kept")
	r.keep(plain, target, nil)
	assert.True(t, r.covers(plain))
	assert.Equal(t, target, r.target)
	assert.False(t, r.covers(serializer.MetricPoint{Timestamp: ts0 + 1}), "another timestamp")
	assert.False(t, r.covers(serializer.MetricPoint{Timestamp: ts0, Routes: true}), "a point with a routing attribute")
	errRoute := errors.New("bad")
	r.keep(plain, 0, errRoute)
	assert.True(t, r.covers(plain))
	assert.Same(t, errRoute, r.err, "an error is kept as a route is")
}

// A scope whose routing fails rejects each of its data points, with the error of the first; a
// target refused by the confinement rules is counted apart from an invalid name.
func TestMetricsRouteErrors(t *testing.T) {
	md := pmetric.NewMetrics()
	sm := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
	bad := sm.Metrics().AppendEmpty()
	bad.SetName("a")
	bad.SetEmptyGauge()
	for _, index := range []string{".kibana_1", "BAD", "ok", ".kibana_1"} {
		gaugePoint(bad, ts0).Attributes().PutStr("elasticsearch.index", index)
	}
	st := encodeMetricsState(t, md)
	assert.Equal(t, map[string]int{"ok": 1}, docsByIndex(st))
	require.Len(t, st.metricsReport.rejected, 2)
	notAllowed, invalid := st.metricsReport.rejected[0], st.metricsReport.rejected[1]
	assert.Equal(t, routing.ErrorTypeTargetNotAllowed, notAllowed.reason)
	assert.Equal(t, 2, notAllowed.points)
	assert.Equal(t, "a", notAllowed.metric)
	_, ok := errors.AsType[*routing.TargetNotAllowedError](notAllowed.err)
	assert.True(t, ok, "%v", notAllowed.err)
	assert.Equal(t, routing.ErrorTypeInvalidIndexName, invalid.reason)
	assert.Equal(t, 1, invalid.points)
	_, ok = errors.AsType[*routing.InvalidIndexNameError](invalid.err)
	assert.True(t, ok, "%v", invalid.err)
}

// Data points with the _noindex hint are skipped before routing, and what the encoder refuses
// is counted by reason with the first metric's name.
func TestMetricsSkippedAndRefused(t *testing.T) {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	skipped := ms.AppendEmpty()
	skipped.SetName("skipped")
	skipped.SetEmptyGauge()
	gaugePoint(skipped, ts0).Attributes().PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_noindex")
	empty := ms.AppendEmpty()
	empty.SetName("empty")
	empty.SetEmptyGauge().DataPoints().AppendEmpty().SetTimestamp(ts0) // no value
	ms.AppendEmpty().SetName("typeless")
	kept := ms.AppendEmpty()
	kept.SetName("kept")
	kept.SetEmptyGauge()
	gaugePoint(kept, ts0)

	st := encodeMetricsState(t, md)
	assert.Equal(t, 1, st.report.Count(bulk.UnsentSkipped, errorTypeNoIndex))
	assert.Equal(t, map[string]int{"metrics-generic.otel-default": 1}, docsByIndex(st))
	assert.Equal(t, []metricRejection{
		{reason: serializer.RejectUnsupportedType, points: 1, metric: "typeless"},
		{reason: serializer.RejectNoValue, points: 1, metric: "empty"},
	}, st.metricsReport.rejected)
}
