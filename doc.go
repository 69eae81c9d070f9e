// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:generate make generate

// Package elasticsearchexporter implements an OpenTelemetry Collector exporter,
// of component type "elasticsearch", that writes logs and traces to
// Elasticsearch through the _bulk API. Metrics follow later.
//
// Each pdata record is serialized straight into the NDJSON body of a bulk
// request by a handwritten encoder: there is no intermediate document model,
// no map[string]any and no reflection between pdata and the bytes on the wire.
// The first mapping mode is "otel", which keeps the OpenTelemetry data model
// (resource, scope, attributes) as Elasticsearch's OTel-native data streams
// expect it; other mapping modes (ECS, raw, bodymap) are not goals for now.
//
// Queueing, batching, timeouts and retries of whole requests are left to
// exporterhelper, configured through the usual sending_queue, timeout and
// retry_on_failure settings. The exporter records its own telemetry
// (elasticsearch.bulk_requests.*, elasticsearch.docs.*,
// elasticsearch.flushed.*) as described in documentation.md.
package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"
