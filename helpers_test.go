// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"

	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
)

// newTestConfig returns the default config pointed at url, with the sending queue off so that
// push errors reach the caller, and short retry waits.
func newTestConfig(url string) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Endpoints = []string{url}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.Retry.InitialInterval = time.Millisecond
	cfg.Retry.MaxInterval = 5 * time.Millisecond
	return cfg
}

func testSettings() exporter.Settings {
	return exportertest.NewNopSettings(metadata.Type)
}

// startExporter starts c and shuts it down when the test ends.
func startExporter(t *testing.T, c component.Component) {
	t.Helper()
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
}

func newLogsExporter(t *testing.T, cfg *Config, set exporter.Settings) exporter.Logs {
	t.Helper()
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)
	return exp
}

func newTracesExporter(t *testing.T, cfg *Config, set exporter.Settings) exporter.Traces {
	t.Helper()
	exp, err := NewFactory().CreateTraces(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)
	return exp
}
