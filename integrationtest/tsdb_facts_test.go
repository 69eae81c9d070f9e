// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// The tests of this file send hand-written bulk requests to the time series stand-in template
// (internal/estest/templates/metrics-otel.json) and pin down how the node answers: the facts
// that docs/dev/tsdb-facts.md records with the requests and answers behind them. They
// describe Elasticsearch, not the exporter; each one keeps to one or two data streams, since
// the archive cannot delete data streams.

// TestTSDBFactsStandInTemplate checks the properties of the stand-in that the archive can
// have: time series mode with the explicit routing path and no time bounds, stored _source,
// numeric and boolean attributes as passthrough dimensions that a term query finds by their
// bare names, and the substitutes of the histogram and summary field types.
func TestTSDBFactsStandInTemplate(t *testing.T) {
	s := newSuite(t)
	index := "metrics-" + s.id + ".otel-default"
	items := bulkCreate(t, s.es, index, bulkDoc{
		source: metricsDoc("h1", `"unit":"1",`+
			`"attributes":{"i":7,"d":1.5,"b":true,"s":"x","client.ip":"10.0.0.1"},`+
			`"scope":{"name":"sc","attributes":{"sa":"y"}},"resource":{"attributes":{"host.name":"web-1","host.arch":"amd64"}},`+
			`"metrics":{"g":5,"c":2.5,"h":{"counts":[3,1],"values":[0.5,1.5]},"sm":{"sum":9.0,"value_count":3}}`),
		templates: map[string]string{"metrics.g": "gauge_long", "metrics.c": "counter_double", "metrics.h": "histogram", "metrics.sm": "summary"},
	})
	require.Equal(t, http.StatusCreated, items[0].Status, "%+v", items[0])
	s.es.Refresh(t, index)

	settings := string(s.es.MustDo(t, http.MethodGet, "/"+index+"/_settings?include_defaults=true&filter_path=**.mode,**.routing_path,**.time_series.start_time,**.time_series.end_time", nil))
	assert.Contains(t, settings, `"mode":"time_series"`)
	assert.Contains(t, settings, `"routing_path":["_metric_names_hash","unit","attributes.*","scope.attributes.*","resource.attributes.*"]`)
	assert.Contains(t, settings, `"start_time":"-9999-01-01T00:00:00Z"`, "no lower time bound")
	assert.Contains(t, settings, `"end_time":"9999-12-31T23:59:59.999Z"`, "no upper time bound")
	assert.Contains(t, settings, `"source":{"mode":"stored"}`)

	types := fieldTypes(t, s.es, index, "*")
	for field, want := range map[string]string{
		"attributes.i": "long", "attributes.d": "float", "attributes.b": "boolean", "attributes.s": "keyword",
		"attributes.client.ip": "ip", "scope.attributes.sa": "keyword", "resource.attributes.host.name": "keyword",
		"metrics.g": "long", "metrics.c": "double",
		"metrics.h.counts": "long", "metrics.h.values": "double", "metrics.sm.sum": "double", "metrics.sm.value_count": "long",
		"host.architecture": "alias", "start_timestamp": "date_nanos", "_metric_names_hash": "keyword", "unit": "keyword",
	} {
		assert.Equal(t, want, types[field], "type of %s", field)
	}
	dims := string(s.es.MustDo(t, http.MethodGet, "/"+index+"/_mapping/field/attributes.*", nil))
	assert.Equal(t, 5, strings.Count(dims, `"time_series_dimension":true`), "each attribute is a dimension: %s", dims)

	for _, q := range []map[string]any{
		{"term": map[string]any{"i": 7}},
		{"term": map[string]any{"d": 1.5}},
		{"term": map[string]any{"b": true}},
		{"term": map[string]any{"s": "x"}},
		{"term": map[string]any{"client.ip": "10.0.0.1"}},
		{"term": map[string]any{"sa": "y"}},
		{"term": map[string]any{"host.name": "web-1"}},
		{"term": map[string]any{"host.architecture": "amd64"}},
		{"term": map[string]any{"g": 5}},
		{"term": map[string]any{"metrics.h.values": 1.5}},
		{"term": map[string]any{"metrics.h.counts": 3}},
		{"term": map[string]any{"metrics.sm.sum": 9.0}},
		{"term": map[string]any{"metrics.sm.value_count": 3}},
	} {
		assert.Equal(t, 1, s.es.CountQuery(t, index, map[string]any{"query": q}), "%v", q)
	}
	assert.Equal(t, 0, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}}))
}

// TestTSDBFactsFieldNames sends one metric per name, inside the passthrough metrics object
// (as the otel mode writes metrics) and at the document root (as the ecs mode does; the root
// is an ordinary object), and records which names Elasticsearch refuses and how.
func TestTSDBFactsFieldNames(t *testing.T) {
	s := newSuite(t)
	type refusal struct {
		status int
		reason string
	}
	ok := refusal{status: http.StatusCreated}
	bad := func(reason string) refusal { return refusal{status: http.StatusBadRequest, reason: reason} }

	t.Run("metrics passthrough", func(t *testing.T) {
		index := "metrics-" + s.id + "-names.otel-default"
		cases := []struct {
			name string
			want refusal
		}{
			{"", bad("failed to parse: Field name cannot be an empty string")},
			{" ", bad("Field name cannot contain only whitespace: [metrics. ]")},
			{"\t", bad("Field name cannot contain only whitespace: [metrics.\t]")},
			{".a", ok},
			{"b.", ok},
			{"c..d", ok},
			{"e. .f", ok},
			{"g. ", ok},
			{" .h", ok},
			{".", ok},
			{"..", ok},
			{" i", ok},
			{"j.k ", ok},
			{"l", ok},
			{"l.m", ok}, // a longer name below a leaf: both are leaves
			{"_id", ok},
			{"@timestamp", ok},
		}
		for i, c := range cases {
			name, _ := json.Marshal(c.name)
			items := bulkCreate(t, s.es, index, bulkDoc{
				source:    metricsDoc(fmt.Sprintf("n%d", i), `"metrics":{`+string(name)+`:1.5}`),
				templates: map[string]string{"metrics." + c.name: "gauge_double"},
			})
			it := items[0]
			assert.Equal(t, c.want.status, it.Status, "%q: %+v", c.name, it)
			if c.want.status != http.StatusCreated {
				assert.Equal(t, "document_parsing_exception", it.Error.Type, "%q", c.name)
				assert.Contains(t, it.Error.Reason, c.want.reason, "%q", c.name)
			}
		}
		// Each accepted name is a leaf of its own, found by its full name.
		s.es.Refresh(t, index)
		for _, c := range cases {
			if c.want.status == http.StatusCreated {
				assert.Equal(t, 1, s.es.CountQuery(t, index, estest.TermQuery("metrics."+c.name, 1.5)), "%q", c.name)
			}
		}
	})

	// The ecs mode writes metrics at the root, an ordinary object with subobjects, where a
	// dotted name is expanded into objects. The stand-in's root is dynamic: false, which would
	// hide what a name is stored as; this data stream has a dynamic root and one named
	// template, as the ecs mode's metrics@mappings has.
	t.Run("document root", func(t *testing.T) {
		name := s.id + "-rootnames"
		s.putIndexTemplate(t, name, dataStreamTemplate("metrics-"+name+"-*", map[string]any{"dynamic_templates": []any{
			map[string]any{"double_metrics": map[string]any{"mapping": map[string]any{"type": "double"}}},
		}}))
		index := "metrics-" + name + "-default"
		cases := []struct {
			name string
			want refusal
		}{
			{"", bad("failed to parse: field name cannot be an empty string")},
			{" ", bad("Field name cannot contain only whitespace: [ ]")},
			{".a", bad("failed to parse: field name cannot contain only whitespace: ['.a']")},
			{"c..d", bad("failed to parse: field name cannot contain only whitespace: ['c..d']")},
			{"e. .f", bad("failed to parse: field name starting or ending with a [.] makes object resolution ambiguous: [e. .f]")},
			{"g. ", bad("failed to parse: field name starting or ending with a [.] makes object resolution ambiguous: [g. ]")},
			{" .h", bad("failed to parse: field name starting or ending with a [.] makes object resolution ambiguous: [ .h]")},
			{".", bad("failed to parse: field name cannot contain only dots")},
			{"..", bad("failed to parse: field name cannot contain only dots")},
			{"b.", ok},   // stored as field b, see below
			{"i.j.", ok}, // stored as field i.j
			{" k", ok},
			{"l.m", ok},
			{"l", bad("object mapping for [l] tried to parse field [l] as object, but found a concrete value")},
		}
		for _, c := range cases {
			key, _ := json.Marshal(c.name)
			items := bulkCreate(t, s.es, index, bulkDoc{
				source:    `{"@timestamp":1700000000000,` + string(key) + `:1.5}`,
				templates: map[string]string{c.name: "double_metrics"},
			})
			it := items[0]
			assert.Equal(t, c.want.status, it.Status, "%q: %+v", c.name, it)
			if c.want.status != http.StatusCreated {
				assert.Equal(t, "document_parsing_exception", it.Error.Type, "%q", c.name)
				assert.Contains(t, it.Error.Reason, c.want.reason, "%q", c.name)
			}
		}
		// A trailing dot is dropped without a word, and with it the dynamic template the bulk
		// item named for the name as written: b. and i.j. become float fields b and i.j (the
		// default for a JSON double), where the others are double.
		types := fieldTypes(t, s.es, index, "*")
		assert.Equal(t, "float", types["b"])
		assert.Equal(t, "float", types["i.j"])
		assert.Equal(t, "double", types[" k"])
		assert.Equal(t, "double", types["l.m"])
	})
}

// TestTSDBFactsIdentity sends, for each candidate, two documents that differ only in the value
// of one data point attribute (a dimension), with the same @timestamp and _metric_names_hash,
// and records whether the second collides with the first (409 version_conflict_engine_exception:
// the same _id). Each candidate has an attribute of its own, so the type the first document
// maps it to is that of the candidate's first value.
func TestTSDBFactsIdentity(t *testing.T) {
	s := newSuite(t)
	index := "metrics-" + s.id + "-identity.otel-default"
	const (
		collide   = http.StatusConflict
		different = http.StatusCreated
	)
	long := strings.Repeat("a", 1100)
	cases := []struct {
		name   string
		first  string // JSON value of the attribute; "" leaves the attribute out
		second string
		want   int // status of the second document
	}{
		{"int 1 / double 1.0", `1`, `1.0`, different},
		{"double 1.0 / int 1", `1.0`, `1`, different},
		{"int 1 / string \"1\"", `1`, `"1"`, collide},
		{"string \"1\" / int 1", `"1"`, `1`, collide},
		{"string \"1.0\" / double 1.0", `"1.0"`, `1.0`, collide},
		{"bool true / string \"true\"", `true`, `"true"`, collide},
		{"string \"true\" / bool true", `"true"`, `true`, collide},
		{"bool false / string \"false\"", `false`, `"false"`, collide},
		{"empty string / missing", `""`, ``, different},
		{"missing / empty string", ``, `""`, different},
		{"[1] / 1", `[1]`, `1`, collide},
		{"\"a\" / [\"a\"]", `"a"`, `["a"]`, collide},
		{"[\"a\",\"b\"] / [\"b\",\"a\"]", `["a","b"]`, `["b","a"]`, different},
		{"[\"a\",\"b\"] / [\"a\",\"b\",\"a\"]", `["a","b"]`, `["a","b","a"]`, different},
		{"[] / missing", `[]`, ``, collide},
		{"null (NaN, ±Inf) / missing", `null`, ``, collide},
		{"0.0 / -0.0", `0.0`, `-0.0`, different},
		{"1 / 1e0", `1`, `1e0`, different},
		{"1.0 / 1.00", `1.0`, `1.00`, different},
		{"0.1 / 0.10000000000000002 (one float32)", `0.1`, `0.10000000000000002`, different},
		{"int 1 / double 1.5 (stored as 1 in the long field)", `1`, `1.5`, different},
		{"long strings differing after ignore_above", `"` + long + `"`, `"` + long[:1099] + `b"`, different},
		{"map as JSON string / the same string", `"{\"k\":1}"`, `"{\"k\":1}"`, collide},
	}
	for i, c := range cases {
		attr := func(v string) string {
			if v == "" {
				return ""
			}
			return fmt.Sprintf(`"attributes":{"x%d":%s}`, i, v)
		}
		hash := fmt.Sprintf("id%d", i)
		items := bulkCreate(t, s.es, index,
			bulkDoc{source: metricsDoc(hash, attr(c.first))},
			bulkDoc{source: metricsDoc(hash, attr(c.second))},
		)
		require.Equal(t, http.StatusCreated, items[0].Status, "%s: first: %+v", c.name, items[0])
		assert.Equal(t, c.want, items[1].Status, "%s: second: %+v", c.name, items[1])
		if items[1].Status == collide {
			assert.Equal(t, "version_conflict_engine_exception", items[1].Error.Type, c.name)
			assert.Contains(t, items[1].Error.Reason, "version conflict, document already exists", c.name)
			assert.Equal(t, items[0].ID, items[1].ID, c.name)
		}
	}

	// An array holding null, and an array of arrays, refuse the whole document: the _id is
	// computed from the routing path values before the document is parsed.
	for i, v := range []string{`[1.0,null]`, `["a",null]`, `[[1],[2]]`} {
		items := bulkCreate(t, s.es, index, bulkDoc{source: metricsDoc(fmt.Sprintf("arr%d", i), `"attributes":{"arr":`+v+`}`)})
		assert.Equal(t, http.StatusBadRequest, items[0].Status, "%s: %+v", v, items[0])
		assert.Equal(t, "illegal_argument_exception", items[0].Error.Type, v)
		assert.Contains(t, items[0].Error.Reason, "Error extracting routing: Failed to parse object: expecting value token but found [", v)
	}
	// A document without any routing path field is refused too.
	items := bulkCreate(t, s.es, index, bulkDoc{source: `{"@timestamp":1700000000000,"metrics":{"m":1.5}}`, templates: map[string]string{"metrics.m": "gauge_double"}})
	assert.Equal(t, http.StatusBadRequest, items[0].Status)
	assert.Equal(t, "illegal_argument_exception", items[0].Error.Type)
	assert.Equal(t, "Error extracting routing: source didn't contain any routing fields", items[0].Error.Reason)
}

// TestTSDBFactsNullAndNonFinite records what the stand-in's ignore_malformed does with null and
// non-finite numbers inside metrics: which are dropped without a trace (201, the field absent
// from the index and no _ignored entry) and which leave an _ignored entry.
func TestTSDBFactsNullAndNonFinite(t *testing.T) {
	s := newSuite(t)
	index := "metrics-" + s.id + "-nulls.otel-default"
	cases := []struct {
		name     string
		template string
		value    string
		ignored  string // the _ignored entry, or "" when there is none
		indexed  int    // number of values of the field that a query finds
	}{
		{"gauge_double null", "gauge_double", `null`, "", 0},
		{"gauge_double [1.0,null]", "gauge_double", `[1.0,null]`, "", 1},
		{"gauge_double \"NaN\"", "gauge_double", `"NaN"`, "metrics.%s", 0},
		{"gauge_double \"Infinity\"", "gauge_double", `"Infinity"`, "metrics.%s", 0},
		{"gauge_double 1e309 (overflows to Infinity)", "gauge_double", `1e309`, "metrics.%s", 0},
		{"counter_long null", "counter_long", `null`, "", 0},
		{"counter_long 1e19 (above the long range)", "counter_long", `10000000000000000000`, "metrics.%s", 0},
		{"counter_long 1.5 (truncated to 1, no trace)", "counter_long", `1.5`, "", 1},
		{"summary sum null", "summary", `{"sum":null,"value_count":3}`, "", 1},
		{"summary sum \"NaN\"", "summary", `{"sum":"NaN","value_count":3}`, "metrics.%s.sum", 1},
		{"histogram value null", "histogram", `{"counts":[1,2],"values":[null,2.5]}`, "", 3},
		{"histogram value \"Infinity\"", "histogram", `{"counts":[1],"values":["Infinity"]}`, "metrics.%s.values", 1},
	}
	for i, c := range cases {
		name := fmt.Sprintf("v%d", i)
		hash := "nf" + name
		items := bulkCreate(t, s.es, index, bulkDoc{
			source:    metricsDoc(hash, `"metrics":{"ok":1.0,"`+name+`":`+c.value+`}`),
			templates: map[string]string{"metrics.ok": "gauge_double", "metrics." + name: c.template},
		})
		require.Equal(t, http.StatusCreated, items[0].Status, "%s: %+v", c.name, items[0])
	}
	s.es.Refresh(t, index)
	for i, c := range cases {
		name := fmt.Sprintf("v%d", i)
		ignored := ignoredFields(t, s.es, index, "nf"+name)
		if c.ignored == "" {
			assert.Empty(t, ignored, c.name)
		} else {
			assert.Equal(t, []string{fmt.Sprintf(c.ignored, name)}, ignored, c.name)
		}
		// Values found: the number of documents with the field, or for the histogram and
		// summary substitutes the values of their sub-fields.
		found := s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"bool": map[string]any{"filter": []any{
			estest.TermQuery("_metric_names_hash", "nf"+name)["query"],
			map[string]any{"exists": map[string]any{"field": "metrics." + name}},
		}}}})
		if c.template == "histogram" || c.template == "summary" {
			found = 0
			for _, sub := range []string{"counts", "values", "sum", "value_count"} {
				found += valueCount(t, s.es, index, "nf"+name, "metrics."+name+"."+sub)
			}
		}
		assert.Equal(t, c.indexed, found, "%s: values indexed", c.name)
	}
}

// valueCount returns how many values field has in the documents of index whose names hash is
// hash (a value_count aggregation over doc values).
func valueCount(t *testing.T, es *estest.Client, index, hash, field string) int {
	t.Helper()
	resp := es.MustDo(t, http.MethodPost, "/"+index+"/_search", map[string]any{
		"size":  0,
		"query": estest.TermQuery("_metric_names_hash", hash)["query"],
		"aggs":  map[string]any{"n": map[string]any{"value_count": map[string]any{"field": field}}},
	})
	var r struct {
		Aggregations struct {
			N struct {
				Value int `json:"value"`
			} `json:"n"`
		} `json:"aggregations"`
	}
	require.NoError(t, json.Unmarshal(resp, &r), "%s", resp)
	return r.Aggregations.N.Value
}

// TestTSDBFactsOutsideTimeWindow shows the answer of a real node to a document outside the
// time bounds of a time series data stream's backing indices: the archive enforces bounds that
// the template sets (it only lacks the module that sets and extends them).
func TestTSDBFactsOutsideTimeWindow(t *testing.T) {
	s := newSuite(t)
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	end := start.Add(2 * time.Hour)
	s.tsdbWindowTemplate(t, start, end)
	index := "metrics-" + s.id + ".otel-default"
	doc := func(ts time.Time) bulkDoc {
		return bulkDoc{
			source:    fmt.Sprintf(`{"@timestamp":%d,"_metric_names_hash":"h","metrics":{"m":1.5}}`, ts.UnixMilli()),
			templates: map[string]string{"metrics.m": "gauge_double"},
		}
	}
	old := time.UnixMilli(1_700_000_000_000).UTC()
	items := bulkCreate(t, s.es, index, doc(time.Now()), doc(old), doc(end))
	assert.Equal(t, http.StatusCreated, items[0].Status, "%+v", items[0])
	bounds := "[[" + start.UTC().Format(time.RFC3339) + "," + end.UTC().Format(time.RFC3339) + "]]"
	for i, ts := range map[int]time.Time{1: old, 2: end} {
		it := items[i]
		assert.Equal(t, http.StatusBadRequest, it.Status, "%+v", it)
		assert.Equal(t, "timestamp_error", it.Error.Type)
		assert.Equal(t, "the document timestamp ["+ts.UTC().Format("2006-01-02T15:04:05.000Z")+
			"] is outside of ranges of currently writable indices "+bounds, it.Error.Reason)
		assert.Equal(t, index, it.Index, "the item names the data stream, not a backing index")
		assert.Empty(t, it.ID)
	}
}
