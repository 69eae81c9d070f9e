// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// walkLogs encodes and routes the log records of ld, scope by scope.
func walkLogs(_ context.Context, st *pushState, ld plog.Logs) {
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		res := rl.Resource()
		sls := rl.ScopeLogs()
		for j := range sls.Len() {
			sl := sls.At(j)
			scope := sl.Scope()
			recs := sl.LogRecords()
			if !st.setScope(res, rl.SchemaUrl(), scope, sl.SchemaUrl(), recs.Len()) {
				continue
			}
			st.logs.SetScope(signal.Logs, scope.Attributes(), res.Attributes(), scope.Name())
			for k := range recs.Len() {
				st.appendLog(recs.At(k))
			}
		}
	}
}

// appendLog adds a log record to the batch; the router is set to the record's scope.
func (st *pushState) appendLog(rec plog.LogRecord) {
	keys := routing.ScanRecord(rec.Attributes())
	if st.skipNoIndex(keys, rec.Attributes()) {
		return
	}
	ts := rec.Timestamp()
	if ts == 0 {
		ts = rec.ObservedTimestamp()
	}
	t, err := st.logs.RouteRecord(keys, rec.Attributes(), ts)
	var refused *routing.TargetNotAllowedError
	if err != nil {
		if refused = st.unrouted(err); refused == nil {
			return
		}
	}
	start := len(st.batch.Buf)
	st.batch.Buf = st.enc.AppendLog(st.batch.Buf, rec, dataStream(t))
	if st.rejectedByEncoder(start) {
		return
	}
	if refused != nil {
		st.refuse(start, refused)
		return
	}
	it := bulk.Item{Index: t.Index, RequireDataStream: t.DataStream}
	if st.p.set.LogsDynamicID {
		it.DocumentID = st.logs.DocumentID(keys, rec.Attributes())
	}
	if st.p.set.LogsDynamicPipeline {
		it.Pipeline = st.logs.Pipeline(keys, rec.Attributes())
	}
	st.addRecord(start, it)
}
