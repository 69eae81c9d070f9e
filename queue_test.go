// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// TestDefaultQueueDoesNotHoldSmallRequests sends three times num_consumers small requests
// through the sending queue as shipped. The queue frees a request's room only once the batch
// holding it is sent, so a batch never holds more than the queue: with a min_size above what
// it holds, each batch waits out the 10 s flush_timeout while every caller
// blocks (at 1 MB, the 11th request here waits 10 s for room, and the test fails).
func TestDefaultQueueDoesNotHoldSmallRequests(t *testing.T) {
	srv := fakees.New(t)
	cfg := defaultWith()
	cfg.Endpoints = []string{srv.URL}
	exp := newLogsExporter(t, cfg, testSettings())

	const records = 10
	// More requests than num_consumers pushes at once, so that the later ones wait in the queue.
	requests := 3 * queueOf(cfg).NumConsumers
	// block_on_overflow: a call waits while the queue is full, and fails when ctx ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range requests {
		require.NoError(t, exp.ConsumeLogs(ctx, testLogs(records)), "request %d waited for room in the queue", i)
	}
	require.Eventually(t, func() bool { return len(srv.Accepted()) == requests*records }, 5*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, srv.Requests(), 2, "small requests are not all held for one batch")
}

func TestMaxBulkBytes(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want int
	}{
		{"default", func(*Config) {}, 5_000_000},
		{"bytes_max_size", func(c *Config) { batchOf(c).MaxSize = 8_000_000 }, 8_000_000},
		{"bytes_no_max_size", func(c *Config) { batchOf(c).MaxSize = 0 }, defaultMaxBulkBytes},
		{"items_sizer", func(c *Config) {
			batchOf(c).Sizer = exporterhelper.RequestSizerTypeItems
			batchOf(c).MaxSize = 1000
		}, defaultMaxBulkBytes},
		{"batch_disabled", func(c *Config) {
			queueOf(c).Batch = configoptional.None[exporterhelper.BatchConfig]()
		}, defaultMaxBulkBytes},
		{"queue_disabled", func(c *Config) {
			c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
		}, defaultMaxBulkBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, defaultWith(tt.edit).maxBulkBytes())
		})
	}
}

// sending_queue::batch::max_size caps the documents of every bulk request when the batch is
// sized in items (Beats' bulk_max_size); other sizers leave them uncapped.
func TestMaxBulkDocs(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want int
	}{
		{"default_bytes", func(*Config) {}, 0},
		{"items_sizer", func(c *Config) {
			batchOf(c).Sizer = exporterhelper.RequestSizerTypeItems
			batchOf(c).MaxSize = 1600
		}, 1600},
		{"items_no_max_size", func(c *Config) {
			batchOf(c).Sizer = exporterhelper.RequestSizerTypeItems
			batchOf(c).MaxSize = 0
		}, 0},
		{"requests_sizer", func(c *Config) {
			batchOf(c).Sizer = exporterhelper.RequestSizerTypeRequests
			batchOf(c).MaxSize = 3
		}, 0},
		{"batch_disabled", func(c *Config) {
			queueOf(c).Batch = configoptional.None[exporterhelper.BatchConfig]()
		}, 0},
		{"queue_disabled", func(c *Config) {
			c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, defaultWith(tt.edit).maxBulkDocs())
		})
	}
}

func TestMaxConcurrentRequests(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want int
	}{
		{"default", func(*Config) {}, 10},
		{"default_not_num_consumers", func(c *Config) { queueOf(c).NumConsumers = 25 }, 10},
		{"zero_num_consumers", func(c *Config) {
			queueOf(c).NumConsumers = 25
			c.FlowControl.MaxConcurrentRequests = 0
		}, 25},
		{"explicit", func(c *Config) {
			queueOf(c).NumConsumers = 25
			c.FlowControl.MaxConcurrentRequests = 3
		}, 3},
		{"zero_queue_disabled", func(c *Config) {
			c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
			c.FlowControl.MaxConcurrentRequests = 0
		}, defaultMaxConcurrentRequests},
		{"max_conns_per_host", func(c *Config) { c.MaxConnsPerHost = 60 }, 60},
		{"max_conns_per_host_below", func(c *Config) { c.MaxConnsPerHost = 4 }, 4},
		{"max_conns_per_host_with_the_cap_set", func(c *Config) {
			c.MaxConnsPerHost = 60
			c.FlowControl.MaxConcurrentRequests = 3
			c.set.maxConcurrentRequests = true
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, defaultWith(tt.edit).maxConcurrentRequests())
		})
	}
}

func TestQueueBatchConfigMetadataKeys(t *testing.T) {
	cfg := defaultWith(func(c *Config) { c.MetadataKeys = []string{"X-Tenant"} })

	qc := cfg.queueBatchConfig()
	assert.Equal(t, []string{"X-Tenant", "x-elastic-mapping-mode"}, qc.Get().Batch.Get().Partition.MetadataKeys)
	// The Config itself is left as loaded.
	assert.Empty(t, batchOf(cfg).Partition.MetadataKeys)

	// The mapping mode key is always a partition key, and not added twice.
	plain := defaultWith()
	pqc := plain.queueBatchConfig()
	assert.Equal(t, []string{"x-elastic-mapping-mode"}, pqc.Get().Batch.Get().Partition.MetadataKeys)
	assert.Empty(t, batchOf(plain).Partition.MetadataKeys)
	own := defaultWith(func(c *Config) { batchOf(c).Partition.MetadataKeys = []string{"X-Elastic-Mapping-Mode", "tenant"} })
	oqc := own.queueBatchConfig()
	assert.Equal(t, []string{"X-Elastic-Mapping-Mode", "tenant"}, oqc.Get().Batch.Get().Partition.MetadataKeys)

	// Without batching there is nothing to partition.
	noBatch := defaultWith(func(c *Config) {
		q := c.QueueBatchConfig.Get()
		q.Batch = configoptional.None[exporterhelper.BatchConfig]()
	})
	assert.Equal(t, noBatch.QueueBatchConfig, noBatch.queueBatchConfig())
}

// With the sending queue off, pushes run on their callers' goroutines; the free list then keeps
// as many states as the default number of consumers.
func TestPushStatesWithoutQueue(t *testing.T) {
	cfg := defaultWith()
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	assert.Equal(t, defaultNumConsumers, cfg.numConsumers())
}
