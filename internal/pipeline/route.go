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
)

// Routing gives each document its index or data stream (internal/routing). The pipeline, not
// the router, skips the records that carry the _noindex hint, before routing them: log records,
// spans and span events with skipNoIndex, data points by serializer.MetricPoint's NoIndex.

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
// (routing.ErrorTypeTargetNotAllowed), or not a valid name. When the target is not allowed and
// dead letters are on, it counts nothing and returns the refusal instead: the caller encodes the
// record's document (with no data stream) and hands it to refuse, and the bulk indexer counts
// it and writes its dead letter.
func (st *pushState) unrouted(err error) *routing.TargetNotAllowedError {
	if refused, ok := errors.AsType[*routing.TargetNotAllowedError](err); ok {
		if st.p.indexer.DeadLetters() {
			return refused
		}
		st.reject(routing.ErrorTypeTargetNotAllowed, 1, err)
		return nil
	}
	st.reject(routing.ErrorTypeInvalidIndexName, 1, err)
	return nil
}

// refuse records the document just encoded at st.batch.Buf[start:] for a record whose target
// was refused (see unrouted): the bulk indexer never sends it, and dead-letters it, naming the
// refused target.
func (st *pushState) refuse(start int, refused *routing.TargetNotAllowedError) {
	st.batch.Refuse(start, refused.Name, routing.ErrorTypeTargetNotAllowed, refused.Error())
}

// refuseMetric keeps the refusal of a data point whose target is not allowed while dead
// letters are on, the first for each refused name: the encoder adds the point to its refused
// target (RefusedMetricTarget), and refusedMetric hands its document to the batch with it.
func (st *pushState) refuseMetric(refused *routing.TargetNotAllowedError) {
	if _, seen := st.refusedMetrics[refused.Name]; !seen {
		if st.refusedMetrics == nil {
			st.refusedMetrics = map[string]error{}
		}
		st.refusedMetrics[refused.Name] = refused
	}
}

// refusedMetric records the metric document just written at st.batch.Buf[start:] as refused
// when its data points were added as refused (refuseMetric), and reports whether it was.
func (st *pushState) refusedMetric(start int, doc *serializer.MetricsDocument) bool {
	if !doc.Refused {
		return false
	}
	err := st.refusedMetrics[doc.Index]
	st.batch.Refuse(start, doc.Index, routing.ErrorTypeTargetNotAllowed, err.Error())
	return true
}

// dataStream is the data stream of a routing target, which the serializer writes into the
// document; none for an index.
func dataStream(t routing.Target) serializer.DataStream {
	if !t.DataStream {
		return serializer.DataStream{}
	}
	return serializer.DataStream{Type: t.Type, Dataset: t.Dataset, Namespace: t.Namespace}
}
