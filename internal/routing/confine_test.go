// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// TestConfineDotTargets checks that a name from elasticsearch.index that starts with "." is
// refused on every level unless dot targets are allowed, and that a static index that starts
// with "." is the configuration's choice and stays allowed.
func TestConfineDotTargets(t *testing.T) {
	names := []string{".kibana_1", ".myhidden", ".ds-logs-team-b-2026.12.06-000001", "..x"}
	for _, name := range names {
		for level, levelName := range levelNames {
			t.Run(name+"/"+levelName, func(t *testing.T) {
				levels := [3]pcommon.Map{pcommon.NewMap(), pcommon.NewMap(), pcommon.NewMap()}
				levels[level].PutStr(controlattr.Index, name)
				for _, logstash := range []bool{false, true} {
					r, err := NewRouter(Settings{LogstashFormat: logstash})
					require.NoError(t, err)
					_, err = r.Route(signal.Logs, levels[0], levels[1], levels[2], "", ts2023)
					var ne *TargetNotAllowedError
					require.ErrorAs(t, err, &ne)
					assert.Equal(t, name, ne.Name)
					assert.Equal(t, "attribute elasticsearch.index on "+levelName, ne.Source)
					assert.Contains(t, err.Error(), "dynamic_routing::allow_dot_targets")
					requireScopedRoute(t, Settings{LogstashFormat: logstash}, signal.Logs, levels[0], levels[1], levels[2], "", ts2023)

					allow := Settings{LogstashFormat: logstash, AllowDotTargets: true}
					r, err = NewRouter(allow)
					require.NoError(t, err)
					got, err := r.Route(signal.Logs, levels[0], levels[1], levels[2], "", ts2023)
					require.NoError(t, err)
					assert.True(t, strings.HasPrefix(got.Index, name), got.Index)
				}
			})
		}
	}

	r, err := NewRouter(Settings{StaticIndex: ".static"})
	require.NoError(t, err)
	got, err := r.Route(signal.Logs, attrs(t, map[string]any{controlattr.Index: ".kibana_1"}), pcommon.NewMap(), pcommon.NewMap(), "", 0)
	require.NoError(t, err)
	assert.Equal(t, index(".static"), got)
}

// TestConfineAllowedTargets checks dynamic_routing::allowed_targets: names routed from
// elasticsearch.index, from data_stream.* and from the defaults must match a pattern, and the
// error names the attributes and their levels.
func TestConfineAllowedTargets(t *testing.T) {
	teamA := Settings{AllowedTargets: []string{"logs-*.otel-team-a", "logs-app-*", "metrics-fixed.otel-*"}}
	tests := []struct {
		name       string
		settings   Settings
		typ        signal.Kind
		record     map[string]any
		scope      map[string]any
		resource   map[string]any
		want       Target
		wantSource string // "" when allowed
	}{
		{
			name: "namespace allowed", settings: teamA, typ: signal.Logs,
			resource: map[string]any{controlattr.DataStreamDataset: "nginx", controlattr.DataStreamNamespace: "team-a"},
			want:     dataStream(signal.Logs.String(), "nginx.otel", "team-a"),
		},
		{
			name: "other team's namespace", settings: teamA, typ: signal.Logs,
			record:     map[string]any{controlattr.DataStreamNamespace: "team-b"},
			resource:   map[string]any{controlattr.DataStreamDataset: "nginx", controlattr.DataStreamNamespace: "team-a"},
			wantSource: "attribute data_stream.dataset on the resource and attribute data_stream.namespace on the record",
		},
		{
			name: "defaults outside the list", settings: teamA, typ: signal.Logs,
			wantSource: "the default dataset and namespace",
		},
		{
			name: "elasticsearch.index allowed", settings: teamA, typ: signal.Logs,
			scope: map[string]any{controlattr.Index: "logs-app-checkout"},
			want:  index("logs-app-checkout"),
		},
		{
			name: "elasticsearch.index outside the list", settings: teamA, typ: signal.Logs,
			scope:      map[string]any{controlattr.Index: "logs-team-b"},
			wantSource: "attribute elasticsearch.index on the scope",
		},
		{
			name: "fixed dataset, any namespace", settings: teamA, typ: signal.Metrics,
			record: map[string]any{controlattr.DataStreamDataset: "fixed", controlattr.DataStreamNamespace: "anything"},
			want:   dataStream(signal.Metrics.String(), "fixed.otel", "anything"),
		},
		{
			name: "other dataset", settings: teamA, typ: signal.Metrics,
			record:     map[string]any{controlattr.DataStreamDataset: "other", controlattr.DataStreamNamespace: "anything"},
			wantSource: "attribute data_stream.dataset on the record and attribute data_stream.namespace on the record",
		},
		{
			name:     "dot name allowed by the flag still needs a pattern",
			settings: Settings{AllowDotTargets: true, AllowedTargets: []string{".team-a-*"}}, typ: signal.Logs,
			record: map[string]any{controlattr.Index: ".team-a-x"},
			want:   index(".team-a-x"),
		},
		{
			name:     "logstash date is not matched",
			settings: Settings{LogstashFormat: true, AllowedTargets: []string{"logs-app"}}, typ: signal.Logs,
			record: map[string]any{controlattr.Index: "logs-app"},
			want:   index("logs-app-2023.12.02"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			record, scope, resource := attrs(t, tt.record), attrs(t, tt.scope), attrs(t, tt.resource)
			r, err := NewRouter(tt.settings)
			require.NoError(t, err)
			got, err := r.Route(tt.typ, record, scope, resource, "", ts2023)
			if tt.wantSource == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
			} else {
				var ne *TargetNotAllowedError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, tt.wantSource, ne.Source)
				assert.Equal(t, reasonNotAllowed, ne.Reason)
			}
			requireScopedRoute(t, tt.settings, tt.typ, record, scope, resource, "", ts2023)
		})
	}
}

// TestConfineLogstashNameIsCheckedAgain checks that with logstash_format, a record whose
// elasticsearch.index is the dated index the previous record was routed to is checked against
// the patterns, not taken as allowed because it equals that index: "orders" is allowed,
// "orders-2023.12.02" is not (it would become orders-2023.12.02-2023.12.02).
func TestConfineLogstashNameIsCheckedAgain(t *testing.T) {
	set := Settings{LogstashFormat: true, AllowedTargets: []string{"orders"}}
	r, err := NewRouter(set)
	require.NoError(t, err)
	empty := pcommon.NewMap()
	got, err := r.Route(signal.Logs, attrs(t, map[string]any{controlattr.Index: "orders"}), empty, empty, "", ts2023)
	require.NoError(t, err)
	require.Equal(t, index("orders-2023.12.02"), got)

	_, err = r.Route(signal.Logs, attrs(t, map[string]any{controlattr.Index: got.Index}), empty, empty, "", ts2023)
	var ne *TargetNotAllowedError
	require.ErrorAs(t, err, &ne, "the dated name is not one the patterns allow")
	assert.Equal(t, "orders-2023.12.02", ne.Name)

	got, err = r.Route(signal.Logs, attrs(t, map[string]any{controlattr.Index: "orders"}), empty, empty, "", ts2023)
	require.NoError(t, err)
	assert.Equal(t, index("orders-2023.12.02"), got, "the allowed name still routes after a refusal")
}

func TestCompilePatterns(t *testing.T) {
	for _, bad := range [][]string{{""}, {"Logs-*"}, {"logs-*", "a b"}, {"logs/x"}} {
		_, err := NewRouter(Settings{AllowedTargets: bad})
		require.ErrorContains(t, err, "dynamic_routing::allowed_targets", "%q", bad)
	}
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"logs-*", "logs-a", true},
		{"logs-*", "logs-", true},
		{"logs-*", "log", false},
		{"*-team-a", "logs-x-team-a", true},
		{"*-team-a", "logs-x-team-ab", false},
		{"logs-*-team-a", "logs--team-a", true},
		{"logs-*-team-a", "logs-team-a", false}, // the prefix and suffix may not overlap
		{"a*b*c", "abbc", true},
		{"a*b*c", "acbc", true},
		{"a*b*c", "ac", false},
		{"*", "", true},
		{"exact", "exact", true},
		{"exact", "exact2", false},
		{"**", "x", true},
	}
	for _, tt := range tests {
		ps, err := compilePatterns([]string{tt.pattern})
		require.NoError(t, err)
		assert.Equal(t, tt.want, ps.match([]byte(tt.name)), "match(%q, %q)", tt.pattern, tt.name)
	}
}

// FuzzRouteConfined routes records whose routing attributes the fuzzer chooses, spread over the
// three levels, under confinement rules: no panic; every name sent is one Elasticsearch accepts,
// never starts with "." (dot targets not allowed) and matches the allowed patterns; every refusal
// is one of the two routing errors; and the scoped route agrees with the full one.
func FuzzRouteConfined(f *testing.F) {
	f.Add(".kibana_1", "nginx", "team-a", uint16(0), "logs-*-team-a")
	f.Add(".ds-logs-x-default-2026.12.06-000001", "", "", uint16(0x15), "")
	f.Add("", "nginx", "team-b", uint16(0x3c), "logs-*.otel-team-a")
	f.Add("logs-app-1", "", "", uint16(0x3e), "logs-app-*")
	f.Add("..", "a*b", "c:d", uint16(0x2a), "*")
	f.Fuzz(func(t *testing.T, index, dataset, namespace string, flags uint16, pattern string) {
		levels := [3]pcommon.Map{pcommon.NewMap(), pcommon.NewMap(), pcommon.NewMap()}
		put := func(shift uint, key, value string) {
			if l := flags >> shift & 3; l < 3 {
				levels[l].PutStr(key, value)
			}
		}
		put(0, controlattr.Index, index)
		put(2, controlattr.DataStreamDataset, dataset)
		put(4, controlattr.DataStreamNamespace, namespace)
		settings := Settings{LogstashFormat: flags&(1<<6) != 0}
		if flags&(1<<7) != 0 {
			settings.AllowedTargets = []string{pattern}
		}
		r, err := NewRouter(settings)
		if err != nil {
			require.ErrorContains(t, err, "dynamic_routing::allowed_targets")
			return
		}
		typ := [...]signal.Kind{signal.Logs, signal.Metrics, signal.Traces}[int(flags>>8)%3]
		got, err := r.Route(typ, levels[0], levels[1], levels[2], "", ts2023)
		if err != nil {
			_, invalid := errors.AsType[*InvalidIndexNameError](err)
			_, notAllowed := errors.AsType[*TargetNotAllowedError](err)
			require.True(t, invalid || notAllowed, "unexpected error %v", err)
			return
		}
		require.Empty(t, indexNameProblem(got.Index), "index %q", got.Index)
		require.NotEqual(t, byte('.'), got.Index[0], "index %q", got.Index)
		if settings.AllowedTargets != nil {
			base := got.Index
			if settings.LogstashFormat {
				base = base[:len(base)-len("-2023.12.02")]
			}
			ps, err := compilePatterns(settings.AllowedTargets)
			require.NoError(t, err)
			require.True(t, ps.match([]byte(base)), "index %q, pattern %q", got.Index, pattern)
		}
		requireScopedRoute(t, settings, typ, levels[0], levels[1], levels[2], "", ts2023)
	})
}
