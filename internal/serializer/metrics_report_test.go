// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// TestMetricsBadInput feeds data that a well-behaved SDK does not send. Every document written
// must still be valid; what cannot be written is counted.
func TestMetricsBadInput(t *testing.T) {
	rejected := func(reason string, n int) [numRejectReasons]int {
		var r [numRejectReasons]int
		r[rejectIndex(reason)] = n
		return r
	}
	tests := []struct {
		name         string
		md           func() pmetric.Metrics
		wantDocs     int
		wantRejected [numRejectReasons]int
		wantNames    string // the first name rejected
		check        func(t *testing.T, docs []metricDoc)
	}{
		{name: "empty metrics", md: pmetric.NewMetrics},
		{
			name: "resource and scope without metrics",
			md: func() pmetric.Metrics {
				md := pmetric.NewMetrics()
				md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
				md.ResourceMetrics().AppendEmpty()
				return md
			},
		},
		{
			name: "metric of type empty",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				ms.AppendEmpty().SetName("empty")
				gaugeInt(ms, "ok", 1)
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectUnsupportedType, 1),
			wantNames:    "empty",
		},
		{
			name: "data points without a value",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gauge(ms, "novalue", "k", "v")
				sum(ms, "novalue.sum", true, pmetric.AggregationTemporalityCumulative, "k", "v")
				gaugeInt(ms, "ok", 1, "k", "v")
				gauge(ms, "alone", "k", "w")
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectNoValue, 3),
			wantNames:    "novalue",
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				assert.Equal(t, "1", docs[0].metric(t, "ok"))
				assert.Len(t, docs[0].templates, 1)
			},
		},
		{
			name: "histogram bucket counts that do not match the bounds",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				histogram(ms, "short", 3, 1, []float64{1, 2, 3}, []uint64{1, 2})
				histogram(ms, "long", 3, 1, []float64{1}, []uint64{1, 1, 1})
				histogram(ms, "nobounds", 3, 1, nil, []uint64{1, 2})
				histogram(ms, "aggregate", 3, 1, []float64{1}, []uint64{3}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
				histogram(ms, "nocounts", 3, 1, []float64{1}, nil) // bucketless, not a mismatch
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectBucketMismatch, 4),
			wantNames:    "short",
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				assert.Equal(t, []DynamicTemplate{{Path: "metrics.nocounts", Template: "histogram"}}, docs[0].templates)
			},
		},
		{
			name: "histogram bounds that are not strictly increasing, rejected alone",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				histogram(ms, "equal", 3, 1, []float64{1, 1}, []uint64{1, 1, 1})
				histogram(ms, "decreasing", 3, 1, []float64{2, 1}, []uint64{1, 1, 1})
				histogram(ms, "nan", 3, 1, []float64{math.NaN()}, []uint64{1, 2})
				histogram(ms, "nan.later", 3, 1, []float64{1, math.NaN()}, []uint64{1, 1, 1})
				histogram(ms, "zeros", 3, 1, []float64{0, math.Copysign(0, -1)}, []uint64{1, 1, 1})
				histogram(ms, "raw", 3, 1, []float64{2, 1}, []uint64{1, 1, 1}, "elasticsearch.mapping.hints", hints("histogram:raw"))
				histogram(ms, "aggregate", 3, 1, []float64{2, 1}, []uint64{1, 1, 1}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
				histogram(ms, "bucketless", 3, 1, []float64{2, 1}, nil)
				histogram(ms, "ok", 3, 1, []float64{1, 2}, []uint64{1, 1, 1})
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectBoundsNotIncreasing, 8),
			wantNames:    "equal",
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				assert.Equal(t, []DynamicTemplate{{Path: "metrics.ok", Template: "histogram"}}, docs[0].templates)
			},
		},
		{
			// In the metrics passthrough object Elasticsearch refuses only empty and
			// whitespace-only names (docs/dev/tsdb-facts.md); dots anywhere are part of the name.
			name: "metric names Elasticsearch refuses, rejected alone",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				for _, name := range []string{"", " ", "\t", "\u3000", "\u2028", "\x1f\x1c", " \n\r\v\f"} {
					gaugeInt(ms, name, 1)
				}
				h := ms.AppendEmpty()
				h.SetName("  ")
				h.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
				h.Gauge().DataPoints().AppendEmpty().SetIntValue(2)
				// Accepted: a no-break space is not whitespace to Java, and a name with dots is one
				// field of that name, whatever its parts.
				for _, name := range []string{
					"ok", "a.b", "a .b", "a.\u00a0", "\u2007", " a. b ", "a_", "-",
					".", "..", ".a", "a.", "a..b", "a. .b", "a.\t", "a.\u2028.b", "a.\x1f", " .h",
				} {
					gaugeInt(ms, name, 1)
				}
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectInvalidMetricName, 9),
			wantNames:    "",
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				keys, err := objectKeys(docs[0].fields(t)["metrics"])
				require.NoError(t, err)
				assert.Equal(t, []string{
					"ok", "a.b", "a .b", "a.\u00a0", "\u2007", " a. b ", "a_", "-",
					".", "..", ".a", "a.", "a..b", "a. .b", "a.\t", "a.\u2028.b", "a.\x1f", " .h",
				}, keys)
				var templates []string
				for _, tpl := range docs[0].templates {
					templates = append(templates, tpl.Path)
				}
				assert.Contains(t, templates, "metrics.a.", "the dynamic template names the field as written")
				assert.Contains(t, templates, "metrics..a")
			},
		},
		{
			name: "exponential histogram scale out of range",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				expHistogram(ms, "high", 21, 1, expBuckets{}, expBuckets{})
				expHistogram(ms, "low", -11, 1, expBuckets{}, expBuckets{})
				expHistogram(ms, "max", 20, 1, expBuckets{}, expBuckets{}, "k", "max")
				expHistogram(ms, "min", -10, 1, expBuckets{}, expBuckets{}, "k", "min")
				return md
			},
			wantDocs:     2,
			wantRejected: rejected(RejectScaleOutOfRange, 2),
			wantNames:    "high",
		},
		{
			name: "unroutable data point",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "bad", 1, "elasticsearch.index", "BAD")
				gaugeInt(ms, "good", 1)
				return md
			},
			wantDocs:     1,
			wantRejected: rejected(RejectInvalidIndexName, 1),
			wantNames:    "bad",
		},
		{
			name: "start times: none when zero, 0 below 1 ms",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "zero", 1, "k", "zero")
				gaugeInt(ms, "ns", 1, "k", "ns").SetStartTimestamp(1)
				gaugeInt(ms, "below.ms", 1, "k", "below.ms").SetStartTimestamp(999_999)
				gaugeInt(ms, "ms", 1, "k", "ms").SetStartTimestamp(1_000_000)
				return md
			},
			wantDocs: 4,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				got := map[string]string{}
				for _, d := range docs {
					var attrs map[string]string
					require.NoError(t, json.Unmarshal(d.fields(t)["attributes"], &attrs))
					got[attrs["k"]] = string(d.fields(t)["start_timestamp"])
				}
				assert.Equal(t, map[string]string{"zero": "", "ns": "0", "below.ms": "0", "ms": "1"}, got)
			},
		},
		{
			name: "zero timestamps",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "m", 1).SetTimestamp(0)
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				f := docs[0].fields(t)
				assert.Equal(t, "0", string(f["@timestamp"]))
				assert.NotContains(t, f, "start_timestamp")
			},
		},
		{
			name: "ten thousand attributes on one point",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				dp := gaugeInt(ms, "m", 1)
				dp.Attributes().EnsureCapacity(10_000)
				for i := range 10_000 {
					dp.Attributes().PutInt("attr."+strconv.Itoa(i), int64(i))
				}
				gaugeInt(ms, "n", 2).Attributes().EnsureCapacity(10_000)
				dp.Attributes().CopyTo(ms.At(1).Gauge().DataPoints().At(0).Attributes())
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				keys, err := objectKeys(docs[0].fields(t)["attributes"])
				require.NoError(t, err)
				assert.Len(t, keys, 10_000)
			},
		},
		{
			name: "map-valued attributes are JSON strings",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				res := md.ResourceMetrics().At(0).Resource().Attributes()
				k8s := res.PutEmptyMap("k8s")
				k8s.PutStr("pod", "p-1")
				k8s.PutStr("node", "n-1")
				scope := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Scope().Attributes()
				scope.PutEmptyMap("lib").PutBool("ok", true)
				dp := gaugeInt(ms, "m", 1)
				m := dp.Attributes().PutEmptyMap("labels")
				m.PutInt("z", 1)
				m.PutEmptyBytes("b").FromRaw([]byte{1, 2, 0xff})
				m.PutEmptyMap("inner").PutStr("a", "x\"y")
				dp.Attributes().PutEmptySlice("list").AppendEmpty().SetEmptyMap().PutStr("k", "v")
				return md
			},
			wantDocs: 1,
			check: func(t *testing.T, docs []metricDoc) {
				t.Helper()
				f := docs[0].fields(t)
				assert.JSONEq(t, `{"labels":"{\"b\":\"AQL/\",\"inner\":{\"a\":\"x\\\"y\"},\"z\":1}","list":["{\"k\":\"v\"}"]}`, string(f["attributes"]))
				assert.JSONEq(t, `{"attributes":{"service.name":"checkout","k8s":"{\"node\":\"n-1\",\"pod\":\"p-1\"}"}}`, string(f["resource"]))
				assert.JSONEq(t, `{"name":"test","attributes":{"lib":"{\"ok\":true}"}}`, string(f["scope"]))
			},
		},
		{
			name: "map-valued attributes in another key order group together",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				for i, keys := range [][]string{{"a", "b"}, {"b", "a"}} {
					m := gaugeInt(ms, "m"+strconv.Itoa(i), 1).Attributes().PutEmptyMap("labels")
					for _, k := range keys {
						m.PutStr(k, k)
					}
				}
				return md
			},
			wantDocs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, rep := encodeMetrics(t, tt.md())
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			assert.Equal(t, tt.wantRejected, rep.rejected)
			for i, n := range rep.rejected {
				if n > 0 {
					assert.Equal(t, tt.wantNames, rep.rejectedNames[i])
				}
			}
			if tt.wantRejected[rejectIndex(RejectInvalidIndexName)] > 0 {
				require.ErrorIs(t, rep.FirstError, errBadIndex)
			} else {
				require.NoError(t, rep.FirstError)
			}
			if tt.check != nil {
				tt.check(t, docs)
			}
		})
	}
}
