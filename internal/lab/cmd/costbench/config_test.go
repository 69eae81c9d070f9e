// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	elasticsearchexporter "github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/otlpsink"
)

// TestQueueDefaults keeps the baseline's sending_queue equal to the exporter's default.
func TestQueueDefaults(t *testing.T) {
	cfg := elasticsearchexporter.NewFactory().CreateDefaultConfig().(*elasticsearchexporter.Config)
	q := cfg.QueueBatchConfig.Get()
	require.NotNil(t, q)
	assert.Equal(t, queueSizer, q.Sizer.String())
	assert.Equal(t, int64(queueSize), q.QueueSize)
	assert.Equal(t, queueNumConsumers, q.NumConsumers)
	assert.True(t, q.BlockOnOverflow)
	b := q.Batch.Get()
	require.NotNil(t, b)
	assert.Equal(t, exporterhelper.RequestSizerTypeBytes, b.Sizer)
	assert.Equal(t, int64(batchMinSize), b.MinSize)
	assert.Equal(t, int64(batchMaxSize), b.MaxSize)
	d, err := time.ParseDuration(batchFlush)
	require.NoError(t, err)
	assert.Equal(t, d, b.FlushTimeout)
	assert.Equal(t, int64(inflightCap), cfg.FlowControl.MaxInflightBytes)
}

func TestCollectorConfigExtra(t *testing.T) {
	cfg := collectorConfig(ports{1, 2, 3}, "elasticsearch", "http://127.0.0.1:9", "sending_queue:\n  queue_size: 40\n", "")
	assert.Contains(t, cfg, "  elasticsearch:\n    endpoint: http://127.0.0.1:9\n    sending_queue:\n      queue_size: 40\nextensions:\n")
	assert.NotContains(t, collectorConfig(ports{1, 2, 3}, "elasticsearch", "http://127.0.0.1:9", "", ""), "sending_queue")
}

func TestCollectorConfigOTLPHTTP(t *testing.T) {
	cfg := collectorConfig(ports{1, 2, 3}, exporterOTLPHTTP, "http://127.0.0.1:9", "", "")
	assert.Contains(t, cfg, "exporters:\n  otlphttp:\n    endpoint: http://127.0.0.1:9\nextensions:\n", "the defaults: the endpoint only")
	assert.Contains(t, cfg, "      exporters: [otlphttp]\n")
	blocking := collectorConfig(ports{1, 2, 3}, exporterOTLPHTTP, "http://127.0.0.1:9", blockOnOverflow, "")
	assert.Contains(t, blocking, "  otlphttp:\n    endpoint: http://127.0.0.1:9\n    sending_queue:\n      block_on_overflow: true\nextensions:\n")
}

func TestCollectorConfigMemoryLimiter(t *testing.T) {
	cfg := collectorConfig(ports{1, 2, 3}, exporterES, "http://127.0.0.1:9", "", "check_interval: 1s\nlimit_mib: 400\n")
	assert.Contains(t, cfg, "processors:\n  memory_limiter:\n    check_interval: 1s\n    limit_mib: 400\nexporters:\n")
	assert.Equal(t, 3, strings.Count(cfg, "      receivers: [otlp]\n      processors: [memory_limiter]\n      exporters: [elasticsearch]\n"))
	assert.NotContains(t, collectorConfig(ports{1, 2, 3}, exporterES, "http://127.0.0.1:9", "", ""), "processors")
}

// TestSinkCounters keeps the counters that a run reads the same in both sinks' stats.
func TestSinkCounters(t *testing.T) {
	want := sinkCounters{Documents: 1, BodyBytes: 2, RawBytes: 3, CPUNanos: 4, Requests: 9}
	for name, stats := range map[string]any{
		"bulksink": bulksink.Stats{Documents: 1, BodyBytes: 2, RawBytes: 3, CPUNanos: 4, Requests: 9},
		"otlpsink": otlpsink.Stats{Documents: 1, BodyBytes: 2, RawBytes: 3, CPUNanos: 4, Requests: 9, LogRecords: 1},
	} {
		b, err := json.Marshal(stats)
		require.NoError(t, err)
		var got sinkCounters
		require.NoError(t, json.Unmarshal(b, &got))
		assert.Equal(t, want, got, name)
	}
	b, err := json.Marshal(bulksink.Stats{Encodings: map[string]int64{"snappy": 2}})
	require.NoError(t, err)
	var got sinkCounters
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, map[string]int64{"snappy": 2}, got.Encodings, "the bulk sink's requests by Content-Encoding")
}
