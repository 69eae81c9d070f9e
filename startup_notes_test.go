// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// unmarshalRaw loads raw over the defaults, as the collector does.
func unmarshalRaw(t *testing.T, raw map[string]any) *Config {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(raw).Unmarshal(cfg))
	return cfg
}

// startupLines returns the component's start-up lines for cfg that contain snippet, with
// their level.
func startupLines(cfg *Config, snippet string) []observer.LoggedEntry {
	core, logs := observer.New(zapcore.DebugLevel)
	cfg.logStartupNotes(zap.New(core))
	return logs.FilterMessageSnippet(snippet).All()
}

const noRetriesLine = "`retry::max_retries` is 0: failed bulk requests and documents are not retried. " +
	"Contrib takes 0 as not set and retries them up to 2 times, its default; " +
	"set `retry::max_retries: 2` to retry as contrib does, or `retry::enabled: false` to keep no retries without this line"

// retry::max_retries: 0 means no retries here, 2 in contrib: a warning says so, also for the
// deprecated retry::max_requests: 1, which maps to it; none with retries off or another count.
func TestNoRetriesWarning(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		want bool
	}{
		{"max_retries_0", map[string]any{"retry": map[string]any{"max_retries": 0}}, true},
		{"max_requests_1", map[string]any{"retry": map[string]any{"max_requests": 1}}, true},
		{"max_retries_0_disabled", map[string]any{"retry": map[string]any{"max_retries": 0, "enabled": false}}, false},
		{"max_retries_2", map[string]any{"retry": map[string]any{"max_retries": 2}}, false},
		{"default", map[string]any{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := startupLines(unmarshalRaw(t, tt.raw), "`retry::max_retries` is 0")
			if !tt.want {
				assert.Empty(t, lines)
				return
			}
			require.Len(t, lines, 1)
			assert.Equal(t, zapcore.WarnLevel, lines[0].Level)
			assert.Equal(t, noRetriesLine, lines[0].Message)
		})
	}
}

// The cap on bulk requests in flight follows max_conns_per_host when the configuration does not
// set flow_control::max_concurrent_requests (the configurations Elastic Agent makes from a
// Beats output set max_conns_per_host and num_consumers to the output's workers), and an Info
// line says what the cap is when the configuration leaves it to a key contrib's concurrency
// follows.
func TestConcurrencyNote(t *testing.T) {
	tests := []struct {
		name    string
		raw     map[string]any
		wantMax int
		want    string
	}{
		{
			name:    "elastic_agent",
			raw:     map[string]any{"max_conns_per_host": 60, "sending_queue": map[string]any{"num_consumers": 60}},
			wantMax: 60,
			want: "`max_conns_per_host` is 60 and `flow_control::max_concurrent_requests` is not set: up to 60 bulk requests are in flight at once, " +
				"over all the endpoints, the number moving between 1 and 60 with the latency of the requests (`flow_control::adaptive_concurrency`); " +
				"contrib lets 60 connections open to each endpoint. Set `flow_control::max_concurrent_requests` to choose another cap",
		},
		{
			name: "max_conns_per_host_not_adaptive",
			raw: map[string]any{
				"max_conns_per_host": 4,
				"flow_control":       map[string]any{"adaptive_concurrency": map[string]any{"enabled": false}},
			},
			wantMax: 4,
			want: "`max_conns_per_host` is 4 and `flow_control::max_concurrent_requests` is not set: up to 4 bulk requests are in flight at once, " +
				"over all the endpoints; contrib lets 4 connections open to each endpoint. Set `flow_control::max_concurrent_requests` to choose another cap",
		},
		{
			name:    "both_set",
			raw:     map[string]any{"max_conns_per_host": 60, "flow_control": map[string]any{"max_concurrent_requests": 10}},
			wantMax: 10,
		},
		{
			name:    "num_consumers_above_the_cap",
			raw:     map[string]any{"sending_queue": map[string]any{"num_consumers": 120}},
			wantMax: 10,
			want: "`sending_queue::num_consumers` is 120 and `flow_control::max_concurrent_requests` is not set: at most 10 bulk requests are in flight at once, " +
				"the number moving between 1 and 10 with the latency of the requests (`flow_control::adaptive_concurrency`), and pushes that wait for one share the next; " +
				"contrib sends up to 120 at once, one per consumer. Set `flow_control::max_concurrent_requests` (0: `sending_queue::num_consumers`) to allow more",
		},
		{
			name:    "num_workers_above_the_cap",
			raw:     map[string]any{"num_workers": 16},
			wantMax: 10,
			want: "`sending_queue::num_consumers` is 16 and `flow_control::max_concurrent_requests` is not set: at most 10 bulk requests are in flight at once, " +
				"the number moving between 1 and 10 with the latency of the requests (`flow_control::adaptive_concurrency`), and pushes that wait for one share the next; " +
				"contrib sends up to 16 at once, one per consumer. Set `flow_control::max_concurrent_requests` (0: `sending_queue::num_consumers`) to allow more",
		},
		{
			name:    "num_consumers_within_the_cap",
			raw:     map[string]any{"sending_queue": map[string]any{"num_consumers": 8}},
			wantMax: 10,
		},
		{
			name:    "num_consumers_with_the_cap_set",
			raw:     map[string]any{"sending_queue": map[string]any{"num_consumers": 120}, "flow_control": map[string]any{"max_concurrent_requests": 0}},
			wantMax: 120,
		},
		{name: "default", raw: map[string]any{}, wantMax: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := unmarshalRaw(t, tt.raw)
			assert.Equal(t, tt.wantMax, cfg.maxConcurrentRequests())
			lines := startupLines(cfg, "`flow_control::max_concurrent_requests` is not set")
			if tt.want == "" {
				assert.Empty(t, lines)
				return
			}
			require.Len(t, lines, 1)
			assert.Equal(t, zapcore.InfoLevel, lines[0].Level)
			assert.Equal(t, tt.want, lines[0].Message)
		})
	}
}
