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

// TestMetricValues checks the value and dynamic template of each kind of data point, alone in
// its document.
func TestMetricValues(t *testing.T) {
	const name = "m"
	tests := []struct {
		name          string
		add           func(ms pmetric.MetricSlice)
		wantValue     string // the bytes of metrics.m, "" when it is skipped
		wantTemplates map[string]string
		wantQuantiles string // the bytes of metrics.m_quantiles, "" for none
		wantDocCount  string // the bytes of _doc_count, "" for none
		wantNonFinite int
	}{
		{name: "gauge int", add: func(ms pmetric.MetricSlice) { gaugeInt(ms, name, -42) }, wantValue: "-42", wantTemplates: map[string]string{"metrics.m": "gauge_long"}},
		{name: "gauge double", add: func(ms pmetric.MetricSlice) { gaugeDouble(ms, name, 2) }, wantValue: "2.0", wantTemplates: map[string]string{"metrics.m": "gauge_double"}},
		{name: "gauge double tiny", add: func(ms pmetric.MetricSlice) { gaugeDouble(ms, name, 1e-9) }, wantValue: "1e-9", wantTemplates: map[string]string{"metrics.m": "gauge_double"}},
		{
			name: "sum monotonic cumulative int",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityCumulative).SetIntValue(7)
			},
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "counter_long"},
		},
		{
			name: "sum monotonic cumulative double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityCumulative).SetDoubleValue(7.5)
			},
			wantValue:     "7.5",
			wantTemplates: map[string]string{"metrics.m": "counter_double"},
		},
		{
			name:          "sum monotonic delta int",
			add:           func(ms pmetric.MetricSlice) { sum(ms, name, true, pmetric.AggregationTemporalityDelta).SetIntValue(7) },
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum monotonic delta double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityDelta).SetDoubleValue(7)
			},
			wantValue:     "7.0",
			wantTemplates: map[string]string{"metrics.m": "gauge_double"},
		},
		{
			name: "sum monotonic unspecified temporality",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, true, pmetric.AggregationTemporalityUnspecified).SetIntValue(7)
			},
			wantValue:     "7",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum non-monotonic cumulative int",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, false, pmetric.AggregationTemporalityCumulative).SetIntValue(-3)
			},
			wantValue:     "-3",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
		},
		{
			name: "sum non-monotonic delta double",
			add: func(ms pmetric.MetricSlice) {
				sum(ms, name, false, pmetric.AggregationTemporalityDelta).SetDoubleValue(0.5)
			},
			wantValue:     "0.5",
			wantTemplates: map[string]string{"metrics.m": "gauge_double"},
		},
		{
			name: "histogram midpoints",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1})
			},
			wantValue:     `{"counts":[1,6,2,1],"values":[5.0,35.0,75.0,100.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram first bound zero",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 3, 5, []float64{0, 10}, []uint64{2, 1, 0}) },
			wantValue:     `{"counts":[2,1],"values":[0.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram first bound negative",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 6, 0, []float64{-5, 5}, []uint64{3, 1, 2}) },
			wantValue:     `{"counts":[3,1,2],"values":[-5.0,0.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram only the overflow bucket",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 40, []float64{1, 2}, []uint64{0, 0, 4}) },
			wantValue:     `{"counts":[4],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram all buckets empty",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, 0, []float64{1, 2}, []uint64{0, 0, 0}) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 10, nil, nil) },
			wantValue:     `{"counts":[4],"values":[2.5]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, one bucket count",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 10, nil, []uint64{4}) },
			wantValue:     `{"counts":[4],"values":[2.5]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, count zero",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, 0, nil, nil) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram without bounds, infinite sum",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 2, math.Inf(1), nil, nil) },
			wantNonFinite: 1,
		},
		{
			name:          "histogram without bounds, NaN sum",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 2, math.NaN(), nil, nil) },
			wantNonFinite: 1,
		},
		{
			name:          "histogram without bounds, count zero, NaN sum",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, math.NaN(), nil, nil) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram with bounds but no bucket counts is bucketless",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 4, 10, []float64{1, 5}, nil) },
			wantValue:     `{"counts":[4],"values":[2.5]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "histogram with bounds but no bucket counts, count zero",
			add:           func(ms pmetric.MetricSlice) { histogram(ms, name, 0, 0, []float64{1, 5}, nil) },
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "aggregate_metric_double with bounds but no bucket counts",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 1.5, []float64{1}, nil, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
			},
			wantValue:     `{"sum":1.5,"value_count":3}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "histogram with an infinite last bound",
			add: func(ms pmetric.MetricSlice) {
				// (5, +Inf] and the overflow bucket take 5, the nearest finite bound: one pair.
				histogram(ms, name, 9, 0, []float64{1, 5, math.Inf(1)}, []uint64{1, 2, 3, 3})
			},
			wantValue:     `{"counts":[1,2,6],"values":[0.5,3.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram with an infinite first bound",
			add: func(ms pmetric.MetricSlice) {
				// The first bucket and (-Inf, -1] take -1, the nearest finite bound: one pair.
				histogram(ms, name, 10, 0, []float64{math.Inf(-1), -1, 1}, []uint64{1, 2, 3, 4})
			},
			wantValue:     `{"counts":[3,3,4],"values":[-1.0,0.0,1.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram with infinite bounds, only the infinite buckets used",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 5, 0, []float64{math.Inf(-1), 2, math.Inf(1)}, []uint64{0, 1, 0, 4})
			},
			wantValue:     `{"counts":[5],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw with an infinite last bound",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 9, 0, []float64{1, 5, math.Inf(1)}, []uint64{1, 2, 3, 3}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[1,8],"values":[1.0,5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram whose midpoint overflows",
			add: func(ms pmetric.MetricSlice) {
				// (-1e308, 1e308]: its midpoint, -1e308 + 2e308/2, is +Inf; 1e308 is the nearest
				// finite bound, which the overflow bucket takes too.
				histogram(ms, name, 3, 0, []float64{-1e308, 1e308}, []uint64{1, 1, 1})
			},
			wantValue:     `{"counts":[1,2],"values":[-1e+308,1e+308]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram with no finite bound",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 0, []float64{math.Inf(1)}, []uint64{3, 0})
			},
			wantNonFinite: 1,
		},
		{
			name: "histogram with no finite bound, all buckets empty",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, []float64{math.Inf(-1), math.Inf(1)}, []uint64{0, 0, 0})
			},
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram buckets that write the same value are merged",
			add: func(ms pmetric.MetricSlice) {
				// Adjacent bounds a < b: the midpoint of (a, b] rounds to b, the value of the
				// overflow bucket too.
				a := math.Nextafter(1, 2)
				b := math.Nextafter(a, 2)
				histogram(ms, name, 7, 0, []float64{1, a, b}, []uint64{0, 1, 2, 4})
			},
			wantValue:     `{"counts":[1,6],"values":[1.0,1.0000000000000004]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram counts summed by a merge are capped",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, []float64{1, math.Inf(1)}, []uint64{0, math.MaxUint64, 5})
			},
			wantValue:     `{"counts":[9223372036854775807],"values":[1.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram counts capped at the int64 maximum",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, math.MaxUint64, 1, []float64{1}, []uint64{math.MaxUint64, uint64(math.MaxInt64) + 1})
			},
			wantValue:     `{"counts":[9223372036854775807,9223372036854775807],"values":[0.5,1.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[1,6,3],"values":[10.0,50.0,100.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, overflow joins an earlier bucket",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 8, 0, []float64{10, 20, 50}, []uint64{1, 2, 0, 5}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[1,7],"values":[10.0,20.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, only the overflow bucket",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 4, 0, []float64{1, 2}, []uint64{0, 0, 4}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[4],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, first bucket not halved",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 0, []float64{10}, []uint64{3, 0}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[3],"values":[10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "histogram:raw, overflow sum capped",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, []float64{1, 2}, []uint64{0, math.MaxUint64, 5}, "elasticsearch.mapping.hints", hints("histogram:raw"))
			},
			wantValue:     `{"counts":[9223372036854775807],"values":[2.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "aggregate_metric_double on a histogram",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
			},
			wantValue:     `{"sum":250.0,"value_count":10}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "aggregate_metric_double wins over histogram:raw",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("histogram:raw", "aggregate_metric_double"))
			},
			wantValue:     `{"sum":250.0,"value_count":10}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "aggregate_metric_double with a NaN sum",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, math.NaN(), []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
			},
			wantNonFinite: 1,
		},
		{
			name: "aggregate_metric_double with an infinite sum on an exponential histogram",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 0, 1, expBuckets{}, expBuckets{}, "elasticsearch.mapping.hints", hints("aggregate_metric_double")).SetSum(math.Inf(-1))
			},
			wantNonFinite: 1,
		},
		{
			name: "aggregate_metric_double on an exponential histogram",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 0, 1, expBuckets{}, expBuckets{counts: []uint64{2}}, "elasticsearch.mapping.hints", hints("aggregate_metric_double", "histogram:raw")).SetSum(4.5)
			},
			wantValue:     `{"sum":4.5,"value_count":3}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "unknown hints are ignored",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 3, 0, []float64{10}, []uint64{3, 0}, "elasticsearch.mapping.hints", hints("whatever", "HISTOGRAM:RAW"))
			},
			wantValue:     `{"counts":[3],"values":[5.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram scale 0",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 0, 1, expBuckets{offset: 1, counts: []uint64{1, 2}}, expBuckets{counts: []uint64{2, 1}})
			},
			wantValue:     `{"counts":[2,1,1,2,1],"values":[-6.0,-3.0,0.0,1.5,3.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram negative scale",
			add: func(ms pmetric.MetricSlice) {
				// Scale -1: base 4, bucket 0 is (1, 4], bucket 1 is (4, 16].
				expHistogram(ms, name, -1, 0, expBuckets{}, expBuckets{counts: []uint64{1, 3}})
			},
			wantValue:     `{"counts":[1,3],"values":[2.5,10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram negative offset",
			add: func(ms pmetric.MetricSlice) {
				// Scale 0: bucket -2 is (0.25, 0.5], bucket -1 is (0.5, 1].
				expHistogram(ms, name, 0, 0, expBuckets{offset: -2, counts: []uint64{5, 0}}, expBuckets{offset: -2, counts: []uint64{1, 2}})
			},
			wantValue:     `{"counts":[5,1,2],"values":[-0.375,0.375,0.75]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "exponential histogram zero bucket only",
			add:           func(ms pmetric.MetricSlice) { expHistogram(ms, name, 3, 4, expBuckets{}, expBuckets{}) },
			wantValue:     `{"counts":[4],"values":[0.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "exponential histogram empty",
			add: func(ms pmetric.MetricSlice) {
				expHistogram(ms, name, 3, 0, expBuckets{}, expBuckets{counts: []uint64{0, 0}})
			},
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name:          "summary",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, 5, 12.5) },
			wantValue:     `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name:          "summary with a NaN sum",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, 5, math.NaN()) },
			wantNonFinite: 1,
		},
		{
			name:          "summary with an infinite sum keeps its quantiles",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, 5, math.Inf(1), [2]float64{0.5, 2}) },
			wantTemplates: map[string]string{"metrics.m_quantiles.q0_5": "gauge_double"},
			wantQuantiles: `{"q0_5":2.0}`,
			wantNonFinite: 1,
		},
		{
			name: "summary whose quantiles are all NaN",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 1, [2]float64{0.5, math.NaN()}, [2]float64{0.9, math.Inf(1)})
			},
			wantValue:     `{"sum":1.0,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
			wantNonFinite: 2,
		},
		{
			name:          "summary count capped",
			add:           func(ms pmetric.MetricSlice) { summary(ms, name, math.MaxUint64, 1) },
			wantValue:     `{"sum":1.0,"value_count":9223372036854775807}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
		},
		{
			name: "summary quantiles",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.99, 9.5}, [2]float64{1, 10})
			},
			wantValue: `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{
				"metrics.m": "summary", "metrics.m_quantiles.q0_5": "gauge_double",
				"metrics.m_quantiles.q0_99": "gauge_double", "metrics.m_quantiles.q1": "gauge_double",
			},
			wantQuantiles: `{"q0_5":2.0,"q0_99":9.5,"q1":10.0}`,
		},
		{
			name: "summary repeated quantile, the first wins",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.5, 3}, [2]float64{0.9, 4})
			},
			wantValue: `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{
				"metrics.m": "summary", "metrics.m_quantiles.q0_5": "gauge_double", "metrics.m_quantiles.q0_9": "gauge_double",
			},
			wantQuantiles: `{"q0_5":2.0,"q0_9":4.0}`,
		},
		{
			name: "summary NaN and infinite quantiles skipped",
			add: func(ms pmetric.MetricSlice) {
				summary(ms, name, 5, 12.5, [2]float64{0.5, math.NaN()}, [2]float64{0.9, 1}, [2]float64{0.99, math.Inf(1)}, [2]float64{math.NaN(), 3})
			},
			wantValue:     `{"sum":12.5,"value_count":5}`,
			wantTemplates: map[string]string{"metrics.m": "summary", "metrics.m_quantiles.q0_9": "gauge_double"},
			wantQuantiles: `{"q0_9":1.0}`,
			wantNonFinite: 3,
		},
		{
			name: "_doc_count of a number",
			add: func(ms pmetric.MetricSlice) {
				gaugeInt(ms, name, 5, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     "5",
			wantTemplates: map[string]string{"metrics.m": "gauge_long"},
			wantDocCount:  "1",
		},
		{
			name: "_doc_count of a histogram",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 10, 250, []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"counts":[4,6],"values":[5.0,10.0]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
			wantDocCount:  "10",
		},
		{
			name: "_doc_count of an empty histogram is left out",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, name, 0, 0, nil, nil, "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"counts":[],"values":[]}`,
			wantTemplates: map[string]string{"metrics.m": "histogram"},
		},
		{
			name: "_doc_count of a summary",
			add: func(ms pmetric.MetricSlice) {
				putAttrs(summary(ms, name, 7, 1).Attributes(), "elasticsearch.mapping.hints", hints("_doc_count"))
			},
			wantValue:     `{"sum":1.0,"value_count":7}`,
			wantTemplates: map[string]string{"metrics.m": "summary"},
			wantDocCount:  "7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.add(ms)
			docs, rep := encodeMetrics(t, md)
			assert.Equal(t, tt.wantNonFinite, rep.NonFinite, "NonFinite")
			if tt.wantNonFinite > 0 {
				assert.Equal(t, name, rep.NonFiniteName)
			}
			assert.Equal(t, [numRejectReasons]int{}, rep.rejected)
			if tt.wantValue == "" && tt.wantQuantiles == "" {
				require.Empty(t, docs, "the only value is skipped: no document")
				return
			}
			require.Len(t, docs, 1, "documents: %s", docsText(docs))
			d := docs[0]
			if got := d.metric(t, name); got != tt.wantValue {
				t.Errorf("metrics.m = %s, want %s", got, tt.wantValue)
			}
			got := map[string]string{}
			for _, tpl := range d.templates {
				got[tpl.Path] = tpl.Template
			}
			assert.Equal(t, tt.wantTemplates, got, "dynamic templates")
			assert.Equal(t, tt.wantQuantiles, d.metric(t, name+"_quantiles"), "metrics.m_quantiles")
			assert.Equal(t, tt.wantDocCount, string(d.fields(t)["_doc_count"]), "_doc_count")
		})
	}
}

func TestNonFiniteNumbersAreSkipped(t *testing.T) {
	md, ms := newMetrics()
	gaugeDouble(ms, "nan", math.NaN(), "k", "v")
	gaugeDouble(ms, "inf", math.Inf(-1), "k", "v")
	gaugeDouble(ms, "ok", 1.5, "k", "v")
	gaugeDouble(ms, "alone", math.NaN(), "k", "other") // a group with nothing left: no document
	docs, rep := encodeMetrics(t, md)
	require.Len(t, docs, 1, "documents: %s", docsText(docs))
	d := docs[0]
	assert.Equal(t, "1.5", d.metric(t, "ok"))
	assert.Empty(t, d.metric(t, "nan"))
	assert.Empty(t, d.metric(t, "inf"))
	assert.Equal(t, []DynamicTemplate{{Path: "metrics.ok", Template: "gauge_double"}}, d.templates)
	assert.JSONEq(t, `"`+strconv.FormatUint(xxhash.Sum64String("ok"), 16)+`"`, string(d.fields(t)["_metric_names_hash"]),
		"a skipped value's name is not in the hash")
	assert.Equal(t, 3, rep.NonFinite)
	assert.Equal(t, "nan", rep.NonFiniteName)
}
