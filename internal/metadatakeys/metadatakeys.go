// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package metadatakeys records the client metadata named by metadata_keys as attributes of the
// self-telemetry, as contrib does.
package metadatakeys // import "github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"

import (
	"context"
	"strings"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/otel/attribute"
)

// Lower returns the metadata_keys as the attribute names they are recorded under:
// lower-cased, as contrib records them.
func Lower(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.ToLower(k)
	}
	return out
}

// Attributes appends to dst an attribute per key (see Lower) that the client
// metadata of ctx holds, named after the key and holding its values, as contrib records them
// on its self-telemetry. Client metadata keys are case-insensitive.
func Attributes(ctx context.Context, keys []string, dst []attribute.KeyValue) []attribute.KeyValue {
	if len(keys) == 0 {
		return dst
	}
	info := client.FromContext(ctx)
	for _, k := range keys {
		if v := info.Metadata.Get(k); len(v) > 0 {
			dst = append(dst, attribute.StringSlice(k, v))
		}
	}
	return dst
}
