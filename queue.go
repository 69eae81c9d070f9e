// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
)

// The sending queue (sending_queue) is exporterhelper's; these are the settings the exporter
// derives from it.

// persistentQueue tells whether the sending queue keeps its batches in a storage extension.
func (c *Config) persistentQueue() bool {
	q := c.QueueBatchConfig.Get()
	return q != nil && q.StorageID != nil
}

// queueBatchConfig returns the sending queue settings to hand to
// exporterhelper: sending_queue with the batch partitioned by metadata_keys
// and always by x-elastic-mapping-mode. exporterhelper merges the requests
// of a batch into a context that keeps only the partition keys, so a key
// that is not one is lost before the push reads it. The Config itself is
// not modified.
func (c *Config) queueBatchConfig() configoptional.Optional[exporterhelper.QueueBatchConfig] {
	qc := c.QueueBatchConfig
	q := qc.Get()
	if q == nil {
		return qc
	}
	b := q.Batch.Get()
	if b == nil {
		return qc
	}
	keys := b.Partition.MetadataKeys
	if len(c.MetadataKeys) > 0 {
		keys = c.MetadataKeys
	}
	// qc is a copy, but the slices inside are shared: give the partition its own slice.
	keys = slices.Clone(keys)
	if !slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, pipeline.MappingModeMetadataKey) }) {
		keys = append(keys, pipeline.MappingModeMetadataKey)
	}
	b.Partition.MetadataKeys = keys
	return qc
}

// maxBulkBytes is the largest uncompressed NDJSON body of one bulk request:
// each push is cut into bulk requests of at most this size. It follows
// sending_queue::batch::max_size when the batch is sized in bytes.
func (c *Config) maxBulkBytes() int {
	if q := c.QueueBatchConfig.Get(); q != nil {
		if b := q.Batch.Get(); b != nil && b.Sizer == exporterhelper.RequestSizerTypeBytes && b.MaxSize > 0 {
			return int(b.MaxSize)
		}
	}
	return defaultMaxBulkBytes
}

// maxBulkDocs is the most documents of one bulk request, shared by pushes or not:
// sending_queue::batch::max_size when the batch is sized in items (Beats' bulk_max_size, in
// the configurations Elastic Agent makes), 0 (no cap) otherwise.
func (c *Config) maxBulkDocs() int {
	if q := c.QueueBatchConfig.Get(); q != nil {
		if b := q.Batch.Get(); b != nil && b.Sizer == exporterhelper.RequestSizerTypeItems && b.MaxSize > 0 {
			return int(b.MaxSize)
		}
	}
	return 0
}

// maxConcurrentRequests returns the cap on bulk requests in flight: max_conns_per_host when it
// is set and flow_control::max_concurrent_requests is not (contrib sends as many bulk requests
// as its connections allow: Elastic Agent sets max_conns_per_host to the Beats output's
// workers), else flow_control::max_concurrent_requests, whose 0 means
// sending_queue::num_consumers, or defaultMaxConcurrentRequests when the sending queue is off.
func (c *Config) maxConcurrentRequests() int {
	if !c.set.maxConcurrentRequests && c.MaxConnsPerHost > 0 {
		return c.MaxConnsPerHost
	}
	if n := c.FlowControl.MaxConcurrentRequests; n > 0 {
		return n
	}
	if q := c.QueueBatchConfig.Get(); q != nil && q.NumConsumers > 0 {
		return q.NumConsumers
	}
	return defaultMaxConcurrentRequests
}

// numConsumers returns sending_queue::num_consumers, the pushes of a signal that run at once,
// or defaultNumConsumers when the sending queue is off (pushes then run on the callers'
// goroutines, as many as call).
func (c *Config) numConsumers() int {
	if q := c.QueueBatchConfig.Get(); q != nil && q.NumConsumers > 0 {
		return q.NumConsumers
	}
	return defaultNumConsumers
}
