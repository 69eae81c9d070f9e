// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
)

func TestHandBackLogCore(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	set := withHandBackLog(component.TelemetrySettings{Logger: zap.New(core)})
	logger := set.Logger.With(zap.String("otelcol.component.id", "elasticsearch"))

	handedBack := fmt.Errorf("interrupted: %w", fmt.Errorf("5 documents not sent: %w", bulk.ErrHandedBack))
	logger.Error(exportFailedDropping, zap.Error(handedBack), zap.Int("dropped_items", 5))
	logger.Error(exportFailedDropping, zap.Error(errors.New("retries exhausted")), zap.Int("dropped_items", 3))
	logger.Warn("something else", zap.Error(handedBack))

	all := logs.All()
	require.Len(t, all, 3)
	assert.Equal(t, zapcore.InfoLevel, all[0].Level)
	assert.Equal(t, handedBackMessage, all[0].Message)
	assert.Equal(t, map[string]any{"otelcol.component.id": "elasticsearch", "error": handedBack.Error(), "items": int64(5)}, all[0].ContextMap())
	assert.Equal(t, zapcore.ErrorLevel, all[1].Level, "a batch that was dropped is still logged as dropped")
	assert.Equal(t, exportFailedDropping, all[1].Message)
	assert.Equal(t, int64(3), all[1].ContextMap()["dropped_items"])
	assert.Equal(t, "something else", all[2].Message)
	assert.Equal(t, zapcore.WarnLevel, all[2].Level)

	quiet, quietLogs := observer.New(zapcore.WarnLevel)
	zap.New(handBackLogCore{quiet}).Error(exportFailedDropping, zap.Error(handedBack))
	assert.Zero(t, quietLogs.Len(), "at Info, the line follows the logger's level")
}

// injectingCore stands for the collector's core that adds the component's attributes,
// the signal among them, to every line.
type injectingCore struct {
	zapcore.Core
	attrs []string
}

func (c injectingCore) DropInjectedAttributes(dropped ...string) zapcore.Core {
	var keep []string
	for _, a := range c.attrs {
		if !slices.Contains(dropped, a) {
			keep = append(keep, a)
		}
	}
	return injectingCore{c.Core, keep}
}

func (c injectingCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c injectingCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	for _, a := range c.attrs {
		fields = append(fields, zap.String(a, "x"))
	}
	return c.Core.Write(ent, fields)
}

func TestSharedExporterLogsWithoutSignal(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	set := component.TelemetrySettings{Logger: zap.New(injectingCore{core, []string{"otelcol.component.id", signalKey}})}
	set.Logger.Info("a signal's line")
	withoutSignal(set).Logger.Info("the shared exporter's line")

	all := logs.All()
	require.Len(t, all, 2)
	assert.Contains(t, all[0].ContextMap(), signalKey)
	assert.NotContains(t, all[1].ContextMap(), signalKey)
	assert.Contains(t, all[1].ContextMap(), "otelcol.component.id")
}
