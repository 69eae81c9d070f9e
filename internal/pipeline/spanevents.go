// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// apmRouters route the span events of the ecs mode to Elastic APM's data streams when
// mapping::ecs_span_events_to_logs is on, as contrib routes them: an exception
// (serializer.IsSpanEventException) to logs-apm.error-<namespace>, every other event to
// logs-apm.app.<service>-<namespace>, the namespace looked up on the event, then the scope,
// then the resource. They follow logs_index and logstash_format like the other span events, and
// elasticsearch.index wins as it does for every document. Both are nil when the key is off.
type apmRouters struct {
	errors, apps *routing.Router
}

// newAPMRouters returns the routers of span events bound for Elastic APM's data streams, or none
// when set does not ask for them.
func newAPMRouters(set *Settings) (apmRouters, error) {
	if !set.ECSSpanEventsToLogs {
		return apmRouters{}, nil
	}
	var a apmRouters
	for _, r := range [...]**routing.Router{&a.errors, &a.apps} {
		var err error
		if *r, err = routing.NewRouter(set.Routing(set.LogsIndex)); err != nil {
			return apmRouters{}, err
		}
		(*r).SetMode(false, false) // the ecs mode's names: no .otel suffix
	}
	a.errors.SetDataset(routing.APMErrorDataset)
	return a, nil
}

// on reports whether the span events of a scope in mode go to Elastic APM's data streams.
func (a *apmRouters) on(mode serializer.Mode) bool {
	return a.errors != nil && mode == serializer.ModeECS
}

// setScope sets the routers to a scope: the apps router's dataset names the resource's service
// (changed only when the service changes, so that a push of one service builds it once).
func (a *apmRouters) setScope(scope pcommon.InstrumentationScope, resource pcommon.Map) {
	service := routing.APMUnknownService
	if v, ok := resource.Get("service.name"); ok {
		if s := v.AsString(); s != "" {
			service = s
		}
	}
	if d := a.apps.Dataset(); len(d) != len(routing.APMAppDatasetPrefix)+len(service) || d[len(routing.APMAppDatasetPrefix):] != service {
		a.apps.SetDataset(routing.APMAppDatasetPrefix + service)
	}
	a.errors.SetScope(signal.Logs, scope.Attributes(), resource, scope.Name())
	a.apps.SetScope(signal.Logs, scope.Attributes(), resource, scope.Name())
}

// router returns the router of ev.
func (a *apmRouters) router(ev ptrace.SpanEvent) *routing.Router {
	if serializer.IsSpanEventException(ev) {
		return a.errors
	}
	return a.apps
}
