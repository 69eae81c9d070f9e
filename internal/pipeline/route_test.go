// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// A record whose attributes choose a target the configuration refuses is, with dead letters
// on, still encoded and handed to the batch as a refused document (never one of its items),
// and not counted by the pipeline: the bulk indexer counts it and writes its dead letter.
// With dead letters off, it is rejected and counted by the pipeline, and nothing is encoded.
// This holds for log records, spans, span events and metric data points (whose documents the
// encoder groups as any other).
func TestRefusedTargetHandedToDeadLetters(t *testing.T) {
	logs := plog.NewLogs()
	recs := logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	recs.AppendEmpty().Body().SetStr("kept log")
	refusedLog := recs.AppendEmpty()
	refusedLog.Body().SetStr("refused log")
	refusedLog.Attributes().PutStr("elasticsearch.index", ".kibana_1")

	traces := ptrace.NewTraces()
	spans := traces.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	kept := spans.AppendEmpty()
	kept.SetName("kept span")
	kept.Events().AppendEmpty().SetName("kept event")
	ev := kept.Events().AppendEmpty()
	ev.SetName("refused event")
	ev.Attributes().PutStr("elasticsearch.index", ".security")
	refusedSpan := spans.AppendEmpty()
	refusedSpan.SetName("refused span")
	refusedSpan.Attributes().PutStr("elasticsearch.index", ".tasks")

	metrics := pmetric.NewMetrics()
	points := metrics.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	points.SetName("requests")
	gauge := points.SetEmptyGauge().DataPoints()
	gauge.AppendEmpty().SetIntValue(1)
	refusedPoint := gauge.AppendEmpty()
	refusedPoint.SetIntValue(2)
	refusedPoint.Attributes().PutStr("which", "refused point")
	refusedPoint.Attributes().PutStr("elasticsearch.index", ".kibana_1")

	for _, tt := range []struct {
		name     string
		signal   signal.Kind
		walk     func(*pushState)
		kept     int
		refused  int
		contains []string
	}{
		{"logs", signal.Logs, func(st *pushState) { walkLogs(t.Context(), st, logs) }, 1, 1, []string{"refused log"}},
		{"traces", signal.Traces, func(st *pushState) { walkTraces(t.Context(), st, traces) }, 2, 2, []string{"refused event", "refused span"}},
		// A metric data point rejected before sending is counted in the push's metricsReport.
		{"metrics", signal.Metrics, func(st *pushState) { walkMetrics(t.Context(), st, metrics) }, 1, 1, []string{"refused point"}},
	} {
		for _, deadLetters := range []bool{true, false} {
			name := tt.name + "/dead letters off"
			if deadLetters {
				name = tt.name + "/dead letters on"
			}
			t.Run(name, func(t *testing.T) {
				st := connectedState(t, tt.signal, deadLetters)
				tt.walk(st)
				assert.Equal(t, tt.kept, st.batch.Len())
				for i := range st.batch.Len() {
					assert.NotContains(t, string(st.batch.Document(i)), "refused", "a refused document is not an item")
					assert.NotEqual(t, '.', st.batch.Item(i).Index[0])
				}
				if !deadLetters {
					assert.Zero(t, st.batch.Refused())
					if tt.signal != signal.Metrics {
						assert.Equal(t, tt.refused, st.report.Count(bulk.UnsentRejected, routing.ErrorTypeTargetNotAllowed))
					}
					assert.False(t, bytes.Contains(st.batch.Buf, []byte("refused")), "nothing encoded for a rejected record")
					return
				}
				assert.Equal(t, tt.refused, st.batch.Refused())
				assert.True(t, st.report.Empty(), "counted by the bulk indexer when it sends, not in the push's report")
				for _, s := range tt.contains {
					assert.True(t, bytes.Contains(st.batch.Buf, []byte(s)), "the refused record %q is encoded", s)
				}
			})
		}
	}
}

// A metric data point refused for a name that another point of the push reaches allowed is
// refused alone: with logstash_format, elasticsearch.index "orders" is allowed and becomes
// orders-<date>, while orders-<date> itself is not allowed. The two points would share a
// document if they shared a target; the allowed one is an item of the batch, the other refused.
func TestRefusedMetricBesideAllowedIndex(t *testing.T) {
	set := testSettings()
	set.LogstashFormat = true
	set.AllowedTargets = []string{"orders"}
	const dated = "orders-2026.12.06"
	metrics := pmetric.NewMetrics()
	ms := metrics.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, p := range []struct{ metric, index string }{{"refused", dated}, {"kept", "orders"}} {
		m := ms.AppendEmpty()
		m.SetName(p.metric)
		dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetTimestamp(pcommon.NewTimestampFromTime(time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)))
		dp.SetIntValue(1)
		dp.Attributes().PutStr("elasticsearch.index", p.index)
	}
	st := connectedStateWith(t, set, signal.Metrics, true)
	walkMetrics(t.Context(), st, metrics)
	require.Equal(t, 1, st.batch.Len())
	assert.Equal(t, dated, st.batch.Item(0).Index)
	assert.Contains(t, string(st.batch.Document(0)), "kept")
	assert.NotContains(t, string(st.batch.Document(0)), "refused")
	assert.Equal(t, 1, st.batch.Refused())
}
