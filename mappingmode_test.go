// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func TestModeSelectionRejections(t *testing.T) {
	tests := []struct {
		name      string
		allowed   []string
		metadata  []string
		scopes    []string // one record per scope
		indexed   int
		errorType string // of the rejected records
		rejected  int
		errText   string
	}{
		{name: "default", scopes: []string{""}, indexed: 1},
		{name: "metadata otel", metadata: []string{"OTel"}, scopes: []string{""}, indexed: 1},
		{
			name: "metadata not allowed", allowed: []string{"otel"}, metadata: []string{"ecs"}, scopes: []string{"", ""},
			errorType: "invalid_mapping_mode", rejected: 2,
			errText: `client metadata x-elastic-mapping-mode names mapping mode "ecs", which mapping::allowed_modes does not list`,
		},
		{
			name: "metadata unknown", metadata: []string{"fancy"}, scopes: []string{""},
			errorType: "invalid_mapping_mode", rejected: 1,
			errText: `client metadata x-elastic-mapping-mode names mapping mode "fancy", which does not exist`,
		},
		{
			name: "metadata with two values", metadata: []string{"otel", "ecs"}, scopes: []string{""},
			errorType: "invalid_mapping_mode", rejected: 1, errText: "it must have one",
		},
		{
			name: "scope attribute wins over bad metadata", allowed: []string{"otel"}, metadata: []string{"ecs"}, scopes: []string{"otel", ""},
			indexed: 1, errorType: "invalid_mapping_mode", rejected: 1,
		},
		{
			name: "scope attribute not allowed", allowed: []string{"otel"}, scopes: []string{"", "raw", ""},
			indexed: 2, errorType: "invalid_mapping_mode", rejected: 1,
			errText: `scope attribute elastic.mapping.mode names mapping mode "raw", which mapping::allowed_modes does not list`,
		},
		{
			name: "scope attribute unknown", scopes: []string{"nope"},
			errorType: "invalid_mapping_mode", rejected: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			set, tel := withTelemetry(t)
			cfg := newTestConfig(srv.URL)
			if tt.allowed != nil {
				cfg.Mapping.AllowedModes = tt.allowed
			}
			exp := newLogsExporter(t, cfg, set)
			ctx := context.Background()
			if tt.metadata != nil {
				ctx = withMode(ctx, tt.metadata...)
			}
			err := exp.ConsumeLogs(ctx, scopedLogs(tt.scopes...))
			assert.Len(t, srv.Accepted(), tt.indexed)
			if tt.rejected == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, consumererror.IsPermanent(err), "a request asking for a mode it cannot have is not retried: %v", err)
			require.ErrorContains(t, err, tt.errText)
			assert.Equal(t, int64(tt.rejected), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
				fate("rejected"), attribute.String("error.type", tt.errorType)))
		})
	}
}

// When the rest of the push fails with an error that lets it be sent again (nothing of it was
// indexed), the push returns that error, which also names the mode rejection.
func TestModeRejectionInAPushThatFailsOtherwise(t *testing.T) {
	srv := fakees.New(t)
	srv.StartOutage(time.Hour)
	set, tel := withTelemetry(t)
	cfg := newTestConfig(srv.URL)
	cfg.Retry.MaxRetries = 1
	cfg.Retry.InitialInterval = time.Millisecond
	exp := newLogsExporter(t, cfg, set)
	err := exp.ConsumeLogs(context.Background(), scopedLogs("", "nope"))
	require.Error(t, err)
	assert.False(t, consumererror.IsPermanent(err), "nothing was indexed: %v", err)
	require.ErrorContains(t, err, `names mapping mode "nope", which does not exist`)
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("rejected"), attribute.String("error.type", "invalid_mapping_mode")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dropped")))
}

// mapping::mode is ignored, as in contrib: with bodymap, which has no metric and no span
// documents, and ecs, the records that ask for no mode are written in otel, every pipeline
// starts, and one warning per component, naming the key, says so and how to choose a mode.
func TestMappingModeIsIgnored(t *testing.T) {
	for _, mode := range []string{"bodymap", "ecs"} {
		t.Run(mode, func(t *testing.T) {
			srv := fakees.New(t)
			core, logs := observer.New(zap.InfoLevel)
			set := testSettings()
			set.Logger = zap.New(core)
			cfg := newTestConfig(srv.URL)
			cfg.Mapping.Mode = mode

			logsExp, metrics, traces := startAllSignals(t, cfg, set)
			require.NoError(t, logsExp.ConsumeLogs(context.Background(), scopedLogs("")))
			require.NoError(t, metrics.ConsumeMetrics(context.Background(), testMetricsScopes(1)))
			require.NoError(t, traces.ConsumeTraces(context.Background(), testSpan(t)))
			indices := map[string]bool{}
			for _, it := range srv.Accepted() {
				indices[it.Index()] = true
			}
			assert.True(t, indices["logs-generic.otel-default"], "logs in otel: %v", indices)
			assert.True(t, indices["metrics-generic.otel-default"], "metrics in otel: %v", indices)
			assert.True(t, indices["traces-generic.otel-default"], "spans in otel: %v", indices)

			var lines []string
			for _, e := range logs.FilterMessageSnippet("mapping").All() {
				lines = append(lines, e.Level.String()+": "+e.Message)
			}
			assert.Equal(t, []string{"warn: `mapping::mode` is " + mode + " and is ignored, as in contrib since v0.145: " +
				"records whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are written in otel. " +
				"Choose the mode per scope with the scope attribute elastic.mapping.mode, or per request with the client metadata X-Elastic-Mapping-Mode " +
				"(an OTLP request header, passed on by a receiver with include_metadata: true); then remove `mapping::mode`"}, lines,
				"one line per component, and no line that says the records are written in the mode")
		})
	}
}

// When mapping::allowed_modes does not list otel, the records that ask for no mode are written
// in its first mode, as in contrib; a pipeline whose signal that mode cannot write says at
// creation that such records are rejected, and they are, counted.
func TestDefaultModeWithoutOTel(t *testing.T) {
	srv := fakees.New(t)
	core, logs := observer.New(zap.InfoLevel)
	set, tel := withTelemetry(t)
	set.Logger = zap.New(core)
	cfg := newTestConfig(srv.URL)
	cfg.Mapping = MappingConfig{Mode: "otel", AllowedModes: []string{"bodymap", "ecs"}}
	require.NoError(t, cfg.Validate())

	logsExp, _, traces := startAllSignals(t, cfg, set)
	ld := scopedLogs("")
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body().SetEmptyMap().PutStr("msg", "hello")
	require.NoError(t, logsExp.ConsumeLogs(context.Background(), ld))
	require.Len(t, srv.Accepted(), 1)
	assert.JSONEq(t, `{"msg":"hello"}`, string(srv.Accepted()[0].Document), "logs in bodymap")

	err := traces.ConsumeTraces(context.Background(), testSpan(t))
	require.Error(t, err)
	assert.True(t, consumererror.IsPermanent(err), "the rejected spans are not retried: %v", err)
	assert.Len(t, srv.Accepted(), 1, "no span document")
	assert.Positive(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("rejected"), attribute.String("error.type", "unsupported_mapping_mode")))

	var warnings []string
	for _, e := range logs.FilterLevelExact(zap.WarnLevel).FilterMessageSnippet("mapping::allowed_modes").All() {
		warnings = append(warnings, e.Message)
	}
	assert.Equal(t, []string{
		"`mapping::allowed_modes` does not list otel, and bodymap, its first mode, has no metric documents: metrics whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are rejected (unsupported_mapping_mode); add otel to `mapping::allowed_modes`",
		"`mapping::allowed_modes` does not list otel, and bodymap, its first mode, has no span documents: traces whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are rejected (unsupported_mapping_mode); add otel to `mapping::allowed_modes`",
	}, warnings)
}

func TestMetricsScopeWithUnusableModeIsRejectedAlone(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	cfg := newTestConfig(srv.URL)
	exp, err := NewFactory().CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)

	md := testMetricsScopes(4)
	md.ResourceMetrics().At(0).ScopeMetrics().At(1).Scope().Attributes().PutStr("elastic.mapping.mode", "bodymap")
	md.ResourceMetrics().At(1).ScopeMetrics().At(0).Scope().Attributes().PutStr("elastic.mapping.mode", "bodymap")
	err = exp.ConsumeMetrics(context.Background(), md)
	require.Error(t, err)
	assert.True(t, consumererror.IsPermanent(err))
	require.ErrorContains(t, err, "mapping mode bodymap does not support metrics")
	// Two scopes of two points each are rejected; the other two scopes are written.
	assert.Equal(t, int64(4), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("rejected"), attribute.String("error.type", "unsupported_mapping_mode")))
	var names []string
	for _, it := range srv.Accepted() {
		names = append(names, string(it.Document))
	}
	require.Len(t, names, 4, "one document per point: each point has its own timestamp")
	joined := strings.Join(names, "\n")
	assert.Contains(t, joined, `"scope":{"name":"s0"}`)
	assert.Contains(t, joined, `"scope":{"name":"s3"}`)
	assert.NotContains(t, joined, `"name":"s1"`)
	assert.NotContains(t, joined, `"name":"s2"`)
}

func TestModeChosenPerRequestAndScope(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	exp := newLogsExporter(t, newTestConfig(srv.URL), set)

	// The request asks for ecs; its second scope asks for none, its third for otel.
	require.NoError(t, exp.ConsumeLogs(withMode(context.Background(), "ECS"), scopedLogs("", "none", "otel")))
	items := srv.Accepted()
	require.Len(t, items, 3)
	for i, want := range []struct{ index, field string }{
		{"logs-generic-default", `"message":"record a"`},
		{"logs-generic-default", `"Body":"record b"`},
		{"logs-generic.otel-default", `"body":{"text":"record c"}`},
	} {
		_, meta := items[i].Op()
		assert.Equal(t, want.index, meta["_index"], "record %d", i)
		assert.Contains(t, string(items[i].Document), want.field, "record %d", i)
		assert.NotContains(t, string(items[i].Document), "elastic.mapping.mode", "the control attribute is not written")
	}

	// bodymap: a map body is the document, another body is a counted rejection.
	ld := scopedLogs("bodymap", "bodymap")
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body().SetEmptyMap().PutStr("msg", "hello")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	items = srv.Accepted()
	require.Len(t, items, 4)
	assert.JSONEq(t, `{"msg":"hello"}`, string(items[3].Document))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate",
		fate("rejected"), attribute.String("error.type", "bodymap_body_not_a_map")))
}

func TestSpanEventsInlineInLegacyModes(t *testing.T) {
	for _, tt := range []struct {
		mode      string
		documents int
	}{{"otel", 2}, {"ecs", 2}, {"none", 1}, {"raw", 1}} {
		t.Run(tt.mode, func(t *testing.T) {
			srv := fakees.New(t)
			exp := newTracesExporter(t, newTestConfig(srv.URL), testSettings())
			td := ptrace.NewTraces()
			span := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			span.SetName("op")
			span.SetStartTimestamp(1_700_000_000_000_000_000)
			span.SetEndTimestamp(1_700_000_000_001_000_000)
			ev := span.Events().AppendEmpty()
			ev.SetName("retry")
			ev.SetTimestamp(1_700_000_000_000_000_000)
			require.NoError(t, exp.ConsumeTraces(withMode(context.Background(), tt.mode), td))
			items := srv.Accepted()
			require.Len(t, items, tt.documents, "the span and, in otel and ecs, its event as a document of its own")
			if tt.documents == 1 {
				// Events.<name>.time in none; raw drops the Events. prefix.
				assert.Contains(t, string(items[0].Document), `retry.time":"2023-11-14T22:13:20.000000000Z"`)
			}
		})
	}
}

func TestModeSurvivesBatchingAndPersistentQueue(t *testing.T) {
	srv := fakees.New(t)
	cfg, host := queuedConfig(srv.URL, 500*time.Millisecond)
	exp, err := NewFactory().CreateLogs(context.Background(), testSettings(), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), host))
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })

	// Requests with different modes arrive within one batch window; each keeps its own.
	modes := []string{"ecs", "none", "", "raw", "ecs", ""}
	for i, mode := range modes {
		ctx := context.Background()
		if mode != "" {
			ctx = withMode(ctx, mode)
		}
		ld := scopedLogs("")
		ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes().PutInt("request", int64(i))
		require.NoError(t, exp.ConsumeLogs(ctx, ld))
	}
	require.Eventually(t, func() bool { return len(srv.Accepted()) == len(modes) }, 10*time.Second, 10*time.Millisecond)
	assert.LessOrEqual(t, srv.Requests(), 4, "requests of one mode are batched together")
	for _, it := range srv.Accepted() {
		doc := string(it.Document)
		var request int
		switch {
		case strings.Contains(doc, `"Attributes.request":`): // none
			request = int(doc[strings.Index(doc, `"Attributes.request":`)+len(`"Attributes.request":`)] - '0')
		case strings.Contains(doc, `"message":"record a"`) && strings.Contains(doc, `"request":`): // ecs or raw
			request = int(doc[strings.Index(doc, `"request":`)+len(`"request":`)] - '0')
		default: // otel
			request = int(doc[strings.Index(doc, `"attributes":{"request":`)+len(`"attributes":{"request":`)] - '0')
		}
		want := modes[request]
		switch want {
		case "ecs":
			assert.Contains(t, doc, `"service":{"name":"svc"}`, "request %d: ecs", request)
		case "none":
			assert.Contains(t, doc, `"Resource.service.name":"svc"`, "request %d: none", request)
		case "raw":
			assert.Contains(t, doc, `"Body":"record a"`, "request %d: raw", request)
			assert.NotContains(t, doc, `"Attributes.`, "request %d: raw", request)
		default:
			assert.Contains(t, doc, `"body":{"text":"record a"}`, "request %d: otel", request)
		}
	}
}

func TestMetricsInTheECSMode(t *testing.T) {
	srv := fakees.New(t)
	exp, err := NewFactory().CreateMetrics(context.Background(), testSettings(), newTestConfig(srv.URL))
	require.NoError(t, err)
	startExporter(t, exp)

	// The request asks for ecs: the points of both scopes share one ECS document.
	require.NoError(t, exp.ConsumeMetrics(withMode(context.Background(), "ecs"), ecsMetrics("")))
	items := srv.Accepted()
	require.Len(t, items, 1)
	_, meta := items[0].Op()
	assert.Equal(t, "metrics-generic-default", meta["_index"])
	assert.Equal(t, map[string]any{"system.cpu.utilization": "double_metrics", "http.requests": "long_metrics"}, meta["dynamic_templates"])
	assert.JSONEq(t, `{"@timestamp":"2023-11-14T22:13:20.000000000Z",`+
		`"data_stream":{"type":"metrics","dataset":"generic","namespace":"default"},`+
		`"host":{"hostname":"h","name":"h"},"service":{"name":"svc"},"state":"user",`+
		`"system":{"cpu":{"utilization":0.5}},"http":{"requests":3}}`, string(items[0].Document))

	// The request's mode is otel and its second scope asks for ecs: one document of each.
	require.NoError(t, exp.ConsumeMetrics(context.Background(), ecsMetrics("ecs")))
	items = srv.Accepted()[1:]
	require.Len(t, items, 2)
	byIndex := map[string]string{}
	for _, it := range items {
		byIndex[it.Index()] = string(it.Document)
	}
	require.Contains(t, byIndex, "metrics-generic.otel-default")
	require.Contains(t, byIndex, "metrics-generic-default")
	assert.Contains(t, byIndex["metrics-generic.otel-default"], `"metrics":{"system.cpu.utilization":0.5}`)
	assert.NotContains(t, byIndex["metrics-generic.otel-default"], "http.requests")
	assert.Contains(t, byIndex["metrics-generic-default"], `"http":{"requests":3}`)
	assert.NotContains(t, byIndex["metrics-generic-default"], "utilization")
}

func TestDefaultModeOf(t *testing.T) {
	for _, tt := range []struct {
		allowed []string
		want    serializer.Mode
	}{
		{mappingModes, serializer.ModeOTel},
		{[]string{"ecs", "otel"}, serializer.ModeOTel},
		{[]string{"ecs", "none"}, serializer.ModeECS},
		{[]string{"raw"}, serializer.ModeRaw},
	} {
		assert.Equal(t, tt.want, pipeline.DefaultMode(tt.allowed), "%v", tt.allowed)
		for _, mode := range mappingModes {
			// mapping::mode plays no part.
			cfg := defaultWith(func(c *Config) { c.Mapping.Mode, c.Mapping.AllowedModes = mode, tt.allowed })
			def := pipeline.DefaultMode(cfg.pipelineSettings().AllowedModes)
			assert.Equal(t, tt.want, def, "%v %s", tt.allowed, mode)
			if mode == "otel" {
				assert.Empty(t, cfg.modeIgnoredWarning())
			} else {
				assert.Contains(t, cfg.modeIgnoredWarning(), "`mapping::mode` is "+mode+" and is ignored")
			}
			for _, sig := range []signal.Kind{signal.Logs, signal.Traces, signal.Metrics} {
				if tt.want.Supports(sig) {
					assert.Empty(t, cfg.modeFallbackWarning(sig), "%v %s", tt.allowed, sig)
				} else {
					assert.Contains(t, cfg.modeFallbackWarning(sig), "its first mode, has no ", "%v %s", tt.allowed, sig)
				}
			}
		}
	}
	cfg := defaultWith(func(c *Config) { c.Mapping.Mode, c.Mapping.AllowedModes = "ecs", []string{"ecs", "none"} })
	assert.Contains(t, cfg.modeIgnoredWarning(), "are written in ecs, the first of `mapping::allowed_modes`, which does not list otel. ")
	// Every mode writes logs.
	for _, mode := range mappingModes {
		m, _ := serializer.ParseMode(mode)
		assert.True(t, m.Supports(signal.Logs), mode)
	}
}

// The dataset of a data stream name is cut to 100 bytes, which Elasticsearch allows, suffix
// included: in otel, whose suffix .otel takes 5, that leaves 95 bytes of the dataset itself; in
// the other modes, 100.
func TestDatasetLimitPerMode(t *testing.T) {
	long := strings.Repeat("a", 120)
	for _, tt := range []struct{ mode, index string }{
		{"otel", "logs-" + long[:95] + ".otel-default"},
		{"ecs", "logs-" + long[:100] + "-default"},
		{"none", "logs-" + long[:100] + "-default"},
		{"raw", "logs-" + long[:100] + "-default"},
		{"bodymap", "logs-" + long[:100] + "-default"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			srv := fakees.New(t)
			exp := newLogsExporter(t, newTestConfig(srv.URL), testSettings())
			ld := scopedLogs("")
			r := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
			r.Body().SetEmptyMap().PutStr("msg", "hello")
			r.Attributes().PutStr("data_stream.dataset", long)
			require.NoError(t, exp.ConsumeLogs(withMode(context.Background(), tt.mode), ld))
			items := srv.Accepted()
			require.Len(t, items, 1)
			assert.Equal(t, tt.index, items[0].Index())
		})
	}
}
