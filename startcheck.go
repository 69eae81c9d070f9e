// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
)

// noteSignal records that the component was created for signal, so that the privilege check
// at start asks only for what the pipelines write.
func (e *esExporter) noteSignal(signal pipeline.Signal) {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	if e.signals == nil {
		e.signals = map[pipeline.Signal]bool{}
	}
	e.signals[signal] = true
}

// writesSignal tells whether the component writes documents of signal: when no signal was
// noted (an exporter built without the factory), every signal is assumed.
func (e *esExporter) writesSignal(signal pipeline.Signal) bool {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	return len(e.signals) == 0 || e.signals[signal]
}

// writes are the index patterns the configuration writes to, for the privilege check: each
// signal's data streams or static index, span events with the logs, the profiling indices and
// data streams, and the dead letters.
// Values of elasticsearch.index are known only from the records, and are not checked.
func (e *esExporter) writes() []esclient.Write {
	set := e.cfg.pipelineSettings()
	var w []esclient.Write
	if e.writesSignal(pipeline.Logs) {
		w = append(w, esclient.Write{Pattern: set.Routing(e.cfg.LogsIndex).Pattern(routing.TypeLogs), For: "logs"})
	}
	if e.writesSignal(pipeline.Metrics) {
		w = append(w, esclient.Write{Pattern: set.Routing(e.cfg.MetricsIndex).Pattern(routing.TypeMetrics), For: "metrics"})
	}
	if e.writesSignal(pipeline.Traces) {
		w = append(w,
			esclient.Write{Pattern: set.Routing(e.cfg.TracesIndex).Pattern(routing.TypeTraces), For: "traces"},
			esclient.Write{Pattern: set.Routing(e.cfg.LogsIndex).Pattern(routing.TypeLogs), For: "span events"})
	}
	if e.writesSignal(pipeline.Profiles) {
		w = append(w, esclient.Write{Pattern: pipeline.ProfilingIndices, For: "profiles"})
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
