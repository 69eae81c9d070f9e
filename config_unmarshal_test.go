// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

func TestLogDeprecations(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	cfg, err := loadConfig(t, "config.yaml", "deprecated")
	require.NoError(t, err)

	core, logs := observer.New(zap.WarnLevel)
	cfg.logDeprecations(zap.New(core))
	require.Equal(t, len(cfg.deprecations), logs.Len())
	for i, entry := range logs.All() {
		assert.Equal(t, cfg.deprecations[i], entry.Message)
	}
}

// A removed key or a bad deprecated value fails the load, and the collector then validates
// nothing: the load reports them with every problem the validation finds in the other keys.
func TestUnmarshalReportsEveryProblem(t *testing.T) {
	_, err := unmarshalMap(map[string]any{
		"endpoint":    "http://es-1:9200",
		"index":       "logs",
		"mapping":     map[string]any{"dedup": true},
		"num_workers": -1,
		"compression": "zstd",
		"retry":       map[string]any{"initial_interval": "2m", "max_interval": "1m"},
	})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"`index` was removed; use `logs_index` / `traces_index`",
		"`mapping::dedup` was removed with no replacement",
		"`num_workers` must be 0 (the default) or more, got -1",
		"`compression` must be `gzip`, `snappy` or `none`, got \"zstd\"",
		"`retry::initial_interval` (2m0s) must not exceed `retry::max_interval` (1m0s)",
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "invalid keys", "a removed key is not reported again as unknown")
}

// A decode error is reported with the other decode errors, the removed keys and the bad
// deprecated values, but the values that did decode are not validated (see Unmarshal).
func TestUnmarshalDecodeErrorSkipsValidation(t *testing.T) {
	_, err := unmarshalMap(map[string]any{
		"endpoint":    "http://es-1:9200",
		"batcher":     map[string]any{"enabled": true},
		"flush":       map[string]any{"bytes": "big"},
		"num_workers": -3,
		"timeout":     "soon",
		"max_tries":   3,
		"compression": "zstd",
	})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"`batcher` was removed; use `sending_queue::batch`",
		"'flush.bytes' expected type 'int64'",
		"`num_workers` must be 0 (the default) or more, got -3",
		"'timeout' time: invalid duration",
		"invalid keys: max_tries",
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "`compression`", "not validated after a decode error")

	// Without a removed key, a bad deprecated value or a decode error, the load succeeds and
	// leaves the validation to the collector.
	cfg, err := unmarshalMap(map[string]any{"endpoint": "http://es-1:9200", "compression": "zstd"})
	require.NoError(t, err)
	require.ErrorContains(t, cfg.Validate(), "`compression` must be `gzip`, `snappy` or `none`")
}

// The deprecated numbers accept what their messages say: 0, which leaves the replacement at its
// default, or more; a negative value is refused with that message.
func TestDeprecatedNumbersAcceptZero(t *testing.T) {
	def := defaultWith()
	for _, tt := range []struct {
		key            string
		zero, negative any
		zeroNote, msg  string
	}{
		{
			"retry::max_requests", 0, -1,
			"`retry::max_requests` is deprecated; use `retry::max_retries` (0 meant the default: retry::max_retries left at 30)",
			"`retry::max_requests` must be 0 (the default: `retry::max_retries` unchanged) or more (it counts the first attempt), got -1; use `retry::max_retries` instead",
		},
		{
			"num_workers", 0, -1,
			"`num_workers` is deprecated; use `sending_queue::num_consumers` (0 meant the default: left unchanged)",
			"`num_workers` must be 0 (the default) or more, got -1; use `sending_queue::num_consumers` instead",
		},
		{
			"flush::bytes", 0, -1,
			"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (0 meant the default: left unchanged)",
			"`flush::bytes` must be 0 (the default) or more, got -1; use `sending_queue::batch::max_size` instead",
		},
		{
			"flush::interval", "0s", "-1s",
			"`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (0 meant the default: left unchanged)",
			"`flush::interval` must be 0 (the default) or more, got -1s; use `sending_queue::batch::flush_timeout` instead",
		},
	} {
		t.Run(tt.key, func(t *testing.T) {
			conf := func(v any) map[string]any {
				m := map[string]any{"endpoint": "http://es-1:9200"}
				if parent, leaf, ok := strings.Cut(tt.key, "::"); ok {
					m[parent] = map[string]any{leaf: v}
				} else {
					m[tt.key] = v
				}
				return m
			}
			cfg, err := unmarshalMap(conf(tt.zero))
			require.NoError(t, err)
			require.NoError(t, cfg.Validate())
			assert.Equal(t, []string{tt.zeroNote}, cfg.deprecations)
			assert.Equal(t, def.Retry, cfg.Retry)
			assert.Equal(t, def.QueueBatchConfig, cfg.QueueBatchConfig)

			_, err = unmarshalMap(conf(tt.negative))
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

// compression: snappy loads with the default compression_params, whose level 1 is gzip's
// (confighttp refuses any level for snappy), and passes every validation.
func TestSnappyLoadsWithoutLevel(t *testing.T) {
	cfg, err := unmarshalMap(map[string]any{"endpoint": "http://es-1:9200", "compression": "snappy"})
	require.NoError(t, err)
	assert.Equal(t, configcompression.TypeSnappy, cfg.Compression)
	assert.Zero(t, cfg.CompressionParams.Level)
	require.NoError(t, confmap.Validate(cfg))

	// gzip keeps its default level.
	cfg, err = unmarshalMap(map[string]any{"endpoint": "http://es-1:9200", "compression": "gzip"})
	require.NoError(t, err)
	assert.Equal(t, configcompression.Level(1), cfg.CompressionParams.Level)
}
