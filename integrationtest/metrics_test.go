// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// installMetricsTemplate puts an index template for this test's metrics data streams,
// metrics-<id>*.otel-*: a data stream without replicas, passthrough objects for the data point
// and resource attributes, strings as keyword, and the four number templates that the exporter
// names in dynamic_templates. Each template carries its own name in the field's meta, so the
// mapping shows which one Elasticsearch applied. It has no histogram or summary template: the
// integ-test-zip archive lacks the histogram and aggregate_metric_double field types (and TSDB).
//
// The pattern is narrower than metrics-*.otel-*, and the priority higher than the shared
// stand-in's, so that this test decides its own mappings without touching other data streams.
// It returns the data stream name.
func (s *suite) installMetricsTemplate(t *testing.T) string {
	t.Helper()
	name := s.id + "-metrics"
	s.putIndexTemplate(t, name, dataStreamTemplate("metrics-"+s.id+"*.otel-*", map[string]any{
		"dynamic_templates": []any{
			numberTemplate("gauge_long", "long"), numberTemplate("gauge_double", "double"),
			numberTemplate("counter_long", "long"), numberTemplate("counter_double", "double"),
			stringsAsKeyword(),
		},
		"properties": map[string]any{
			"@timestamp":         map[string]any{"type": "date"},
			"start_timestamp":    map[string]any{"type": "date"},
			"_metric_names_hash": map[string]any{"type": "keyword"},
			"attributes":         map[string]any{"type": "passthrough", "dynamic": true, "priority": 10},
			"resource": map[string]any{"properties": map[string]any{
				"attributes": map[string]any{"type": "passthrough", "dynamic": true, "priority": 20},
			}},
		},
	}))
	return "metrics-" + s.id + ".otel-default"
}

// numberTemplate is a dynamic template name that maps a field to typ, with its own name in the
// mapping's meta, so that a test sees which template mapped a field.
func numberTemplate(name, typ string) map[string]any {
	return map[string]any{name: map[string]any{"mapping": map[string]any{"type": typ, "meta": map[string]any{"template": name}}}}
}

// stringsAsKeyword is a dynamic template that maps strings to keyword.
func stringsAsKeyword() map[string]any {
	return map[string]any{"strings_as_keyword": map[string]any{
		"match_mapping_type": "string",
		"mapping":            map[string]any{"type": "keyword", "ignore_above": 1024},
	}}
}

// metricsData returns two groups (hosts h1 and h2, one second apart) of five number metrics:
// gauges and cumulative monotonic sums, int and double, and a non-monotonic sum.
func (s *suite) metricsData() pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "checkout")
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("integration")
	ms := sm.Metrics()
	add := func(name string, kind pmetric.MetricType, monotonic bool, set func(dp pmetric.NumberDataPoint, i int)) {
		m := ms.AppendEmpty()
		m.SetName(name)
		m.SetUnit("1")
		var dps pmetric.NumberDataPointSlice
		if kind == pmetric.MetricTypeGauge {
			dps = m.SetEmptyGauge().DataPoints()
		} else {
			sum := m.SetEmptySum()
			sum.SetIsMonotonic(monotonic)
			sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			dps = sum.DataPoints()
		}
		for i, host := range []string{"h1", "h2"} {
			dp := dps.AppendEmpty()
			dp.SetStartTimestamp(1_699_999_000_000_000_000)
			dp.SetTimestamp(pcommon.Timestamp(1_700_000_000_123_456_789 + int64(i)*1_000_000_000))
			dp.Attributes().PutStr("run", s.id)
			dp.Attributes().PutStr("host", host)
			set(dp, i)
		}
	}
	add("g.long", pmetric.MetricTypeGauge, false, func(dp pmetric.NumberDataPoint, i int) { dp.SetIntValue(42 + int64(i)) })
	add("g.double", pmetric.MetricTypeGauge, false, func(dp pmetric.NumberDataPoint, i int) { dp.SetDoubleValue(0.25 + float64(i)) })
	add("c.long", pmetric.MetricTypeSum, true, func(dp pmetric.NumberDataPoint, i int) { dp.SetIntValue(1234 + int64(i)) })
	add("c.double", pmetric.MetricTypeSum, true, func(dp pmetric.NumberDataPoint, i int) { dp.SetDoubleValue(2048 + float64(i)) })
	add("s.updown", pmetric.MetricTypeSum, false, func(dp pmetric.NumberDataPoint, i int) { dp.SetIntValue(-3 - int64(i)) })
	return md
}

func TestMetricsRoundTrip(t *testing.T) {
	s := newSuite(t)
	index := s.installMetricsTemplate(t)
	exp := s.metricsExporter(t, s.config())
	require.NoError(t, exp.ConsumeMetrics(context.Background(), s.metricsData()))

	docs := s.search(t, index, s.id)
	require.Len(t, docs, 2, "one document per host")
	assert.Equal(t, int64(2), s.docs(t, "indexed"))
	for i, d := range docs {
		assert.InDelta(t, 1_700_000_000_123+1000*i, d["@timestamp"], 0, "@timestamp is integer milliseconds")
		assert.InDelta(t, 1_699_999_000_000, d["start_timestamp"], 0)
		assert.Equal(t, "1", d["unit"])
		assert.InDelta(t, 42+i, get(d, "metrics.g.long"), 0)
		assert.InDelta(t, 0.25+float64(i), get(d, "metrics.g.double"), 0)
		assert.InDelta(t, 1234+i, get(d, "metrics.c.long"), 0)
		assert.InDelta(t, 2048+i, get(d, "metrics.c.double"), 0)
		assert.InDelta(t, -3-i, get(d, "metrics.s.updown"), 0)
		// XXH64 (seed 0) of "c.doublec.longg.doubleg.longs.updown".
		assert.Equal(t, "e9827422c847ee59", d["_metric_names_hash"])
		assert.Equal(t, []string{"h1", "h2"}[i], get(d, "attributes.host"))
		assert.Equal(t, s.id, get(d, "attributes.run"))
		assert.Equal(t, "checkout", get(d, "resource.attributes.service.name"))
		assert.Nil(t, get(d, "resource.attributes.data_stream.dataset"), "routing attributes are consumed")
		assert.Equal(t, map[string]any{"name": "integration"}, d["scope"])
		assert.Equal(t, map[string]any{"type": "metrics", "dataset": s.id + ".otel", "namespace": "default"}, d["data_stream"])
	}

	// The bulk items named the dynamic templates, and Elasticsearch applied them: each field
	// carries the meta of the template that mapped it. Without them, 0.25 would be a float.
	for field, want := range map[string]string{
		"metrics.g.long":   `{"type":"long","meta":{"template":"gauge_long"}}`,
		"metrics.g.double": `{"type":"double","meta":{"template":"gauge_double"}}`,
		"metrics.c.long":   `{"type":"long","meta":{"template":"counter_long"}}`,
		"metrics.c.double": `{"type":"double","meta":{"template":"counter_double"}}`,
		"metrics.s.updown": `{"type":"long","meta":{"template":"gauge_long"}}`,
	} {
		assert.JSONEq(t, want, fieldMapping(t, s, index, field), field)
	}
	// The passthrough objects make the attributes searchable by their bare names.
	assert.Equal(t, 1, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"bool": map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"host": "h2"}},
		map[string]any{"term": map[string]any{"service.name": "checkout"}},
	}}}}))
}

// fieldMapping returns the mapping of one leaf field of index as JSON.
func fieldMapping(t *testing.T, s *suite, index, field string) string {
	t.Helper()
	body := s.es.MustDo(t, http.MethodGet, "/"+index+"/_mapping/field/"+field, nil)
	var r map[string]struct {
		Mappings map[string]struct {
			Mapping map[string]json.RawMessage `json:"mapping"`
		} `json:"mappings"`
	}
	require.NoError(t, json.Unmarshal(body, &r), "%s", body)
	for _, idx := range r {
		if m, ok := idx.Mappings[field]; ok {
			for _, leaf := range m.Mapping {
				return string(leaf)
			}
		}
	}
	t.Fatalf("no mapping for %s in %s: %s", field, index, body)
	return ""
}

// TestMetricsHistogramAndSummaryWithoutTemplates sends one histogram document and one summary
// document (a histogram with the aggregate_metric_double hint, and a summary with quantiles)
// to a data stream whose template defines no "histogram" or "summary" dynamic template, as on
// the integ-test-zip archive, which lacks those field types. Elasticsearch 9.5.4 refuses each
// document on its own, and the exporter counts them as rejected without failing the push:
//
//	400 document_parsing_exception: [1:44] Can't find dynamic template for dynamic template
//	name [histogram] of field [metrics.h]
//	400 document_parsing_exception: [1:48] Can't find dynamic template for dynamic template
//	name [summary] of field [metrics.h.agg]
//
// The exporter logs them as one line, "2 rejected (400 document_parsing_exception: [1:306]
// Can't find dynamic template for dynamic template name [histogram] of field [metrics.h]) in
// .ds-metrics-<id>.otel-default-<date>-000001": one reason per error type (that of whichever
// document came first) and the backing index, not the data stream.
func TestMetricsHistogramAndSummaryWithoutTemplates(t *testing.T) {
	s := newSuite(t)
	index := s.installMetricsTemplate(t)
	exp := s.metricsExporter(t, s.config())
	s.waitConnected(t) // the version check turns on include_source_on_error=false

	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	hist := func(name string, kv ...string) pmetric.HistogramDataPoint {
		m := ms.AppendEmpty()
		m.SetName(name)
		h := m.SetEmptyHistogram()
		h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		dp := h.DataPoints().AppendEmpty()
		dp.SetTimestamp(1_700_000_000_000_000_000)
		dp.SetCount(6)
		dp.SetSum(9)
		dp.ExplicitBounds().FromRaw([]float64{1, 5})
		dp.BucketCounts().FromRaw([]uint64{2, 3, 1})
		dp.Attributes().PutStr("run", s.id)
		for i := 0; i+1 < len(kv); i += 2 {
			dp.Attributes().PutStr(kv[i], kv[i+1])
		}
		return dp
	}
	hist("h", "kind", "histogram")
	hist("h.agg", "kind", "summary").Attributes().PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("aggregate_metric_double")
	sm := ms.AppendEmpty()
	sm.SetName("sm")
	sdp := sm.SetEmptySummary().DataPoints().AppendEmpty()
	sdp.SetTimestamp(1_700_000_000_000_000_000)
	sdp.SetCount(4)
	sdp.SetSum(10)
	q := sdp.QuantileValues().AppendEmpty()
	q.SetQuantile(0.5)
	q.SetValue(2)
	sdp.Attributes().PutStr("run", s.id)
	sdp.Attributes().PutStr("kind", "summary")

	require.NoError(t, exp.ConsumeMetrics(context.Background(), md), "documents rejected for good do not fail the push")
	assert.Equal(t, int64(2), s.docs(t, "rejected"), "the histogram document and the summary document")
	assert.Equal(t, int64(0), s.docs(t, "indexed"))
	s.es.Refresh(t, index)
	assert.Equal(t, 0, s.es.Count(t, index))

	failures := s.lastFailures(t)
	t.Logf("Elasticsearch answered: %s", failures)
	assert.Contains(t, failures, "2 rejected (400 document_parsing_exception")
	assert.Contains(t, failures, "Can't find dynamic template for dynamic template name")
	assert.Contains(t, failures, index)

	// The log line groups failures by error type and keeps one reason; send two documents of
	// the same shape directly to read each item's answer.
	bulk := `{"create":{"_index":"` + index + `","dynamic_templates":{"metrics.h":"histogram"},"require_data_stream":true}}` + "\n" +
		`{"@timestamp":1700000000000,"metrics":{"h":{"counts":[2,3,1],"values":[0.5,3.0,5.0]}}}` + "\n" +
		`{"create":{"_index":"` + index + `","dynamic_templates":{"metrics.h.agg":"summary","metrics.sm":"summary","metrics.sm_quantiles.q0_5":"gauge_double"},"require_data_stream":true}}` + "\n" +
		`{"@timestamp":1700000000000,"metrics":{"h.agg":{"sum":9.0,"value_count":6},"sm":{"sum":10.0,"value_count":4},"sm_quantiles":{"q0_5":2.0}}}` + "\n"
	resp := s.es.MustDo(t, http.MethodPost, "/_bulk?include_source_on_error=false", bulk)
	var r struct {
		Items []map[string]struct {
			Status int `json:"status"`
			Error  struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	require.Len(t, r.Items, 2, "%s", resp)
	for i, want := range []string{
		"Can't find dynamic template for dynamic template name [histogram] of field [metrics.h]",
		"Can't find dynamic template for dynamic template name [summary] of field [metrics.h.agg]",
	} {
		item := r.Items[i]["create"]
		t.Logf("item %d: %d %s: %s", i, item.Status, item.Error.Type, item.Error.Reason)
		assert.Equal(t, http.StatusBadRequest, item.Status)
		assert.Equal(t, "document_parsing_exception", item.Error.Type)
		assert.Contains(t, item.Error.Reason, want)
	}
}

// TestMetricsECSRoundTrip writes the same metrics in mapping mode ecs to a data stream whose
// template has the number dynamic templates of Elasticsearch's metrics@mappings
// (long_metrics, double_metrics; the archive has no built-in metrics@mappings) and reads the
// documents back: ECS fields and the data point attributes at the root, each metric under its
// own name, the data stream without the .otel suffix, and each number mapped by the template
// the bulk item named.
func TestMetricsECSRoundTrip(t *testing.T) {
	s := newSuite(t)
	name := s.id + "-metrics-ecs"
	s.putIndexTemplate(t, name, dataStreamTemplate("metrics-"+s.id+"-*", map[string]any{
		"dynamic_templates": []any{
			numberTemplate("long_metrics", "long"), numberTemplate("double_metrics", "double"), stringsAsKeyword(),
		},
	}))
	index := "metrics-" + s.id + "-default"

	exp := s.metricsExporter(t, s.config())
	// The request chooses ecs with its client metadata: mapping::mode is ignored.
	ctx := client.NewContext(context.Background(), client.Info{Metadata: client.NewMetadata(map[string][]string{"X-Elastic-Mapping-Mode": {"ecs"}})})
	require.NoError(t, exp.ConsumeMetrics(ctx, s.metricsData()))

	docs := s.search(t, index, s.id)
	require.Len(t, docs, 2, "one document per host and time")
	assert.Equal(t, int64(2), s.docs(t, "indexed"))
	for i, d := range docs {
		assert.Equal(t, fmt.Sprintf("2023-11-14T22:13:%02d.123456789Z", 20+i), d["@timestamp"], "RFC 3339 with nanoseconds")
		assert.Equal(t, []string{"h1", "h2"}[i], d["host"], "data point attributes at the root")
		assert.Equal(t, "checkout", get(d, "service.name"))
		assert.InDelta(t, 42+i, get(d, "g.long"), 0)
		assert.InDelta(t, 0.25+float64(i), get(d, "g.double"), 0)
		assert.InDelta(t, 1234+i, get(d, "c.long"), 0)
		assert.InDelta(t, 2048+i, get(d, "c.double"), 0)
		assert.InDelta(t, -3-i, get(d, "s.updown"), 0)
		assert.Equal(t, map[string]any{"type": "metrics", "dataset": s.id, "namespace": "default"}, d["data_stream"])
		assert.Nil(t, d["metrics"], "no otel metrics object")
		assert.Nil(t, d["_metric_names_hash"], "no names hash in ecs")
	}
	for field, want := range map[string]string{
		"g.long":   `{"type":"long","meta":{"template":"long_metrics"}}`,
		"g.double": `{"type":"double","meta":{"template":"double_metrics"}}`,
		"c.long":   `{"type":"long","meta":{"template":"long_metrics"}}`,
		"c.double": `{"type":"double","meta":{"template":"double_metrics"}}`,
		"s.updown": `{"type":"long","meta":{"template":"long_metrics"}}`,
	} {
		assert.JSONEq(t, want, fieldMapping(t, s, index, field), field)
	}
}
