// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"errors"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
)

// signalKey is the attribute the collector adds to each signal's logs, metrics and traces.
const signalKey = "otelcol.signal"

// The collector's cores and providers that carry injected attributes can drop them; the
// receivers the collector itself shares between signals drop the signal the same way.
type (
	attributeInjectingCore interface {
		DropInjectedAttributes(droppedAttrs ...string) zapcore.Core
	}
	attributeInjectingMeterProvider interface {
		DropInjectedAttributes(droppedAttrs ...string) metric.MeterProvider
	}
	attributeInjectingTracerProvider interface {
		DropInjectedAttributes(droppedAttrs ...string) trace.TracerProvider
	}
)

// withoutSignal returns ts without the signal attribute: the exporter that the logs, metrics
// and traces pipelines of one component share is created with the settings of the first
// signal, and its log lines and self-telemetry are about every signal.
func withoutSignal(ts component.TelemetrySettings) component.TelemetrySettings {
	ts.Logger = ts.Logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		if ic, ok := c.(attributeInjectingCore); ok {
			return ic.DropInjectedAttributes(signalKey)
		}
		return c
	}))
	if mp, ok := ts.MeterProvider.(attributeInjectingMeterProvider); ok {
		ts.MeterProvider = mp.DropInjectedAttributes(signalKey)
	}
	if tp, ok := ts.TracerProvider.(attributeInjectingTracerProvider); ok {
		ts.TracerProvider = tp.DropInjectedAttributes(signalKey)
	}
	return ts
}

// exportFailedDropping starts the line exporterhelper's sending queue logs at Error when a
// push returns an error.
const exportFailedDropping = "Exporting failed. Dropping data."

// handedBackMessage replaces it for a batch the exporter handed back at shutdown, which the
// persistent queue keeps.
const handedBackMessage = "Export interrupted by shutdown: the batch stays in the persistent queue and is sent after the restart"

// handBackLogCore makes exporterhelper's line about a failed push true for a batch handed
// back to the persistent queue (bulk.ErrHandedBack): it is logged at Info as kept, its
// dropped_items field renamed items. Every other line passes unchanged.
type handBackLogCore struct{ zapcore.Core }

func (c handBackLogCore) With(fields []zapcore.Field) zapcore.Core {
	return handBackLogCore{c.Core.With(fields)}
}

func (c handBackLogCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if strings.HasPrefix(ent.Message, exportFailedDropping) && c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return c.Core.Check(ent, ce)
}

func (c handBackLogCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	if !handedBack(fields) {
		return c.Core.Write(ent, fields)
	}
	ent.Level, ent.Message = zapcore.InfoLevel, handedBackMessage
	if !c.Enabled(ent.Level) {
		return nil
	}
	out := make([]zapcore.Field, len(fields))
	for i, f := range fields {
		if f.Key == "dropped_items" {
			f.Key = "items"
		}
		out[i] = f
	}
	return c.Core.Write(ent, out)
}

// handedBack tells whether fields hold an error that says the batch was handed back.
func handedBack(fields []zapcore.Field) bool {
	for _, f := range fields {
		if err, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType && errors.Is(err, bulk.ErrHandedBack) {
			return true
		}
	}
	return false
}

// withHandBackLog returns set with a logger whose exporterhelper lines about handed-back
// batches say what happened to them (see handBackLogCore).
func withHandBackLog(set component.TelemetrySettings) component.TelemetrySettings {
	set.Logger = set.Logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return handBackLogCore{c}
	}))
	return set
}
