// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
)

// noteSignal records that the component was created for the signal typ (a routing.Type*), so
// that the privilege check at start asks only for what the pipelines write.
func (e *esExporter) noteSignal(typ string) {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	if e.signals == nil {
		e.signals = map[string]bool{}
	}
	e.signals[typ] = true
}

// writesSignal tells whether the component writes documents of the signal typ: when no signal
// was noted (an exporter built without the factory), every signal is assumed.
func (e *esExporter) writesSignal(typ string) bool {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	return len(e.signals) == 0 || e.signals[typ]
}

// writes are the index patterns the configuration writes to, for the privilege check: each
// signal's data streams or static index, span events with the logs, the profiling indices and
// data streams, and the dead letters.
// Values of elasticsearch.index are known only from the records, and are not checked.
func (e *esExporter) writes() []esclient.Write {
	var w []esclient.Write
	if e.writesSignal(routing.TypeLogs) {
		w = append(w, esclient.Write{Pattern: e.routingSettings(e.cfg.LogsIndex).Pattern(routing.TypeLogs), For: "logs"})
	}
	if e.writesSignal(routing.TypeMetrics) {
		w = append(w, esclient.Write{Pattern: e.routingSettings(e.cfg.MetricsIndex).Pattern(routing.TypeMetrics), For: "metrics"})
	}
	if e.writesSignal(routing.TypeTraces) {
		w = append(w,
			esclient.Write{Pattern: e.routingSettings(e.cfg.TracesIndex).Pattern(routing.TypeTraces), For: "traces"},
			esclient.Write{Pattern: e.routingSettings(e.cfg.LogsIndex).Pattern(routing.TypeLogs), For: "span events"})
	}
	if e.writesSignal(profilesSignal) {
		w = append(w, esclient.Write{Pattern: profilingIndices, For: "profiles"})
	}
	if idx := e.deadLetterIndex(); idx != "" {
		w = append(w, esclient.Write{Pattern: idx, For: "dead letters"})
	}
	return w
}

// recordCheck records a start-up check's result in otelcol.elasticsearch.startup_check: 1
// when it failed, 0 when it passed.
func (e *esExporter) recordCheck(check esclient.Check, failed bool) {
	v := int64(0)
	if failed {
		v = 1
	}
	e.telemetry.ElasticsearchStartupCheck.Record(context.Background(), v,
		metric.WithAttributeSet(attribute.NewSet(attribute.String("check", string(check)))))
}
