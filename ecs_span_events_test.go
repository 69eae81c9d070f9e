// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// TestGoldenECSSpanEvents pushes testdata/ecs_span_events/traces.json in the ecs mode, with
// traces_dynamic_id, with mapping::ecs_span_events_to_logs on (traces.on.ndjson: a plain event
// in logs-apm.app.checkout-prod, the exception in logs-apm.error-payments without
// error.grouping_name) and off (traces.off.ndjson: both routed like log records).
func TestGoldenECSSpanEvents(t *testing.T) {
	const dir = "testdata/ecs_span_events/"
	for name, on := range map[string]bool{"on": true, "off": false} {
		t.Run(name, func(t *testing.T) {
			got, rejected := pushGoldenWith(t, dir+"traces.json", "ecs", func(c *Config) {
				c.Mapping.ECSSpanEventsToLogs = on
				c.TracesDynamicID.Enabled = true
			})
			if rejected != 0 {
				t.Fatalf("%d records rejected", rejected)
			}
			checkGolden(t, dir+"traces."+name+".ndjson", got)
		})
	}
}

// The start-up line about span events of the ecs mode is logged for the traces pipeline only,
// with mapping::ecs_span_events_to_logs off, when a mapping::allowed_modes of the
// configuration's own lists ecs; the ignored mapping::mode plays no part.
func TestECSSpanEventsNote(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mode    string
		allowed []string
		on      bool
		want    bool
	}{
		{name: "default", mode: "otel", allowed: mappingModes},
		{name: "mapping::mode ecs", mode: "ecs", allowed: mappingModes},
		{name: "only ecs", mode: "ecs", allowed: []string{"ecs"}, want: true},
		{name: "allowed_modes with ecs", mode: "otel", allowed: []string{"otel", "ecs"}, want: true},
		{name: "allowed_modes without ecs", mode: "ecs", allowed: []string{"otel", "none"}},
		{name: "the key on", mode: "ecs", allowed: []string{"ecs"}, on: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaultWith(func(c *Config) {
				c.Mapping.Mode, c.Mapping.AllowedModes, c.Mapping.ECSSpanEventsToLogs = tt.mode, tt.allowed, tt.on
			})
			for _, sig := range []signal.Kind{signal.Logs, signal.Metrics, signal.Profiles} {
				assert.Empty(t, cfg.ecsSpanEventsNote(sig), sig)
			}
			if !tt.want {
				assert.Empty(t, cfg.ecsSpanEventsNote(signal.Traces))
				return
			}
			assert.Contains(t, cfg.ecsSpanEventsNote(signal.Traces), "`mapping::ecs_span_events_to_logs` is off: ")
		})
	}
}

// mapping::ecs_span_events_to_logs with a mapping::allowed_modes that does not list ecs has no
// effect, and a warning says so.
func TestECSSpanEventsIgnoredWarning(t *testing.T) {
	for _, tt := range []struct {
		allowed []string
		on      bool
		want    bool
	}{
		{allowed: mappingModes, on: true},
		{allowed: []string{"otel", "ecs"}, on: true},
		{allowed: []string{"otel", "none"}, on: true, want: true},
		{allowed: []string{"otel", "none"}},
	} {
		cfg := defaultWith(func(c *Config) { c.Mapping.AllowedModes, c.Mapping.ECSSpanEventsToLogs = tt.allowed, tt.on })
		if !tt.want {
			assert.Empty(t, cfg.ecsSpanEventsIgnoredWarning(), "%v %v", tt.allowed, tt.on)
			continue
		}
		assert.Equal(t, "`mapping::ecs_span_events_to_logs` is on, but `mapping::allowed_modes` does not list ecs, the only mode it applies to: it has no effect, as in contrib; "+
			"add ecs to `mapping::allowed_modes`, or remove `mapping::ecs_span_events_to_logs`", cfg.ecsSpanEventsIgnoredWarning())
	}
}
