// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package benchdata makes the records of the push benchmarks (internal/lab/pushbench) and of
// the out-of-process cost benchmark (internal/lab/cmd/costbench), so that both measure
// documents of the same shape: small log records, spans and gauge data points of about 300 to
// 430 bytes of JSON each, in one resource and scope, one document per record.
package benchdata // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// baseTime is the timestamp of the first record, in nanoseconds since the epoch.
const baseTime = 1_700_000_000_000_000_000

func resource(r pcommon.Resource) {
	r.Attributes().PutStr("service.name", "checkout")
	r.Attributes().PutStr("host.name", "web-1")
}

// Logs returns n small log records (about 300 bytes of JSON each) in one resource and scope,
// marked read-only.
func Logs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	resource(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("checkout.logger")
	sl.LogRecords().EnsureCapacity(n)
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(baseTime + i))
		r.SetSeverityNumber(plog.SeverityNumberInfo)
		r.SetSeverityText("INFO")
		r.Body().SetStr("order placed for customer " + strconv.Itoa(i))
		r.Attributes().PutStr("http.method", "POST")
		r.Attributes().PutInt("http.status_code", 201)
	}
	ld.MarkReadOnly()
	return ld
}

// Traces returns n small spans (about 400 bytes of JSON each, no events) in one resource and
// scope, marked read-only.
func Traces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	resource(rs.Resource())
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("checkout.http")
	ss.Spans().EnsureCapacity(n)
	for i := range n {
		s := ss.Spans().AppendEmpty()
		start := pcommon.Timestamp(baseTime + i*1000)
		s.SetStartTimestamp(start)
		s.SetEndTimestamp(start + 1_500_000)
		s.SetTraceID(pcommon.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
		s.SetSpanID(pcommon.SpanID{0xeb, 0xa1, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i), 0x7a, 0x01})
		s.SetName("POST /orders")
		s.SetKind(ptrace.SpanKindServer)
		s.Attributes().PutStr("http.method", "POST")
		s.Attributes().PutInt("http.status_code", 201)
	}
	td.MarkReadOnly()
	return td
}

// Metrics returns n gauge data points, each with its own attributes and so its own document
// (about 300 bytes of JSON each), in one resource and scope, all at one timestamp, marked
// read-only. The exporter puts data points of the same resource, scope, attributes and
// timestamp into one document: pushes that merge several of these must give each a different
// timestamp (see MetricsAt) to keep one document per data point.
func Metrics(n int) pmetric.Metrics { return MetricsAt(n, 0) }

// MetricsAt is Metrics with the timestamp moved by offset nanoseconds.
func MetricsAt(n int, offset int64) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	resource(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("checkout.runtime")
	m := sm.Metrics().AppendEmpty()
	m.SetName("process.cpu.utilization")
	m.SetUnit("1")
	dps := m.SetEmptyGauge().DataPoints()
	dps.EnsureCapacity(n)
	for i := range n {
		dp := dps.AppendEmpty()
		dp.SetTimestamp(pcommon.Timestamp(baseTime + offset))
		dp.SetDoubleValue(float64(i%100) / 100)
		dp.Attributes().PutInt("cpu", int64(i))
		dp.Attributes().PutStr("state", "user")
	}
	md.MarkReadOnly()
	return md
}
