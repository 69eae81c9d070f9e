// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter"
)

// confineCase is one target that a record's attributes ask for, on one level.
type confineCase struct {
	name  string
	attrs map[string]string // the routing attributes, put on the level under test
	// allowed: the target is allowed (allowed_targets, or no list and no dot); the record must
	// be written there.
	allowed bool
	// index is where an allowed record must be, or the name that must not exist (or not grow).
	index string
}

// confineRun is one signal in one mapping mode.
type confineRun struct {
	signal, mode string
	// perRecord is how many documents one record makes: a span with one event makes two in
	// the otel and ecs modes.
	perRecord int
}

var confineLevels = []string{"record", "scope", "resource"}

// confineRuns are the signals and the modes that write them (profiles are routed to fixed
// indices, never by attribute).
var confineRuns = []confineRun{
	{"logs", "otel", 1},
	{"logs", "ecs", 1},
	{"logs", "none", 1},
	{"logs", "raw", 1},
	{"logs", "bodymap", 1},
	{"traces", "otel", 2},
	{"traces", "ecs", 2},
	{"traces", "none", 1},
	{"traces", "raw", 1},
	{"metrics", "otel", 1},
	{"metrics", "ecs", 1},
}

// TestHostileRoutingAttributesAreConfined sends, for every signal, mapping mode and attribute
// level (record, scope, resource), records whose routing attributes point at .kibana_1, at a
// new dot name, at a data stream's backing index (.ds-…), at another team's data stream, at an
// index outside dynamic_routing::allowed_targets, and at allowed targets. Elasticsearch's
// indices are listed before and after: the refused records are written nowhere, the allowed
// ones exactly where they asked; each refusal is counted as target_not_allowed and logged with
// the attribute and its level. A second exporter without allowed_targets shows the default:
// dot names refused, every other name written as before; it has dead_letter on, and its
// refused documents are in the dead-letter index, naming their target.
func TestHostileRoutingAttributesAreConfined(t *testing.T) {
	s := newSuite(t)
	id := s.id
	kibanaBefore := indexDocs(t, s, ".kibana_1")
	before := confineIndices(t, s, id)
	t.Logf("indices before: .kibana_1: %s; matching %q: %v", describeDocs(kibanaBefore), id, before)

	cfg := s.config()
	cfg.Telemetry.LogFailedDocsInputRateLimit = 0 // every push's line, so each level's line is seen
	cfg.DynamicRouting.AllowedTargets = []string{id + "-allowed-*", "*-" + id + ".otel-team-a"}
	dot := func() []confineCase {
		return []confineCase{
			{name: "kibana", attrs: map[string]string{"elasticsearch.index": ".kibana_1"}, index: ".kibana_1"},
			{name: "new dot name", attrs: map[string]string{"elasticsearch.index": ".confine-" + id}, index: ".confine-" + id},
			{
				name:  "backing index",
				attrs: map[string]string{"elasticsearch.index": ".ds-logs-" + id + ".otel-team-b-2026.12.06-000001"},
				index: ".ds-logs-" + id + ".otel-team-b-2026.12.06-000001",
			},
		}
	}
	confined := func(signal, mode string) []confineCase {
		cases := dot()
		cases = append(cases,
			confineCase{name: "other team's data stream", attrs: map[string]string{"data_stream.dataset": id, "data_stream.namespace": "team-b"}},
			confineCase{name: "index outside the list", attrs: map[string]string{"elasticsearch.index": id + "-team-b"}, index: id + "-team-b"},
		)
		if signal != "metrics" {
			// Metric documents need their dynamic templates, which a plain index has not.
			cases = append(cases, confineCase{
				name: "allowed index", allowed: true,
				attrs: map[string]string{"elasticsearch.index": id + "-allowed-" + signal + "-" + mode},
				index: id + "-allowed-" + signal + "-" + mode,
			})
		}
		if mode == "otel" {
			// The otel mode's data streams have their templates; the other modes' have none
			// here for every signal, so their allowed target is an index (metrics in ecs mode
			// have no allowed target: their refusals are what is checked).
			cases = append(cases, confineCase{
				name: "allowed data stream", allowed: true,
				attrs: map[string]string{"data_stream.dataset": id, "data_stream.namespace": "team-a"},
				index: signal + "-" + id + ".otel-team-a",
			})
		}
		return cases
	}
	refusedConfined := runConfineCases(t, s, cfg, confined)

	// Without allowed_targets, only dot names are refused; with dead_letter on, the refused
	// documents are dead-lettered.
	open := s.config()
	open.Telemetry.LogFailedDocsInputRateLimit = 0
	deadLetters := id + "-dead-letters"
	open.DeadLetter.Enabled = true
	open.DeadLetter.Index = deadLetters
	openCases := func(signal, mode string) []confineCase {
		cases := dot()
		if signal != "metrics" {
			cases = append(cases, confineCase{
				name: "any other index", allowed: true,
				attrs: map[string]string{"elasticsearch.index": id + "-open-" + signal + "-" + mode},
				index: id + "-open-" + signal + "-" + mode,
			})
		}
		return cases
	}
	refusedOpen := runConfineCases(t, s, open, openCases)

	// The refusals: counted, and logged with the attribute's level.
	assert.Equal(t, refusedConfined, s.docsWithError(t, "rejected", "target_not_allowed"))
	assert.Equal(t, refusedOpen, s.docsWithError(t, "dead_lettered", ""))
	s.es.Refresh(t, deadLetters)
	letters := s.es.Search(t, deadLetters, map[string]any{"size": 1000})
	require.Len(t, letters, int(refusedOpen), "one dead letter per refused document")
	dotNames := []string{".kibana_1", ".confine-" + id, ".ds-logs-" + id + ".otel-team-b-2026.12.06-000001"}
	for _, l := range letters {
		assert.Contains(t, dotNames, l["index"], "the dead letter names the refused target")
		assert.Equal(t, map[string]any{"type": "target_not_allowed", "reason": l["error"].(map[string]any)["reason"]}, l["error"])
		assert.Contains(t, l["error"].(map[string]any)["reason"], "is not allowed: starts with \".\"")
		assert.Contains(t, l["document"], id, "the original document")
	}
	t.Logf("dead letters in %s: %d, e.g. %v", deadLetters, len(letters), letters[0])
	lines := s.logs.FilterMessage("Records rejected before sending").All()
	metricLines := s.logs.FilterMessage("Metric data points rejected").All()
	var logged []string
	for _, l := range slices.Concat(lines, metricLines) {
		fields := l.ContextMap()
		if fields["error.type"] == "target_not_allowed" || fields["reason"] == "target_not_allowed" {
			logged = append(logged, fmt.Sprint(fields["error"]))
		}
	}
	require.NotEmpty(t, logged)
	for _, level := range confineLevels {
		for _, want := range []string{
			`target ".kibana_1" from attribute elasticsearch.index on the ` + level + ` is not allowed: starts with "."`,
			"from attribute data_stream.dataset on the " + level + " and attribute data_stream.namespace on the " + level +
				" is not allowed: matches no pattern of dynamic_routing::allowed_targets",
		} {
			assert.True(t, slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, want) }), "no line says %q", want)
		}
	}
	t.Logf("refused: %d with allowed_targets, %d without; %d Warn lines name them, e.g. %q", refusedConfined, refusedOpen, len(logged), logged[0])

	// Nothing was written where it must not be.
	after := confineIndices(t, s, id)
	t.Logf("indices after: .kibana_1: %s; matching %q: %v", describeDocs(indexDocs(t, s, ".kibana_1")), id, after)
	assert.Equal(t, kibanaBefore, indexDocs(t, s, ".kibana_1"), ".kibana_1 is unchanged")
	for name := range after {
		allowed := strings.HasPrefix(name, id+"-allowed-") || strings.HasPrefix(name, id+"-open-") || name == deadLetters ||
			strings.HasPrefix(name, ".ds-logs-"+id+".otel-team-a-") || strings.HasPrefix(name, ".ds-traces-"+id+".otel-team-a-") ||
			strings.HasPrefix(name, ".ds-metrics-"+id+".otel-team-a-")
		assert.True(t, allowed, "index %s was written by a refused record", name)
	}
	assert.Empty(t, before, "the names of this run are new")
}

// runConfineCases sends, for every run and level, one push per case with one record whose
// level carries the case's attributes, through exporters built from cfg, and checks that each
// allowed record is in its index. It returns how many documents were refused.
func runConfineCases(t *testing.T, s *suite, c *elasticsearchexporter.Config, cases func(signal, mode string) []confineCase) int64 {
	t.Helper()
	logs, traces, metrics := s.logsExporter(t, c), s.tracesExporter(t, c), s.metricsExporter(t, c)
	var refused int64
	allowedDocs := map[string]int{}
	for _, run := range confineRuns {
		for _, level := range confineLevels {
			for _, tc := range cases(run.signal, run.mode) {
				ctx := context.Background()
				var err error
				switch run.signal {
				case "logs":
					err = logs.ConsumeLogs(ctx, confineLogs(s.id, run.mode, level, tc.attrs))
				case "traces":
					err = traces.ConsumeTraces(ctx, confineTraces(s.id, run.mode, level, tc.attrs))
				case "metrics":
					err = metrics.ConsumeMetrics(ctx, confineMetrics(s.id, run.mode, level, tc.attrs))
				}
				if tc.allowed {
					require.NoError(t, err, "%s %s %s %s", run.signal, run.mode, level, tc.name)
					if run.signal == "traces" && tc.index == "traces-"+s.id+".otel-team-a" {
						allowedDocs[tc.index]++
						allowedDocs["logs-"+s.id+".otel-team-a"] += run.perRecord - 1
					} else {
						allowedDocs[tc.index] += run.perRecord
					}
				} else {
					refused += int64(run.perRecord)
				}
			}
		}
	}
	for index, n := range allowedDocs {
		s.es.Refresh(t, index)
		assert.Equal(t, n, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"match_all": map[string]any{}}}), index)
	}
	return refused
}

// confineAttrs returns the attributes map of level among record, scope and resource.
func confineAttrs(level string, record, scope, resource pcommon.Map) pcommon.Map {
	switch level {
	case "record":
		return record
	case "scope":
		return scope
	}
	return resource
}

func putAll(m pcommon.Map, attrs map[string]string) {
	for k, v := range attrs {
		m.PutStr(k, v)
	}
}

func confineLogs(id, mode, level string, attrs map[string]string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "confine")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("confine")
	sl.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
	r := sl.LogRecords().AppendEmpty()
	r.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	if mode == "bodymap" {
		r.Body().SetEmptyMap().PutStr("run", id)
	} else {
		r.Body().SetStr("hostile " + id)
		r.Attributes().PutStr("run", id)
	}
	putAll(confineAttrs(level, r.Attributes(), sl.Scope().Attributes(), rl.Resource().Attributes()), attrs)
	return ld
}

func confineTraces(id, mode, level string, attrs map[string]string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "confine")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("confine")
	ss.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
	span := ss.Spans().AppendEmpty()
	span.SetTraceID(pcommon.TraceID{0xaa, 1})
	span.SetSpanID(pcommon.SpanID{0xbb, 1})
	span.SetName("GET /confine")
	now := time.Now()
	span.SetStartTimestamp(pcommon.NewTimestampFromTime(now))
	span.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Millisecond)))
	span.Attributes().PutStr("run", id)
	ev := span.Events().AppendEmpty()
	ev.SetName("exception")
	ev.SetTimestamp(pcommon.NewTimestampFromTime(now))
	ev.Attributes().PutStr("run", id)
	if level == "record" {
		putAll(span.Attributes(), attrs)
		putAll(ev.Attributes(), attrs)
	} else {
		putAll(confineAttrs(level, span.Attributes(), ss.Scope().Attributes(), rs.Resource().Attributes()), attrs)
	}
	return td
}

func confineMetrics(id, mode, level string, attrs map[string]string) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "confine")
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("confine")
	sm.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
	m := sm.Metrics().AppendEmpty()
	m.SetName("confine.requests")
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	dp.SetIntValue(1)
	dp.Attributes().PutStr("run", id)
	putAll(confineAttrs(level, dp.Attributes(), sm.Scope().Attributes(), rm.Resource().Attributes()), attrs)
	return md
}

// indexDocs returns the number of documents of index, or -1 when it does not exist.
func indexDocs(t *testing.T, s *suite, index string) int {
	t.Helper()
	status, body, err := s.es.Do(http.MethodGet, "/"+index+"/_count?expand_wildcards=all", nil)
	require.NoError(t, err)
	if status == http.StatusNotFound {
		return -1
	}
	require.Equal(t, http.StatusOK, status, "%s", body)
	var r struct {
		Count int `json:"count"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return r.Count
}

func describeDocs(n int) string {
	if n < 0 {
		return "does not exist"
	}
	return fmt.Sprintf("%d documents", n)
}

// confineIndices returns every index, hidden ones included, whose name holds id, with its
// document count.
func confineIndices(t *testing.T, s *suite, id string) map[string]int {
	t.Helper()
	body := s.es.MustDo(t, http.MethodGet, "/_cat/indices/*"+id+"*?expand_wildcards=all&format=json&h=index,docs.count", nil)
	var rows []struct {
		Index string `json:"index"`
		Docs  string `json:"docs.count"`
	}
	require.NoError(t, json.Unmarshal(body, &rows))
	out := map[string]int{}
	for _, r := range rows {
		var n int
		_, _ = fmt.Sscan(r.Docs, &n)
		out[r.Index] = n
	}
	return out
}
