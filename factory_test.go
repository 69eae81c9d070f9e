// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

func TestFactoryType(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "elasticsearch", f.Type().String())
	assert.Equal(t, component.StabilityLevelBeta, f.LogsStability())
	assert.Equal(t, component.StabilityLevelBeta, f.TracesStability())
}

func TestCreateDefaultConfig(t *testing.T) {
	cfg := NewFactory().CreateDefaultConfig()
	require.NoError(t, componenttest.CheckConfigStruct(cfg))

	// Pin every default that differs from the zero value.
	httpCfg := confighttp.NewDefaultClientConfig()
	httpCfg.Timeout = 90 * time.Second
	httpCfg.Compression = configcompression.TypeGzip
	httpCfg.CompressionParams.Level = 1

	batch := exporterhelper.NewDefaultBatchConfig()
	batch.Sizer = exporterhelper.RequestSizerTypeBytes
	batch.MinSize = 0
	batch.MaxSize = 5_000_000
	batch.FlushTimeout = 10 * time.Second
	queue := exporterhelper.NewDefaultQueueConfig()
	queue.Sizer = exporterhelper.RequestSizerTypeBytes
	queue.NumConsumers = 10
	queue.QueueSize = 20 << 20
	queue.BlockOnOverflow = true
	queue.Batch = configoptional.Some(batch)

	want := &Config{
		ClientConfig: httpCfg,
		Mapping: MappingConfig{
			Mode:         "otel",
			AllowedModes: []string{"otel", "ecs", "none", "raw", "bodymap"},
		},
		LogstashFormat: LogstashFormatConfig{PrefixSeparator: "-", DateFormat: "%Y.%m.%d"},
		Retry: RetryConfig{
			Enabled:         true,
			MaxRetries:      30,
			InitialInterval: 100 * time.Millisecond,
			MaxInterval:     time.Minute,
			RetryOnStatus:   []int{429, 502, 503, 504},
			AuthGracePeriod: time.Minute,
		},
		QueueBatchConfig:       configoptional.Some(queue),
		DeadLetter:             DeadLetterConfig{Index: "otel-dead-letters"},
		BulkResponseFilterPath: "items.*._index,items.*.status,items.*.failure_store,items.*.error.type,items.*.error.reason",
		Telemetry:              TelemetryConfig{LogFailedDocsInputRateLimit: time.Second},
		FlowControl: FlowControlConfig{
			MaxInflightBytes:      64 << 20,
			MaxConcurrentRequests: 10,
			AdaptiveConcurrency:   AdaptiveConcurrencyConfig{Enabled: true},
		},
	}
	assert.Equal(t, want, cfg)
	// Keep-alive stays on: a zero confighttp.ClientConfig would turn it off.
	assert.True(t, cfg.(*Config).Keepalive.HasValue())
}

func TestCreateExporters(t *testing.T) {
	ctx := context.Background()
	f := NewFactory()
	cfg := defaultWith(onTestEndpoint)
	set := settingsFor("create")

	logs, err := f.CreateLogs(ctx, set, cfg)
	require.NoError(t, err)
	require.NotNil(t, logs)
	traces, err := f.CreateTraces(ctx, set, cfg)
	require.NoError(t, err)
	require.NotNil(t, traces)

	// The exporter itself does not modify data, but exporterhelper's batcher
	// does, and says so when sending_queue::batch is on (the default).
	assert.True(t, logs.Capabilities().MutatesData)
	assert.True(t, traces.Capabilities().MutatesData)

	require.NoError(t, logs.Shutdown(ctx))
	require.NoError(t, traces.Shutdown(ctx))
	assert.Nil(t, sharedFor(set.ID, cfg))
}

func TestCreateExportersWithoutBatching(t *testing.T) {
	ctx := context.Background()
	f := NewFactory()
	set := settingsFor("nobatch")

	for name, edit := range map[string]func(*Config){
		"batch_disabled": func(c *Config) { c.QueueBatchConfig.Get().Batch = configoptional.None[exporterhelper.BatchConfig]() },
		"queue_disabled": func(c *Config) { c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]() },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := defaultWith(onTestEndpoint)
			edit(cfg)
			logs, err := f.CreateLogs(ctx, set, cfg)
			require.NoError(t, err)
			traces, err := f.CreateTraces(ctx, set, cfg)
			require.NoError(t, err)
			assert.False(t, logs.Capabilities().MutatesData)
			assert.False(t, traces.Capabilities().MutatesData)
			require.NoError(t, logs.Shutdown(ctx))
			require.NoError(t, traces.Shutdown(ctx))
		})
	}
}

func TestSharedExporter(t *testing.T) {
	ctx := context.Background()
	f := NewFactory()
	cfgA, cfgB := defaultWith(onTestEndpoint), defaultWith(onTestEndpoint)
	setA, setB := settingsFor("a"), settingsFor("b")

	logsA, err := f.CreateLogs(ctx, setA, cfgA)
	require.NoError(t, err)
	sharedA := sharedFor(setA.ID, cfgA)
	require.NotNil(t, sharedA)

	tracesA, err := f.CreateTraces(ctx, setA, cfgA)
	require.NoError(t, err)
	assert.Same(t, sharedA, sharedFor(setA.ID, cfgA), "logs and traces of one ID share one exporter")
	assert.Equal(t, 2, sharedA.refs)

	logsB, err := f.CreateLogs(ctx, setB, cfgB)
	require.NoError(t, err)
	sharedB := sharedFor(setB.ID, cfgB)
	require.NotNil(t, sharedB)
	assert.NotSame(t, sharedA.exp, sharedB.exp, "different IDs get different exporters")

	// The same ID with another configuration does not reuse A's instance.
	cfgA2 := defaultWith(onTestEndpoint)
	logsA2, err := f.CreateLogs(ctx, setA, cfgA2)
	require.NoError(t, err)
	require.NotNil(t, sharedFor(setA.ID, cfgA2))
	assert.NotSame(t, sharedA.exp, sharedFor(setA.ID, cfgA2).exp)
	require.NoError(t, logsA2.Shutdown(ctx))

	// The instance lives until its last signal shuts down; a repeated
	// shutdown does not drop the other signal's reference.
	require.NoError(t, logsA.Shutdown(ctx))
	require.NoError(t, logsA.Shutdown(ctx))
	assert.Same(t, sharedA, sharedFor(setA.ID, cfgA))
	assert.Equal(t, 1, sharedA.refs)
	require.NoError(t, tracesA.Shutdown(ctx))
	assert.Nil(t, sharedFor(setA.ID, cfgA))

	// A later create for the same ID builds a fresh instance.
	tracesA, err = f.CreateTraces(ctx, setA, cfgA)
	require.NoError(t, err)
	require.NotNil(t, sharedFor(setA.ID, cfgA))
	assert.NotSame(t, sharedA, sharedFor(setA.ID, cfgA))
	require.NoError(t, tracesA.Shutdown(ctx))

	require.NoError(t, logsB.Shutdown(ctx))
	assert.Nil(t, sharedFor(setB.ID, cfgB))
}

func TestDeprecationWarningsLoggedOnce(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	cfg, err := loadConfig(t, "config.yaml", "deprecated")
	require.NoError(t, err)
	require.NotEmpty(t, cfg.deprecations)

	core, logs := observer.New(zap.WarnLevel)
	set := settingsFor("deprecated")
	set.Logger = zap.New(core)

	ctx := context.Background()
	f := NewFactory()
	le, err := f.CreateLogs(ctx, set, cfg)
	require.NoError(t, err)
	te, err := f.CreateTraces(ctx, set, cfg)
	require.NoError(t, err)

	// One warning per deprecated key for the component, not per signal.
	var got []string
	for _, e := range logs.All() {
		got = append(got, e.Message)
	}
	assert.Equal(t, cfg.deprecations, got)

	require.NoError(t, le.Shutdown(ctx))
	require.NoError(t, te.Shutdown(ctx))
}
