// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func BenchmarkRoute(b *testing.B) {
	empty := pcommon.NewMap()
	record := attrs(b, map[string]any{
		"http.request.method": "GET", "url.path": "/api/v1/items", "http.response.status_code": 200,
	})
	resource := attrs(b, map[string]any{
		"service.name": "checkout", "host.name": "host-1", "k8s.namespace.name": "shop",
		controlattr.DataStreamDataset: "Checkout-Service", controlattr.DataStreamNamespace: "prod",
	})
	other := attrs(b, map[string]any{controlattr.DataStreamDataset: "other"})
	allowed := []string{"logs-*.otel-team-a", "metrics-*.otel-*", "logs-other.otel-*", "logs-*-prod"}
	const receiverScope = "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver/internal/scraper/cpuscraper"

	benchmarks := []struct {
		name      string
		settings  Settings
		records   []pcommon.Map // routed in turn
		resource  pcommon.Map
		scopeName string
	}{
		{name: "data_stream_default", records: []pcommon.Map{empty}, resource: empty},
		{name: "data_stream_attributes", records: []pcommon.Map{record}, resource: resource},
		{name: "data_stream_receiver_scope", records: []pcommon.Map{record}, resource: empty, scopeName: receiverScope},
		{name: "elasticsearch_index", records: []pcommon.Map{attrs(b, map[string]any{controlattr.Index: "my-index"})}, resource: resource},
		{name: "static", settings: Settings{StaticIndex: "static-index"}, records: []pcommon.Map{record}, resource: resource},
		{name: "logstash", settings: Settings{LogstashFormat: true}, records: []pcommon.Map{record}, resource: resource},
		// Alternating targets defeat the one-entry cache: each call builds a new name.
		{name: "alternating_targets", records: []pcommon.Map{record, other}, resource: resource},
		// The confinement rules on the routed name: four patterns, the last one matching.
		{name: "allowed_targets", settings: Settings{AllowedTargets: allowed}, records: []pcommon.Map{record}, resource: resource},
		{name: "allowed_targets_alternating", settings: Settings{AllowedTargets: allowed}, records: []pcommon.Map{record, other}, resource: resource},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			r, err := NewRouter(bm.settings)
			if err != nil {
				b.Fatal(err)
			}
			ts := pcommon.NewTimestampFromTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := r.Route(signal.Logs, bm.records[i%len(bm.records)], empty, bm.resource, bm.scopeName, ts); err != nil {
					b.Fatal(err)
				}
				i++
				ts += pcommon.Timestamp(time.Millisecond)
			}
		})
	}
}

// BenchmarkAppendDate formats the logstash_format date suffix, which routing appends to every
// name it builds when logstash_format is on. It must not allocate.
func BenchmarkAppendDate(b *testing.B) {
	for _, format := range []string{DefaultDateFormat, "%Y.%m.%d-%H.%M.%S.%j.%b.%A", "%F.%U.%V.%u.%I%p.%Z%z"} {
		b.Run(format, func(b *testing.B) {
			verbs, err := parseDateFormat(format)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 64)
			tm := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
			b.ReportAllocs()
			for b.Loop() {
				buf = appendDate(buf[:0], verbs, tm)
				tm = tm.Add(time.Hour)
			}
		})
	}
}
