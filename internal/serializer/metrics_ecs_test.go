// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// ts0 as ecs mode writes it.
const ts0RFC3339 = `"2023-11-14T22:13:20.123456789Z"`

const ecsDataStream = `"data_stream":{"type":"metrics","dataset":"generic","namespace":"default"}`

// ecsDoc is an expected ecs document and its dynamic templates (path -> template).
type ecsDoc struct {
	json      string
	templates map[string]string
}

// canonicalJSON re-encodes a JSON object with sorted keys, numbers as written.
func canonicalJSON(t *testing.T, doc []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", doc)
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

func TestEncodeMetricsECS(t *testing.T) {
	tests := []struct {
		name   string
		md     func() pmetric.Metrics
		want   []ecsDoc
		report MetricsReport
	}{
		{
			name: "gauges: converted resource, point attributes at the root, names de-dotted",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				res := md.ResourceMetrics().At(0).Resource().Attributes()
				res.PutStr("host.name", "h1")
				res.PutStr("os.type", "linux")
				res.PutStr("telemetry.sdk.name", "opentelemetry")
				gaugeDouble(ms, "system.cpu.utilization", 0.5, "state", "user")
				gaugeInt(ms, "process.threads", 12, "state", "user")
				return md
			},
			want: []ecsDoc{{
				json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,` +
					`"host":{"hostname":"h1","name":"h1","os":{"platform":"linux"}},"process":{"threads":12},` +
					`"service":{"name":"checkout"},"state":"user","system":{"cpu":{"utilization":0.5}}}`,
				templates: map[string]string{"system.cpu.utilization": "double_metrics", "process.threads": "long_metrics"},
			}},
		},
		{
			name: "sums: counters and up-down counters alike",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				sum(ms, "http.requests", true, pmetric.AggregationTemporalityCumulative).SetIntValue(7)
				sum(ms, "queue.depth", false, pmetric.AggregationTemporalityDelta).SetDoubleValue(-2)
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"http":{"requests":7},"queue":{"depth":-2.0},"service":{"name":"checkout"}}`,
				templates: map[string]string{"http.requests": "long_metrics", "queue.depth": "double_metrics"},
			}},
		},
		{
			name: "histogram as counts and values, with the _doc_count hint",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				histogram(ms, "http.server.request.duration", 6, 15, []float64{1, 2, 5}, []uint64{1, 0, 3, 2},
					"elasticsearch.mapping.hints", hints("_doc_count"))
				return md
			},
			want: []ecsDoc{{
				json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"_doc_count":6,` +
					`"http":{"server":{"request":{"duration":{"counts":[1,3,2],"values":[0.5,3.5,5.0]}}}},"service":{"name":"checkout"}}`,
				templates: map[string]string{"http.server.request.duration": "histogram_metrics"},
			}},
		},
		{
			name: "summary as sum and value_count, quantiles beside it",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				summary(ms, "rpc.duration", 4, 10, [2]float64{0.5, 2}, [2]float64{0.99, 4})
				return md
			},
			want: []ecsDoc{{
				json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"rpc":{"duration":{"sum":10.0,"value_count":4}},"service":{"name":"checkout"},` +
					`"summary_quantiles":{"rpc":{"duration":{"q0_5":2.0,"q0_99":4.0}}}}`,
				templates: map[string]string{
					"rpc.duration":                         "summary_metrics",
					"summary_quantiles.rpc.duration.q0_5":  "double_metrics",
					"summary_quantiles.rpc.duration.q0_99": "double_metrics",
				},
			}},
		},
		{
			name: "NaN quantile skipped and counted",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				summary(ms, "rpc.duration", 4, 10, [2]float64{0.5, math.NaN()}, [2]float64{0.99, 4})
				return md
			},
			want: []ecsDoc{{
				json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"rpc":{"duration":{"sum":10.0,"value_count":4}},"service":{"name":"checkout"},` +
					`"summary_quantiles":{"rpc":{"duration":{"q0_99":4.0}}}}`,
				templates: map[string]string{
					"rpc.duration":                         "summary_metrics",
					"summary_quantiles.rpc.duration.q0_99": "double_metrics",
				},
			}},
			report: MetricsReport{NonFinite: 1, NonFiniteName: "rpc.duration"},
		},
		{
			name: "summary with a NaN sum: its value skipped and counted, its quantiles kept",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				summary(ms, "rpc.duration", 4, math.NaN(), [2]float64{0.5, 2})
				summary(ms, "rpc.all.nan", 4, math.NaN(), [2]float64{0.5, math.NaN()})
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"service":{"name":"checkout"},"summary_quantiles":{"rpc":{"duration":{"q0_5":2.0}}}}`,
				templates: map[string]string{"summary_quantiles.rpc.duration.q0_5": "double_metrics"},
			}},
			report: MetricsReport{NonFinite: 3, NonFiniteName: "rpc.duration"},
		},
		{
			name: "histogram values of the corrected contract: bucketless, infinite bounds, raw exponential",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				histogram(ms, "h.nocounts", 4, 10, []float64{1, 5}, nil)
				histogram(ms, "h.inf", 9, 0, []float64{1, 5, math.Inf(1)}, []uint64{1, 2, 3, 3})
				expHistogram(ms, "e.raw", 0, 1, expBuckets{counts: []uint64{2}}, expBuckets{offset: 3, counts: []uint64{3, 4}},
					"elasticsearch.mapping.hints", hints("histogram:raw"))
				return md
			},
			want: []ecsDoc{{
				json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"e":{"raw":{"counts":[2,1,3,4],"values":[-1.0,0.0,16.0,32.0]}},` +
					`"h":{"inf":{"counts":[1,2,6],"values":[0.5,3.0,5.0]},"nocounts":{"counts":[4],"values":[2.5]}},"service":{"name":"checkout"}}`,
				templates: map[string]string{"h.nocounts": "histogram_metrics", "h.inf": "histogram_metrics", "e.raw": "histogram_metrics"},
			}},
		},
		{
			// At the document root Elasticsearch expands dots: it refuses a leading or a repeated
			// dot, a whitespace-only part, and renames a trailing dot away (docs/dev/tsdb-facts.md).
			name: "metric names Elasticsearch refuses at the root are rejected",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				for _, name := range []string{"a..b", "", " ", ".a", "a.", "i.j.", "e. .f", "g. ", " .h", ".", ".."} {
					gaugeInt(ms, name, 1)
				}
				gaugeInt(ms, "ok", 1)
				gaugeInt(ms, " k", 1)
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `," k":1,"ok":1,"service":{"name":"checkout"}}`,
				templates: map[string]string{"ok": "long_metrics", " k": "long_metrics"}, //nolint:gocritic // " k" is the metric name, leading space and all
			}},
			report: func() MetricsReport {
				var r MetricsReport
				r.rejectN(rejectIndex(RejectInvalidMetricName), "a..b", 11)
				return r
			}(),
		},
		{
			name: "points of two scopes of one resource share a document; other attributes do not",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "a", 1, "k", "v")
				gaugeInt(ms, "c", 3, "k", "w")
				sm := md.ResourceMetrics().At(0).ScopeMetrics().AppendEmpty()
				sm.Scope().SetName("other")
				sm.Scope().Attributes().PutStr("scope.attr", "x")
				gaugeInt(sm.Metrics(), "b", 2, "k", "v")
				return md
			},
			want: []ecsDoc{
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"a":1,"b":2,"k":"v","service":{"name":"checkout"}}`,
					templates: map[string]string{"a": "long_metrics", "b": "long_metrics"},
				},
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"c":3,"k":"w","service":{"name":"checkout"}}`,
					templates: map[string]string{"c": "long_metrics"},
				},
			},
		},
		{
			name: "a point attribute overrides a resource attribute, in the document and the grouping",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				md.ResourceMetrics().At(0).Resource().Attributes().PutStr("region", "eu")
				gaugeInt(ms, "a", 1, "region", "us")
				rm := md.ResourceMetrics().AppendEmpty()
				rm.Resource().Attributes().PutStr("service.name", "checkout")
				rm.Resource().Attributes().PutStr("region", "ap")
				gaugeInt(rm.ScopeMetrics().AppendEmpty().Metrics(), "b", 2, "region", "us")
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"a":1,"b":2,"region":"us","service":{"name":"checkout"}}`,
				templates: map[string]string{"a": "long_metrics", "b": "long_metrics"},
			}},
		},
		{
			name: "resources that convert differently do not share a document",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				md.ResourceMetrics().At(0).Resource().Attributes().PutStr("os.type", "linux")
				gaugeInt(ms, "a", 1)
				rm := md.ResourceMetrics().AppendEmpty()
				rm.Resource().Attributes().PutStr("service.name", "checkout")
				gaugeInt(rm.ScopeMetrics().AppendEmpty().Metrics(), "b", 2, "os.type", "linux")
				return md
			},
			want: []ecsDoc{
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"a":1,"host":{"os":{"platform":"linux"}},"service":{"name":"checkout"}}`,
					templates: map[string]string{"a": "long_metrics"},
				},
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"b":2,"os":{"type":"linux"},"service":{"name":"checkout"}}`,
					templates: map[string]string{"b": "long_metrics"},
				},
			},
		},
		{
			name: "a metric named like an attribute replaces it; one below an attribute renames it .value",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeDouble(ms, "load", 1.5, "load", "high", "cpu.id", "0")
				gaugeDouble(ms, "cpu", 0.25, "load", "high", "cpu.id", "0")
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"cpu":{"id":"0","value":0.25},"load":1.5,"service":{"name":"checkout"}}`,
				templates: map[string]string{"load": "double_metrics", "cpu.value": "double_metrics"},
			}},
		},
		{
			name: "a renamed .value keeps its template path when later documents are written",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeDouble(ms, "cpu", 0.25)
				gaugeDouble(ms, "cpu.user", 0.5)
				gaugeDouble(ms, "mem", 1.5, "host", "b")
				gaugeDouble(ms, "mem.inf", 2.5, "host", "b")
				return md
			},
			want: []ecsDoc{
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"cpu":{"user":0.5,"value":0.25},"service":{"name":"checkout"}}`,
					templates: map[string]string{"cpu.user": "double_metrics", "cpu.value": "double_metrics"},
				},
				{
					json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"host":"b","mem":{"inf":2.5,"value":1.5},"service":{"name":"checkout"}}`,
					templates: map[string]string{"mem.inf": "double_metrics", "mem.value": "double_metrics"},
				},
			},
		},
		{
			name: "one name twice in a group: two documents",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "a", 1)
				sm := md.ResourceMetrics().At(0).ScopeMetrics().AppendEmpty()
				gaugeInt(sm.Metrics(), "a", 2)
				return md
			},
			want: []ecsDoc{
				{json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"a":1,"service":{"name":"checkout"}}`, templates: map[string]string{"a": "long_metrics"}},
				{json: `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"a":2,"service":{"name":"checkout"}}`, templates: map[string]string{"a": "long_metrics"}},
			},
		},
		{
			name: "NaN and infinite values are skipped and counted; a group of them only writes nothing",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeDouble(ms, "g.nan", math.NaN())
				gaugeDouble(ms, "g.ok", 2)
				gaugeDouble(ms, "g.nan", math.Inf(-1), "alone", true)
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"g":{"ok":2.0},"service":{"name":"checkout"}}`,
				templates: map[string]string{"g.ok": "double_metrics"},
			}},
			report: MetricsReport{NonFinite: 2, NonFiniteName: "g.nan"},
		},
		{
			name: "a metric named like the time or the data stream is rejected",
			md: func() pmetric.Metrics {
				md, ms := newMetrics()
				gaugeInt(ms, "@timestamp", 1)
				gaugeInt(ms, "data_stream.type", 1)
				gaugeInt(ms, "ok", 1)
				return md
			},
			want: []ecsDoc{{
				json:      `{"@timestamp":` + ts0RFC3339 + `,` + ecsDataStream + `,"ok":1,"service":{"name":"checkout"}}`,
				templates: map[string]string{"ok": "long_metrics"},
			}},
			report: func() MetricsReport {
				var r MetricsReport
				r.reject(rejectIndex(RejectFieldTaken), "@timestamp")
				r.reject(rejectIndex(RejectFieldTaken), "data_stream.type")
				return r
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, rep := encodeECS(t, tt.md())
			assert.Equal(t, tt.report, rep)
			got := make([]string, 0, len(docs))
			for _, d := range docs {
				assert.Equal(t, "metrics-generic-default", d.index)
				assert.Equal(t, ecsStream, d.ds)
				tpls := map[string]string{}
				for _, tpl := range d.templates {
					tpls[tpl.Path] = tpl.Template
				}
				tplJSON, err := json.Marshal(tpls)
				require.NoError(t, err)
				got = append(got, canonicalJSON(t, d.raw)+" "+string(tplJSON))
			}
			want := make([]string, 0, len(tt.want))
			for _, w := range tt.want {
				tplJSON, err := json.Marshal(w.templates)
				require.NoError(t, err)
				want = append(want, canonicalJSON(t, []byte(w.json))+" "+string(tplJSON))
			}
			slices.Sort(got)
			slices.Sort(want)
			assert.Equal(t, want, got)
		})
	}
}
