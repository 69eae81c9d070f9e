// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// putSpanTemplate puts a template for the data stream of this test's ecs spans,
// traces-generic-<namespace>.
func (s *suite) putSpanTemplate(t *testing.T) {
	t.Helper()
	s.putIndexTemplate(t, s.id+"-traces", dataStreamTemplate("traces-generic-"+s.id, map[string]any{
		"properties": map[string]any{"run": map[string]any{"type": "keyword"}},
	}))
}

// ecsSpanEventTraces returns one span of the service s.id, in the ecs mode (scope attribute
// elastic.mapping.mode) with data_stream.namespace s.id on the scope, and two events: a plain
// one with elasticsearch.document_id and an exception with error.grouping_name, which Elastic
// APM's error templates compute themselves.
func (s *suite) ecsSpanEventTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", s.id)
	rs.Resource().Attributes().PutStr("telemetry.sdk.language", "go")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().Attributes().PutStr("elastic.mapping.mode", "ecs")
	ss.Scope().Attributes().PutStr("data_stream.namespace", s.id)
	span := ss.Spans().AppendEmpty()
	span.SetTraceID(pcommon.TraceID{0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	span.SetSpanID(pcommon.SpanID{0xbb, 1, 2, 3, 4, 5, 6, 7})
	span.SetName("POST /orders")
	span.SetStartTimestamp(1_700_000_000_000_000_000)
	span.SetEndTimestamp(1_700_000_000_250_000_000)
	span.Attributes().PutStr("run", s.id)
	miss := span.Events().AppendEmpty()
	miss.SetName("cache miss")
	miss.SetTimestamp(1_700_000_000_100_000_000)
	miss.Attributes().PutStr("run", s.id)
	miss.Attributes().PutStr("elasticsearch.document_id", s.id+"-miss")
	ex := span.Events().AppendEmpty()
	ex.SetName("exception")
	ex.SetTimestamp(1_700_000_000_200_000_000)
	ex.Attributes().PutStr("run", s.id)
	ex.Attributes().PutStr("exception.type", "PaymentError")
	ex.Attributes().PutStr("exception.message", "card declined")
	ex.Attributes().PutStr("error.grouping_name", "card declined")
	return td
}

// installAPMStandIns puts, unless the node has Elastic APM's built-in templates (the apm-data
// module, which the integ-test-zip archive lacks with the constant_keyword type and the
// painless scripts they use), stand-ins for logs-apm.error@template and logs-apm.app@template
// limited to this test's namespace: data streams with dynamic mappings and @timestamp as
// date_nanos.
func (s *suite) installAPMStandIns(t *testing.T) {
	t.Helper()
	for _, ds := range []struct{ builtin, pattern, name string }{
		{"logs-apm.error@template", "logs-apm.error-" + s.id, "error"},
		{"logs-apm.app@template", "logs-apm.app.*-" + s.id, "app"},
	} {
		if status, _, err := s.es.Do(http.MethodGet, "/_index_template/"+ds.builtin, nil); err == nil && status == http.StatusOK {
			continue
		}
		s.putIndexTemplate(t, s.id+"-"+ds.name, dataStreamTemplate(ds.pattern, map[string]any{
			"properties": map[string]any{
				"@timestamp": map[string]any{"type": "date_nanos"},
				"run":        map[string]any{"type": "keyword"},
			},
		}))
	}
}

// With mapping::ecs_span_events_to_logs, span events of the ecs mode land in Elastic APM's data
// streams on the node: the exception in logs-apm.error-<namespace> without error.grouping_name,
// the plain event in logs-apm.app.<service>-<namespace> with its elasticsearch.document_id as
// _id (traces_dynamic_id).
func TestECSSpanEventsToAPMDataStreams(t *testing.T) {
	s := newSuite(t)
	s.putSpanTemplate(t)
	s.installAPMStandIns(t)
	cfg := s.config()
	cfg.Mapping.ECSSpanEventsToLogs = true
	cfg.TracesDynamicID.Enabled = true
	exp := s.tracesExporter(t, cfg)
	require.NoError(t, exp.ConsumeTraces(context.Background(), s.ecsSpanEventTraces()))
	assert.Equal(t, int64(3), s.docs(t, "indexed"))

	errorsIndex := "logs-apm.error-" + s.id
	errs := s.search(t, errorsIndex, s.id)
	require.Len(t, errs, 1)
	e := errs[0]
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "apm.error", "namespace": s.id}, e["data_stream"])
	assert.Equal(t, map[string]any{"message": "card declined", "type": "PaymentError"}, e["error"], "no error.grouping_name")
	assert.Equal(t, "exception", get(e, "event.action"))
	assert.Equal(t, "bb01020304050607", get(e, "span.id"))
	assert.Equal(t, "aa0102030405060708090a0b0c0d0e0f", get(e, "trace.id"))
	assert.Equal(t, s.id, get(e, "service.name"))
	assert.Equal(t, "2023-11-14T22:13:20.200000000Z", e["@timestamp"])

	appIndex := "logs-apm.app." + s.id + "-" + s.id
	logs := s.search(t, appIndex, s.id)
	require.Len(t, logs, 1)
	l := logs[0]
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "apm.app." + s.id, "namespace": s.id}, l["data_stream"])
	assert.Equal(t, "cache miss", get(l, "event.action"))
	assert.Equal(t, 1, s.es.CountQuery(t, appIndex, estest.TermQuery("_id", s.id+"-miss")), "the event's elasticsearch.document_id is its _id")

	spans := s.search(t, "traces-generic-"+s.id, s.id)
	require.Len(t, spans, 1, "the span itself is unchanged")
}

// Off, span events of the ecs mode are ECS log documents routed like log records (contrib
// drops them): both land in logs-generic-<namespace>, the exception with error.grouping_name as
// sent.
func TestECSSpanEventsRoutedLikeLogsWhenOff(t *testing.T) {
	s := newSuite(t)
	s.putSpanTemplate(t)
	s.putIndexTemplate(t, s.id+"-logs", dataStreamTemplate("logs-generic-"+s.id, map[string]any{
		"properties": map[string]any{"run": map[string]any{"type": "keyword"}},
	}))
	cfg := s.config()
	cfg.TracesDynamicID.Enabled = true
	exp := s.tracesExporter(t, cfg)
	require.NoError(t, exp.ConsumeTraces(context.Background(), s.ecsSpanEventTraces()))
	assert.Equal(t, int64(3), s.docs(t, "indexed"))

	index := "logs-generic-" + s.id
	events := s.search(t, index, s.id)
	require.Len(t, events, 2)
	assert.Equal(t, "cache miss", get(events[0], "event.action"))
	assert.Equal(t, "exception", get(events[1], "event.action"))
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "generic", "namespace": s.id}, events[1]["data_stream"])
	assert.Equal(t, "card declined", get(events[1], "error.grouping_name"))
	assert.Equal(t, 1, s.es.CountQuery(t, index, estest.TermQuery("_id", s.id+"-miss")))
	for _, name := range []string{"logs-apm.error-" + s.id, "logs-apm.app." + s.id + "-" + s.id} {
		status, _, err := s.es.Do(http.MethodHead, "/"+name, nil)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNotFound, status, "%s is not created", name)
	}
}
