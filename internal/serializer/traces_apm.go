// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Span events of the ecs mode written for Elastic APM's data streams
// (mapping::ecs_span_events_to_logs): the pipeline routes an exception to logs-apm.error-* and
// every other event to logs-apm.app.*-*, and the documents are the ECS log documents of
// appendSpanEventECS, except that an exception leaves out error.grouping_name, which the
// templates of logs-apm.error compute with a script and would refuse from the document.

// IsSpanEventException reports whether ev records an exception in Elastic APM's sense: it is
// named "exception" and has the attribute exception.type or exception.message.
func IsSpanEventException(ev ptrace.SpanEvent) bool {
	if ev.Name() != "exception" {
		return false
	}
	attrs := ev.Attributes()
	if _, ok := attrs.Get("exception.type"); ok {
		return true
	}
	_, ok := attrs.Get("exception.message")
	return ok
}

// AppendSpanEventAPM appends the document of a span event bound for Elastic APM's data streams
// to dst and returns the extended buffer: the ECS log document that AppendSpanEvent writes in
// the ecs mode, without error.grouping_name for an exception (IsSpanEventException). Only the
// ecs mode writes it; the others reject the event: dst comes back unchanged and Rejection says
// why.
func (e *Encoder) AppendSpanEventAPM(dst []byte, span ptrace.Span, ev ptrace.SpanEvent, ds DataStream) []byte {
	if e.mode != ModeECS {
		return e.reject(dst, RejectionUnsupported)
	}
	rule := ecsLogRule
	if IsSpanEventException(ev) {
		rule = ecsErrorEventRule
	}
	return e.appendSpanEventECS(dst, span, ev, ds, rule)
}

// ecsErrorEventRule converts the attributes of an exception span event bound for
// logs-apm.error: as ecsLogRule, but error.grouping_name is left out, as contrib leaves it out
// of error documents.
func ecsErrorEventRule(k string) (string, ecsRule) {
	if k == "error.grouping_name" {
		return "", ecsSkip
	}
	return ecsLogRule(k)
}
