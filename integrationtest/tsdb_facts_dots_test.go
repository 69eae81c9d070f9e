// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// Metric names with dots where a dotted name has no parts to expand: a leading, a trailing or
// a repeated dot, a whitespace-only part. In the otel mode metric names are keys of the
// passthrough object metrics of the time series stand-in; what the node does with them is
// recorded in docs/dev/tsdb-facts.md (2a), and the exporter writes exactly the names the node
// indexes.

// dottedNames are the names the tests send, with the node's answer to a document holding one
// of them inside metrics: 201, or the reason of its 400 document_parsing_exception.
var dottedNames = []struct {
	name   string
	reason string // "" when the document is created
}{
	{name: "a."},
	{name: ".a"},
	{name: "a..b"},
	{name: "a. .b"},
	{name: " ", reason: "Field name cannot contain only whitespace: [metrics. ]"},
	{name: "", reason: "failed to parse: Field name cannot be an empty string"},
}

// fieldsOf returns the fields that the search fields API gives for the document of index whose
// _metric_names_hash is hash, asking for every field of pattern.
func fieldsOf(t *testing.T, es *estest.Client, index, hash, pattern string) map[string][]any {
	t.Helper()
	resp := es.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_search", map[string]any{
		"query":  map[string]any{"term": map[string]any{"_metric_names_hash": hash}},
		"fields": []string{pattern},
	})
	var r struct {
		Hits struct {
			Hits []struct {
				Fields map[string][]any `json:"fields"`
			} `json:"hits"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	require.Len(t, r.Hits.Hits, 1, "documents with _metric_names_hash %s: %s", hash, resp)
	return r.Hits.Hits[0].Fields
}

// TestTSDBFactsDottedMetricNames sends each of dottedNames as the only metric of a document,
// inside metrics and named gauge_double in the bulk item, as the otel mode writes it, and
// records for each: the status, the _ignored field, the mapping, and under which field names a
// term query and an aggregation find the value. Then one document with both "a" and "a."
// shows that they are two fields, and what the fields API makes of them.
func TestTSDBFactsDottedMetricNames(t *testing.T) {
	s := newSuite(t)
	index := "metrics-" + s.id + ".otel-default"
	docs := make([]bulkDoc, len(dottedNames))
	for i, c := range dottedNames {
		key, err := json.Marshal(c.name)
		require.NoError(t, err)
		docs[i] = bulkDoc{
			source:    metricsDoc(fmt.Sprintf("d%d", i), fmt.Sprintf(`"metrics":{%s:%d.5}`, key, i)),
			templates: map[string]string{"metrics." + c.name: "gauge_double"},
		}
	}
	items := bulkCreate(t, s.es, index, docs...)
	for i, c := range dottedNames {
		it := items[i]
		if c.reason == "" {
			assert.Equal(t, http.StatusCreated, it.Status, "%q: %+v", c.name, it)
			continue
		}
		assert.Equal(t, http.StatusBadRequest, it.Status, "%q: %+v", c.name, it)
		assert.Equal(t, "document_parsing_exception", it.Error.Type, "%q", c.name)
		assert.Contains(t, it.Error.Reason, c.reason, "%q", c.name)
	}
	s.es.Refresh(t, index)

	types := fieldTypes(t, s.es, index, "metrics.*")
	for i, c := range dottedNames {
		if c.reason != "" {
			continue
		}
		hash, field, value := fmt.Sprintf("d%d", i), "metrics."+c.name, float64(i)+0.5
		assert.Empty(t, ignoredFields(t, s.es, index, hash), "%q: no _ignored", c.name)
		// The field has the name as written, and the dynamic template the bulk item named.
		assert.Equal(t, "double", types[field], "%q", c.name)
		assert.Equal(t, "gauge", timeSeriesMetric(t, s.es, index, field), "%q", c.name)
		// Found by the full name and, as every field of a passthrough object, by the name alone.
		for _, f := range []string{field, c.name} {
			assert.Equal(t, 1, s.es.CountQuery(t, index, estest.TermQuery(f, value)), "%q: term on %q", c.name, f)
			assert.InDelta(t, value, aggregate(t, s.es, index, "max", f, nil), 0, "%q: max of %q", c.name, f)
		}
	}
	assert.NotContains(t, types, "metrics.a", "a. is not read as a")

	// The fields API, which reads _source, gives the value of a name with a leading, a repeated
	// or a whitespace-only part; it gives nothing for a name with a trailing dot.
	for i, c := range dottedNames {
		if c.reason != "" {
			continue
		}
		fields := fieldsOf(t, s.es, index, fmt.Sprintf("d%d", i), "metrics.*")
		if c.name == "a." {
			assert.Empty(t, fields, "the fields API does not find a trailing-dot name in _source")
			continue
		}
		assert.Equal(t, map[string][]any{"metrics." + c.name: {float64(i) + 0.5}}, fields, "%q", c.name)
	}

	// "a" and "a." in one document are two fields, each with its own value in the index. The
	// fields API gives a's value for both.
	items = bulkCreate(t, s.es, index, bulkDoc{
		source:    metricsDoc("both", `"metrics":{"a":1.0,"a.":2.0}`),
		templates: map[string]string{"metrics.a": "gauge_double", "metrics.a.": "gauge_double"},
	})
	require.Equal(t, http.StatusCreated, items[0].Status, "%+v", items[0])
	s.es.Refresh(t, index)
	assert.Empty(t, ignoredFields(t, s.es, index, "both"))
	both := map[string]any{"query": estest.TermQuery("_metric_names_hash", "both")["query"]}
	assert.InDelta(t, 1.0, aggregate(t, s.es, index, "max", "metrics.a", both), 0)
	assert.InDelta(t, 2.0, aggregate(t, s.es, index, "max", "metrics.a.", both), 0)
	assert.Equal(t, map[string][]any{"metrics.a": {1.0}, "metrics.a.": {1.0}}, fieldsOf(t, s.es, index, "both", "metrics.*"),
		"the fields API gives a's value under a. too")
}

// TestTSDBDottedMetricNames sends a gauge of each of dottedNames through the exporter in the
// otel mode: the names the node indexes are written, all in one document with no _ignored, each
// value found under its own field; the empty and the whitespace-only name are rejected by the
// exporter, counted and logged, instead of making Elasticsearch refuse the document that would
// hold them.
func TestTSDBDottedMetricNames(t *testing.T) {
	s := newSuite(t)
	exp := s.metricsExporter(t, s.config())
	ts := tsdbNow()
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	for i, c := range dottedNames {
		m := ms.AppendEmpty()
		m.SetName(c.name)
		dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(float64(i) + 0.5)
		dp.Attributes().PutStr("run", s.id)
	}
	require.NoError(t, exp.ConsumeMetrics(context.Background(), md))
	index := "metrics-" + s.id + ".otel-default"
	s.es.Refresh(t, index)

	assert.Equal(t, int64(1), s.docs(t, "indexed"), "one document holds the four names the node takes")
	assert.Equal(t, int64(2), s.docsWithError(t, "rejected", "invalid_metric_name"))
	rejected := s.logs.FilterMessage("Metric data points rejected").All()
	require.Len(t, rejected, 1)
	assert.Equal(t, int64(2), rejected[0].ContextMap()["data_points"])
	assert.Equal(t, "invalid_metric_name", rejected[0].ContextMap()["reason"])
	assert.Equal(t, " ", rejected[0].ContextMap()["metric"], "the first name rejected")

	run := map[string]any{"query": estest.TermQuery("attributes.run", s.id)["query"]}
	assert.Equal(t, 1, s.es.CountQuery(t, index, run))
	assert.Equal(t, 0, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}}),
		"no _ignored")
	hits := s.es.SearchNumbers(t, index, run)
	require.Len(t, hits, 1)
	assert.Equal(t, map[string]any{
		"a.": json.Number("0.5"), ".a": json.Number("1.5"), "a..b": json.Number("2.5"), "a. .b": json.Number("3.5"),
	}, hits[0]["metrics"])
	types := fieldTypes(t, s.es, index, "metrics.*")
	for i, c := range dottedNames[:4] {
		field := "metrics." + c.name
		assert.Equal(t, "double", types[field], "%q", c.name)
		assert.Equal(t, "gauge", timeSeriesMetric(t, s.es, index, field), "%q", c.name)
		assert.InDelta(t, float64(i)+0.5, aggregate(t, s.es, index, "max", field, run), 0, "%q", c.name)
	}
}
