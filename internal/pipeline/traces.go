// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// walkTraces encodes and routes the spans of td, and their events, scope by scope.
func walkTraces(_ context.Context, st *pushState, td ptrace.Traces) {
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		res := rs.Resource()
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j)
			scope := ss.Scope()
			spans := ss.Spans()
			if !st.setScope(res, rs.SchemaUrl(), scope, ss.SchemaUrl(), spanDocuments(spans)) {
				continue
			}
			st.traces.SetScope(signal.Traces, scope.Attributes(), res.Attributes(), scope.Name())
			st.events.SetScope(signal.Logs, scope.Attributes(), res.Attributes(), scope.Name())
			if st.apm.on(st.mode) {
				st.apm.setScope(scope, res.Attributes())
			}
			for k := range spans.Len() {
				st.appendSpan(spans.At(k))
			}
		}
	}
}

// spanDocuments returns the number of spans and span events.
func spanDocuments(spans ptrace.SpanSlice) int {
	n := spans.Len()
	for i := range spans.Len() {
		n += spans.At(i).Events().Len()
	}
	return n
}

// appendSpan adds a span and then each of its events to the batch; the routers are set to the
// span's scope. With traces_dynamic_id, a span event's _id is its own elasticsearch.document_id,
// as in contrib.
func (st *pushState) appendSpan(span ptrace.Span) {
	if keys := routing.ScanRecord(span.Attributes()); !st.skipNoIndex(keys, span.Attributes()) {
		st.appendSpanDocument(span, keys)
	}
	if !st.mode.SeparateSpanEvents() {
		return // the span's document holds its events
	}
	apm := st.apm.on(st.mode)
	router := st.events
	events := span.Events()
	for i := range events.Len() {
		ev := events.At(i)
		keys := routing.ScanRecord(ev.Attributes())
		if st.skipNoIndex(keys, ev.Attributes()) {
			continue
		}
		if apm {
			router = st.apm.router(ev)
		}
		t, err := router.RouteRecord(keys, ev.Attributes(), ev.Timestamp())
		var refused *routing.TargetNotAllowedError
		if err != nil {
			if refused = st.unrouted(err); refused == nil {
				continue
			}
		}
		start := len(st.batch.Buf)
		if apm {
			st.batch.Buf = st.enc.AppendSpanEventAPM(st.batch.Buf, span, ev, dataStream(t))
		} else {
			st.batch.Buf = st.enc.AppendSpanEvent(st.batch.Buf, span, ev, dataStream(t))
		}
		if st.rejectedByEncoder(start) {
			continue
		}
		if refused != nil {
			st.refuse(start, refused)
			continue
		}
		it := bulk.Item{Index: t.Index, RequireDataStream: t.DataStream}
		if st.p.set.TracesDynamicID {
			it.DocumentID = router.DocumentID(keys, ev.Attributes())
		}
		st.addRecord(start, it)
	}
}

func (st *pushState) appendSpanDocument(span ptrace.Span, keys routing.RecordKeys) {
	t, err := st.traces.RouteRecord(keys, span.Attributes(), span.StartTimestamp())
	var refused *routing.TargetNotAllowedError
	if err != nil {
		if refused = st.unrouted(err); refused == nil {
			return
		}
	}
	start := len(st.batch.Buf)
	st.batch.Buf = st.enc.AppendSpan(st.batch.Buf, span, dataStream(t))
	if st.rejectedByEncoder(start) {
		return
	}
	if refused != nil {
		st.refuse(start, refused)
		return
	}
	it := bulk.Item{Index: t.Index, RequireDataStream: t.DataStream}
	if st.p.set.TracesDynamicID {
		it.DocumentID = st.traces.DocumentID(keys, span.Attributes())
	}
	st.addRecord(start, it)
}
