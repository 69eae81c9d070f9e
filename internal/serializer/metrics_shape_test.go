// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Elasticsearch archive the integration suite runs has no histogram or
// aggregate_metric_double field types, so the shape of what the serializer writes for them is
// checked here, on every metric document of the tests, of FuzzEncodeMetrics and of the golden
// files: what Elasticsearch's OTel templates (metrics-otel@mappings and the dynamic templates
// the bulk items name) index without dropping it as malformed.

// otelRootFields are the only fields an otel metric document holds at its root: the root of
// Elasticsearch's OTel templates is dynamic: false, so any other field would be kept in
// _source but not indexed.
var otelRootFields = map[string]bool{
	"@timestamp": true, "start_timestamp": true, "unit": true, "data_stream": true, "attributes": true,
	"resource": true, "scope": true, "metrics": true, "_doc_count": true, "_metric_names_hash": true,
}

// checkMetricShapes checks a metric document of the given mode and its dynamic templates:
// every template names a value the document holds; every histogram value (template histogram,
// or histogram_metrics in ecs mode) has counts and values of the same length, the values
// finite and strictly increasing, the counts non-negative longs; every summary value
// (summary, summary_metrics: summaries and the aggregate_metric_double hint) has exactly a
// finite sum and a non-negative long value_count; every gauge or counter is a finite number,
// a long for the _long templates. In otel mode also: no field at the root but otelRootFields,
// and no null and no number beyond float64 anywhere in metrics.
func checkMetricShapes(t testing.TB, mode Mode, doc []byte, templates []DynamicTemplate) {
	t.Helper()
	if err := metricShapeError(mode, doc, templates); err != nil {
		t.Errorf("%v: %s", err, doc)
	}
}

func metricShapeError(mode Mode, doc []byte, templates []DynamicTemplate) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if mode != ModeECS {
		for k := range root {
			if !otelRootFields[k] {
				return fmt.Errorf("field %q at the root, which Elasticsearch's OTel templates do not index", k)
			}
		}
		if err := finiteTree("metrics", root["metrics"]); err != nil {
			return err
		}
	}
	for _, tpl := range templates {
		v, ok := lookupPath(root, tpl.Path)
		if !ok {
			return fmt.Errorf("dynamic template for %q, which the document does not hold", tpl.Path)
		}
		var err error
		switch tpl.Template {
		case "histogram", "histogram_metrics":
			err = histogramShape(v)
		case "summary", "summary_metrics":
			err = summaryShape(v)
		case "counter_long", "gauge_long", "long_metrics":
			_, err = longValue(v)
		default:
			_, err = finiteNumber(v)
		}
		if err != nil {
			return fmt.Errorf("%s (%s): %w", tpl.Path, tpl.Template, err)
		}
	}
	return nil
}

// lookupPath finds the value at a dotted path whose names may hold dots themselves.
func lookupPath(obj map[string]any, path string) (any, bool) {
	if v, ok := obj[path]; ok {
		return v, true
	}
	for k, v := range obj {
		if rest, ok := strings.CutPrefix(path, k+"."); ok {
			if inner, isObj := v.(map[string]any); isObj {
				if found, ok := lookupPath(inner, rest); ok {
					return found, true
				}
			}
		}
	}
	return nil, false
}

// finiteTree fails on a null or a number beyond float64 at any depth of v.
func finiteTree(path string, v any) error {
	switch v := v.(type) {
	case nil:
		return fmt.Errorf("%s is null", path)
	case json.Number:
		_, err := finiteNumber(v)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case map[string]any:
		for k, e := range v {
			if err := finiteTree(path+"."+k, e); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := finiteTree(path+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	}
	return nil
}

func finiteNumber(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s is not a finite double", n)
	}
	return f, nil
}

// longValue returns v when it is an integer a long holds.
func longValue(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a long", n)
	}
	return i, nil
}

func histogramShape(v any) error {
	h, ok := v.(map[string]any)
	if !ok || len(h) != 2 {
		return fmt.Errorf("%v is not {counts, values}", v)
	}
	counts, okc := h["counts"].([]any)
	values, okv := h["values"].([]any)
	if !okc || !okv {
		return fmt.Errorf("%v is not {counts, values} with two arrays", v)
	}
	if len(counts) != len(values) {
		return fmt.Errorf("%d counts for %d values", len(counts), len(values))
	}
	prev := math.Inf(-1)
	for i := range values {
		c, err := longValue(counts[i])
		if err != nil || c < 0 {
			return fmt.Errorf("count %d: %v is not a non-negative long", i, counts[i])
		}
		f, err := finiteNumber(values[i])
		if err != nil {
			return fmt.Errorf("value %d: %w", i, err)
		}
		if i > 0 && !(f > prev) {
			return fmt.Errorf("value %d: %v does not follow %v upward", i, f, prev)
		}
		prev = f
	}
	return nil
}

func summaryShape(v any) error {
	s, ok := v.(map[string]any)
	if !ok || len(s) != 2 {
		return fmt.Errorf("%v is not {sum, value_count}", v)
	}
	if _, err := finiteNumber(s["sum"]); err != nil {
		return fmt.Errorf("sum: %w", err)
	}
	if n, err := longValue(s["value_count"]); err != nil || n < 0 {
		return fmt.Errorf("value_count %v is not a non-negative long", s["value_count"])
	}
	return nil
}

// TestMetricShapeCheck makes sure checkMetricShapes catches each shape Elasticsearch would
// drop or refuse.
func TestMetricShapeCheck(t *testing.T) {
	h := []DynamicTemplate{{Path: "metrics.h", Template: "histogram"}}
	s := []DynamicTemplate{{Path: "metrics.s", Template: "summary"}}
	tests := []struct {
		name      string
		mode      Mode
		doc       string
		templates []DynamicTemplate
		wantErr   string // "" for a document that passes
	}{
		{name: "good histogram", doc: `{"metrics":{"h":{"counts":[1,2],"values":[-1.0,2.5]}}}`, templates: h},
		{name: "empty histogram", doc: `{"metrics":{"h":{"counts":[],"values":[]}}}`, templates: h},
		{name: "lengths differ", doc: `{"metrics":{"h":{"counts":[1],"values":[1.0,2.0]}}}`, templates: h, wantErr: "1 counts for 2 values"},
		{name: "values equal", doc: `{"metrics":{"h":{"counts":[1,1],"values":[1.0,1.0]}}}`, templates: h, wantErr: "upward"},
		{name: "values decrease", doc: `{"metrics":{"h":{"counts":[1,1],"values":[2.0,1.0]}}}`, templates: h, wantErr: "upward"},
		{name: "null value", doc: `{"metrics":{"h":{"counts":[1],"values":[null]}}}`, templates: h, wantErr: "null"},
		{name: "number beyond float64", doc: `{"metrics":{"h":{"counts":[1],"values":[1e400]}}}`, templates: h, wantErr: "finite"},
		{name: "negative count", doc: `{"metrics":{"h":{"counts":[-1],"values":[1.0]}}}`, templates: h, wantErr: "non-negative"},
		{name: "fractional count", doc: `{"metrics":{"h":{"counts":[1.5],"values":[1.0]}}}`, templates: h, wantErr: "non-negative"},
		{name: "good summary", doc: `{"metrics":{"s":{"sum":1.5,"value_count":3}}}`, templates: s},
		{name: "null sum", doc: `{"metrics":{"s":{"sum":null,"value_count":3}}}`, templates: s, wantErr: "null"},
		{name: "no sum", mode: ModeECS, doc: `{"s":{"value_count":3}}`, templates: []DynamicTemplate{{Path: "s", Template: "summary_metrics"}}, wantErr: "not {sum, value_count}"},
		{name: "negative value_count", doc: `{"metrics":{"s":{"sum":1.0,"value_count":-3}}}`, templates: s, wantErr: "non-negative"},
		{name: "field at the root", doc: `{"metrics":{"g":1},"summary_quantiles":{"s":{"q0_5":1.0}}}`, wantErr: `"summary_quantiles" at the root`},
		{name: "template without a value", doc: `{"metrics":{"g":1}}`, templates: h, wantErr: "does not hold"},
		{name: "fractional long", doc: `{"metrics":{"g":1.5}}`, templates: []DynamicTemplate{{Path: "metrics.g", Template: "gauge_long"}}, wantErr: "not a long"},
		{name: "dotted names", doc: `{"metrics":{"a.b":{"sum":1.0,"value_count":1},"a.b_quantiles":{"q0_5":1.0}}}`, templates: []DynamicTemplate{
			{Path: "metrics.a.b", Template: "summary"}, {Path: "metrics.a.b_quantiles.q0_5", Template: "gauge_double"},
		}},
		{name: "ecs root fields are free", mode: ModeECS, doc: `{"host":{"name":"x"},"summary_quantiles":{"s":{"q0_5":1.0}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := metricShapeError(tt.mode, []byte(tt.doc), tt.templates)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestGoldenMetricShapes runs checkMetricShapes on every metric document of the golden files
// (written by the root package's golden tests, and by hand under handwritten/).
func TestGoldenMetricShapes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*", "*.ndjson"))
	require.NoError(t, err)
	sort.Strings(files)
	checked := 0
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasPrefix(base, "metric") && filepath.Base(filepath.Dir(f)) != "metrics" {
			continue
		}
		mode := ModeOTel
		if strings.Contains(base, ".ecs.") {
			mode = ModeECS
		}
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<24)
		var action []byte
		for line := 1; sc.Scan(); line++ {
			if line%2 == 1 {
				action = bytes.Clone(sc.Bytes())
				continue
			}
			var a map[string]struct {
				DynamicTemplates map[string]string `json:"dynamic_templates"`
			}
			require.NoError(t, json.Unmarshal(action, &a), "%s:%d", f, line-1)
			var templates []DynamicTemplate
			for _, item := range a {
				for p, tpl := range item.DynamicTemplates {
					templates = append(templates, DynamicTemplate{Path: p, Template: tpl})
				}
			}
			if err := metricShapeError(mode, sc.Bytes(), templates); err != nil {
				t.Errorf("%s:%d: %v", f, line, err)
			}
			checked++
		}
		require.NoError(t, sc.Err())
	}
	require.Positive(t, checked, "no golden metric document found")
}
