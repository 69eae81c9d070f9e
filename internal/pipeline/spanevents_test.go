// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// spanEventTraces returns two resources (services "Check Out" and none), each with one span
// whose events are an exception, an event named exception without exception.type or
// exception.message, and a plain event carrying elasticsearch.document_id; the second
// resource's scope sets data_stream.namespace, and its plain event overrides it.
func spanEventTraces(mode string) ptrace.Traces {
	td := ptrace.NewTraces()
	for i, service := range []string{"Check Out", ""} {
		rs := td.ResourceSpans().AppendEmpty()
		if service != "" {
			rs.Resource().Attributes().PutStr("service.name", service)
		}
		rs.Resource().Attributes().PutStr("data_stream.dataset", "ignored")
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
		if i == 1 {
			ss.Scope().Attributes().PutStr("data_stream.namespace", "scope_ns")
		}
		span := ss.Spans().AppendEmpty()
		span.SetName("GET /cart")
		ex := span.Events().AppendEmpty()
		ex.SetName("exception")
		ex.Attributes().PutStr("exception.type", "IOError")
		ex.Attributes().PutStr("error.grouping_name", "computed by the template")
		bare := span.Events().AppendEmpty()
		bare.SetName("exception")
		bare.Attributes().PutStr("exception.stacktrace", "at x")
		bare.Attributes().PutStr("error.grouping_name", "g")
		plain := span.Events().AppendEmpty()
		plain.SetName("cache miss")
		plain.Attributes().PutStr("elasticsearch.document_id", "event-id")
		if i == 1 {
			plain.Attributes().PutStr("data_stream.namespace", "event_ns")
		}
	}
	return td
}

// walkedTraces walks td through a push state of set and returns the batch's index, _id and
// document of each item.
func walkedTraces(t *testing.T, set Settings, td ptrace.Traces) (indices, ids []string, docs []map[string]any) {
	t.Helper()
	p := newTestPipeline(t, set)
	st, err := p.getState()
	require.NoError(t, err)
	t.Cleanup(func() { p.putState(st) })
	st.modes = p.newModes(t.Context(), signal.Traces)
	walkTraces(t.Context(), st, td)
	require.Empty(t, st.firstRejection)
	for i := range st.batch.Len() {
		it := st.batch.Item(i)
		indices = append(indices, it.Index)
		ids = append(ids, it.DocumentID)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(st.batch.Document(i), &doc))
		docs = append(docs, doc)
	}
	return indices, ids, docs
}

// With mapping::ecs_span_events_to_logs, the ecs mode's span events go to Elastic APM's data
// streams: exceptions to logs-apm.error-<namespace>, without error.grouping_name, the others to
// logs-apm.app.<service>-<namespace>, the service sanitized (unknown when the resource has
// none), the namespace from the event, then the scope, then the resource; data_stream.dataset
// does not choose the dataset. With traces_dynamic_id, an event's own
// elasticsearch.document_id is its _id.
func TestECSSpanEventsToAPMDataStreams(t *testing.T) {
	set := testSettings()
	set.ECSSpanEventsToLogs = true
	set.TracesDynamicID = true
	indices, ids, docs := walkedTraces(t, set, spanEventTraces("ecs"))
	assert.Equal(t, []string{
		"traces-ignored-default",
		"logs-apm.error-default",
		"logs-apm.app.check_out-default",
		"logs-apm.app.check_out-default",
		"traces-ignored-scope_ns",
		"logs-apm.error-scope_ns",
		"logs-apm.app.unknown-scope_ns",
		"logs-apm.app.unknown-event_ns",
	}, indices)
	assert.Equal(t, []string{"", "", "", "event-id", "", "", "", "event-id"}, ids)
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "apm.error", "namespace": "default"}, docs[1]["data_stream"])
	assert.Equal(t, map[string]any{"type": "IOError"}, docs[1]["error"], "no error.grouping_name in an error document")
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "apm.app.check_out", "namespace": "default"}, docs[2]["data_stream"])
	assert.Equal(t, map[string]any{"grouping_name": "g", "stacktrace": "at x"}, docs[2]["error"],
		"an event named exception without type or message is a log event")
	assert.Equal(t, map[string]any{"type": "logs", "dataset": "apm.app.unknown", "namespace": "event_ns"}, docs[7]["data_stream"])
}

// Off, or in another mode, span events are routed like log records, and traces_dynamic_id
// still gives them their own elasticsearch.document_id.
func TestSpanEventsRoutedLikeLogs(t *testing.T) {
	for _, tt := range []struct {
		mode   string
		apm    bool
		suffix string
	}{{"ecs", false, ""}, {"otel", true, ".otel"}, {"otel", false, ".otel"}} {
		t.Run(tt.mode, func(t *testing.T) {
			set := testSettings()
			set.ECSSpanEventsToLogs = tt.apm
			set.TracesDynamicID = true
			indices, ids, docs := walkedTraces(t, set, spanEventTraces(tt.mode))
			ignored := "ignored" + tt.suffix
			assert.Equal(t, []string{
				"traces-" + ignored + "-default", "logs-" + ignored + "-default", "logs-" + ignored + "-default", "logs-" + ignored + "-default",
				"traces-" + ignored + "-scope_ns", "logs-" + ignored + "-scope_ns", "logs-" + ignored + "-scope_ns", "logs-" + ignored + "-event_ns",
			}, indices)
			assert.Equal(t, []string{"", "", "", "event-id", "", "", "", "event-id"}, ids)
			assert.Len(t, docs, 8)
		})
	}
}

// Without traces_dynamic_id, span events get no _id from elasticsearch.document_id.
func TestSpanEventsWithoutDynamicID(t *testing.T) {
	set := testSettings()
	set.ECSSpanEventsToLogs = true
	_, ids, _ := walkedTraces(t, set, spanEventTraces("ecs"))
	assert.Equal(t, make([]string, 8), ids)
}
