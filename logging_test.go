// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
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

// exporterhelper's sending queue logs a failed push with the line handBackLogCore looks for.
// The exporter is built by the factory with a persistent queue (so its logger has the
// wrapper); the server rejects every document for good, so the batch is dropped, and the
// collector's line about it starts with exportFailedDropping, with the error and a
// dropped_items count, and passes the wrapper as a drop. The test fails when the collector
// words the line otherwise. (TestPersistentQueueKeepsBatchGivenUpAtShutdown shows the same
// line rewritten for a batch handed back.)
func TestExporterhelperDropLineIsTheOneRecognized(t *testing.T) {
	srv := fakees.New(t)
	srv.OnRequest = func(*http.Request, []fakees.Item) int { return http.StatusBadRequest }
	cfg, host := queuedConfig(srv.URL, 10*time.Millisecond)
	set, logs := observed()
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), host))
	t.Cleanup(func() { require.NoError(t, exp.Shutdown(context.Background())) })
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))

	require.Eventually(t, func() bool { return logs.FilterLevelExact(zapcore.ErrorLevel).Len() > 0 },
		10*time.Second, 5*time.Millisecond, "exporterhelper logs the dropped batch at Error")
	line := logs.FilterLevelExact(zapcore.ErrorLevel).All()[0]
	t.Logf("exporterhelper: %q %v", line.Message, line.ContextMap())
	assert.True(t, strings.HasPrefix(line.Message, exportFailedDropping), "the line handBackLogCore recognizes")
	assert.Equal(t, int64(3), line.ContextMap()["dropped_items"], "the count handBackLogCore renames for a batch handed back")
	var errField bool
	for _, f := range line.Context {
		errField = errField || (f.Key == "error" && f.Type == zapcore.ErrorType)
	}
	assert.True(t, errField, "the error handBackLogCore reads, as an error field")
	assert.Zero(t, logs.FilterMessage(handedBackMessage).Len(), "a dropped batch is logged as dropped")
}
