// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"testing"
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
