// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// TestSummaryQuantilesInMetrics checks the otel form of summary quantiles: inside metrics as
// <name>_quantiles, one name of the document (and of its _metric_names_hash), never at the
// root, with a gauge_double template per quantile.
func TestSummaryQuantilesInMetrics(t *testing.T) {
	md, ms := newMetrics()
	summary(ms, "rpc.latency", 3, 9, [2]float64{0.5, 1}, [2]float64{0.99, 4})
	docs, rep := encodeMetrics(t, md) // checkMetricShapes: no field at the root but the contract's
	require.Len(t, docs, 1)
	assert.Equal(t, MetricsReport{}, rep)
	d := docs[0]
	assert.JSONEq(t, `{"rpc.latency":{"sum":9.0,"value_count":3},"rpc.latency_quantiles":{"q0_5":1.0,"q0_99":4.0}}`,
		string(d.fields(t)["metrics"]))
	assert.Equal(t, []DynamicTemplate{
		{Path: "metrics.rpc.latency", Template: "summary"},
		{Path: "metrics.rpc.latency_quantiles.q0_5", Template: "gauge_double"},
		{Path: "metrics.rpc.latency_quantiles.q0_99", Template: "gauge_double"},
	}, d.templates)
	assert.JSONEq(t, `"`+strconv.FormatUint(xxhash.Sum64String("rpc.latencyrpc.latency_quantiles"), 16)+`"`,
		string(d.fields(t)["_metric_names_hash"]))
}

// TestSummaryQuantilesNameRepeats checks that <name>_quantiles is a name like any other: a real
// metric of that name in the same group is a repeated name, the later point going to the next
// document, whichever comes first. Quantiles that are all NaN claim no name.
func TestSummaryQuantilesNameRepeats(t *testing.T) {
	tests := []struct {
		name string
		add  func(ms pmetric.MetricSlice)
		want []string // the metrics object of each document
	}{
		{
			name: "real metric first",
			add: func(ms pmetric.MetricSlice) {
				gaugeInt(ms, "m_quantiles", 7)
				summary(ms, "m", 1, 2, [2]float64{0.5, 3})
			},
			want: []string{
				`{"m_quantiles":7}`,
				`{"m":{"sum":2.0,"value_count":1},"m_quantiles":{"q0_5":3.0}}`,
			},
		},
		{
			name: "summary first",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, "m", 1, 2, [2]float64{0.5, 3})
				gaugeInt(ms, "m_quantiles", 7)
				gaugeInt(ms, "other", 8)
			},
			want: []string{
				`{"m":{"sum":2.0,"value_count":1},"m_quantiles":{"q0_5":3.0},"other":8}`,
				`{"m_quantiles":7}`,
			},
		},
		{
			name: "two summaries of one name",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, "m", 1, 2, [2]float64{0.5, 3})
				summary(ms, "m", 4, 5, [2]float64{0.5, 6})
			},
			want: []string{
				`{"m":{"sum":2.0,"value_count":1},"m_quantiles":{"q0_5":3.0}}`,
				`{"m":{"sum":5.0,"value_count":4},"m_quantiles":{"q0_5":6.0}}`,
			},
		},
		{
			name: "quantiles all NaN claim no name",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, "m", 1, 2, [2]float64{0.5, math.NaN()})
				gaugeInt(ms, "m_quantiles", 7)
			},
			want: []string{`{"m":{"sum":2.0,"value_count":1},"m_quantiles":7}`},
		},
		{
			name: "a summary whose sum is NaN leaves its name to the next point of that name",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, "m", 1, math.NaN(), [2]float64{0.5, 3})
				gaugeInt(ms, "m", 7)
			},
			want: []string{`{"m_quantiles":{"q0_5":3.0},"m":7}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.add(ms)
			docs, _ := encodeMetrics(t, md) // checkMetricsDocument: unique names, the hash of them
			require.Len(t, docs, len(tt.want), "documents: %s", docsText(docs))
			for i, want := range tt.want {
				assert.Equal(t, want, string(docs[i].fields(t)["metrics"]), "document %d", i)
			}
		})
	}
}

// TestMetricNamesHashReuseSeesQuantiles writes two documents of the same metric, one with
// quantiles and one without: their names differ, so the second must not reuse the first's
// hash (checkMetricsDocument recomputes it).
func TestMetricNamesHashReuseSeesQuantiles(t *testing.T) {
	md, ms := newMetrics()
	putAttrs(summary(ms, "m", 1, 2, [2]float64{0.5, 3}).Attributes(), "k", "a")
	dp := ms.At(0).Summary().DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetCount(1)
	putAttrs(dp.Attributes(), "k", "b")
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 2)
	assert.NotEqual(t, string(docs[0].fields(t)["_metric_names_hash"]), string(docs[1].fields(t)["_metric_names_hash"]))
}

// TestKeySetRemove checks that remove forgets a key wherever it was added, with and without
// the index map.
func TestKeySetRemove(t *testing.T) {
	for _, n := range []int{3, 2 * linearMax} {
		var s keySet
		for i := range n {
			require.True(t, s.add("k"+strconv.Itoa(i)))
		}
		s.remove("k1")
		assert.True(t, s.add("k1"), "k1 was removed (n=%d)", n)
		assert.False(t, s.add("k0"), "k0 stays (n=%d)", n)
		assert.False(t, s.add("k2"), "k2 stays (n=%d)", n)
	}
}
