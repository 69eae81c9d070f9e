// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// A record whose elasticsearch.index starts with "." is rejected alone by default, counted as
// target_not_allowed and logged with the attribute's level; with allow_dot_targets it is sent.
func TestDotTargetIsRejectedAlone(t *testing.T) {
	for _, allow := range []bool{false, true} {
		srv := fakees.New(t)
		core, logs := observer.New(zapcore.DebugLevel)
		set, tel := withTelemetry(t)
		set.Logger = zap.New(core)
		cfg := newTestConfig(srv.URL, func(c *Config) { c.DynamicRouting.AllowDotTargets = allow })
		exp := newLogsExporter(t, cfg, set)
		ld := testLogs(3)
		ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Attributes().PutStr("elasticsearch.index", ".kibana_1")
		require.NoError(t, exp.ConsumeLogs(context.Background(), ld))

		notAllowed := countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected"),
			attribute.String("error.type", "target_not_allowed"))
		if allow {
			assert.Len(t, srv.Accepted(), 3)
			assert.Zero(t, notAllowed)
			continue
		}
		assert.Len(t, srv.Accepted(), 2)
		for _, item := range srv.Accepted() {
			assert.NotEqual(t, ".kibana_1", item.Index())
		}
		assert.Equal(t, int64(1), notAllowed)
		lines := logs.FilterMessage("Records rejected before sending").All()
		require.Len(t, lines, 1)
		assert.Equal(t, "target_not_allowed", lines[0].ContextMap()["error.type"])
		assert.Equal(t, `target ".kibana_1" from attribute elasticsearch.index on the record is not allowed: `+
			`starts with "." (a system or hidden index); set dynamic_routing::allow_dot_targets to allow it`, lines[0].ContextMap()["error"])
	}
}

// With dead_letter on, a record whose target is not allowed is never sent there: its dead
// letter names the refused target, status 0 and target_not_allowed with the refusal's reason;
// it is counted dead_lettered, not rejected, and the push succeeds.
func TestRefusedTargetIsDeadLettered(t *testing.T) {
	srv := fakees.New(t)
	core, logs := observer.New(zapcore.DebugLevel)
	set, tel := withTelemetry(t)
	set.Logger = zap.New(core)
	cfg := newTestConfig(srv.URL, func(c *Config) {
		c.DeadLetter.Enabled = true
		c.DeadLetter.Index = "dead-letters"
	})
	exp := newLogsExporter(t, cfg, set)
	ld := testLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Attributes().PutStr("elasticsearch.index", ".kibana_1")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld), "a dead-lettered record has a final outcome")

	var letters []fakees.Item
	for _, item := range srv.Accepted() {
		assert.NotEqual(t, ".kibana_1", item.Index(), "nothing is sent to the refused target")
		if item.Index() == "dead-letters" {
			letters = append(letters, item)
		}
	}
	assert.Len(t, srv.Accepted(), 3, "two records and one dead letter")
	require.Len(t, letters, 1)
	var letter fakees.DeadLetter
	require.NoError(t, json.Unmarshal(letters[0].Document, &letter))
	assert.Equal(t, ".kibana_1", letter.Index)
	assert.Zero(t, letter.HTTP.Response.StatusCode, "no request was made for it")
	assert.Equal(t, "target_not_allowed", letter.Error.Type)
	assert.Equal(t, `target ".kibana_1" from attribute elasticsearch.index on the record is not allowed: `+
		`starts with "." (a system or hidden index); set dynamic_routing::allow_dot_targets to allow it`, letter.Error.Reason)
	assert.Contains(t, letter.Document, `"body":{"text":"log 1"}`)
	assert.True(t, json.Valid([]byte(letter.Document)), "the original document, as a string")

	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("dead_lettered")))
	assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected")))
	assert.Equal(t, int64(2), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("indexed")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.processed",
		attribute.String("outcome", "failed_client"), attribute.String("error.type", "target_not_allowed")))
	assert.Equal(t, 1, logs.FilterMessage("Documents not indexed").Len(), "the refusal is logged")
	assert.Zero(t, logs.FilterMessage("Records rejected before sending").Len())
}

// dynamic_routing with a static index for every signal has no effect, and says so at start.
func TestDynamicRoutingWithStaticIndicesIsWarned(t *testing.T) {
	for _, static := range []int{2, 3} {
		core, logs := observer.New(zapcore.WarnLevel)
		set := testSettings()
		set.Logger = zap.New(core)
		cfg := newTestConfig("http://127.0.0.1:1", func(c *Config) {
			c.DynamicRouting.AllowedTargets = []string{"logs-*"}
			c.LogsIndex, c.TracesIndex = "my-logs", "my-traces"
			if static == 3 {
				c.MetricsIndex = "my-metrics"
			}
		})
		exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
		require.NoError(t, err)
		require.NoError(t, exp.Shutdown(context.Background()))
		want := 0
		if static == 3 {
			want = 1
		}
		assert.Equal(t, want, logs.FilterMessageSnippet("`dynamic_routing` is set, but `logs_index`, `metrics_index` and `traces_index` are all set too").Len())
	}
}
