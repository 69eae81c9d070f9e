// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// Routing gives each document its index or data stream (internal/routing). The pipeline, not
// the router, skips the records that carry the _noindex hint (skipNoIndex), before routing
// them; the metric encoder does the same for data points (its report's NoIndex).

// newRouters builds a router per kind of document from the routing settings; its errors quote
// the config keys.
func newRouters(set *Settings) (logs, traces, events, metrics *routing.Router, err error) {
	logs, err = routing.NewRouter(set.Routing(set.LogsIndex))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("`logs_index` / `logstash_format`: %w", err)
	}
	traces, err = routing.NewRouter(set.Routing(set.TracesIndex))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("`traces_index` / `logstash_format`: %w", err)
	}
	// Span events are log documents: they follow logs_index.
	events, err = routing.NewRouter(set.Routing(set.LogsIndex))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	metrics, err = routing.NewRouter(set.Routing(set.MetricsIndex))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("`metrics_index` / `logstash_format`: %w", err)
	}
	return logs, traces, events, metrics, nil
}

// skipNoIndex reports whether a record (log record, span or span event) with the attribute
// keys found by routing.ScanRecord carries the _noindex hint, and counts it as skipped.
func (st *pushState) skipNoIndex(keys routing.RecordKeys, attrs pcommon.Map) bool {
	if keys&routing.RecordMappingHints == 0 || !serializer.NoIndex(attrs) {
		return false
	}
	st.report.Unsent(bulk.UnsentSkipped, errorTypeNoIndex, 1)
	return true
}

// unrouted counts a record that could not be routed: its target is not allowed
// (routing.ErrorTypeTargetNotAllowed), or not a valid name.
func (st *pushState) unrouted(err error) {
	if _, ok := errors.AsType[*routing.TargetNotAllowedError](err); ok {
		st.reject(routing.ErrorTypeTargetNotAllowed, 1, err)
		return
	}
	st.reject(serializer.RejectInvalidIndexName, 1, err)
}

// routeMetric resolves the index of a data point; it is the serializer's MetricRouteFunc.
func (st *pushState) routeMetric(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (string, serializer.DataStream, error) {
	t, err := st.metrics.Route(signal.Metrics, attrs, scope, resource, scopeName, ts)
	if err != nil {
		if _, ok := errors.AsType[*routing.TargetNotAllowedError](err); ok {
			err = &serializer.TargetNotAllowedError{Err: err}
		}
		return "", serializer.DataStream{}, err
	}
	return t.Index, dataStream(t), nil
}

// dataStream is the data stream of a routing target, which the serializer writes into the
// document; none for an index.
func dataStream(t routing.Target) serializer.DataStream {
	if !t.DataStream {
		return serializer.DataStream{}
	}
	return serializer.DataStream{Type: t.Type, Dataset: t.Dataset, Namespace: t.Namespace}
}
