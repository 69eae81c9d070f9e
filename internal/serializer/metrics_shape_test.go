// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
