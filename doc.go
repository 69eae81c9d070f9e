// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:generate make generate

// Package elasticsearchexporter implements an OpenTelemetry Collector exporter,
// of component type "elasticsearch", that writes logs, spans, span events,
// metrics and profiles (in a collector that enables the service.profilesSupport
// feature gate) to Elasticsearch through the _bulk API. This package is the
// component: configuration, factory and lifecycle; each push runs in
// internal/pipeline.
//
// Each pdata record is serialized straight into the NDJSON body of a bulk
// request by a handwritten encoder: there is no intermediate document model,
// no map[string]any and no reflection between pdata and the bytes on the wire.
// The default mapping mode, "otel", keeps the OpenTelemetry data model
// (resource, scope, attributes) as Elasticsearch's OTel-native data streams
// expect it; the modes "ecs", "none", "raw" and "bodymap" write the layouts of
// the contrib exporter's modes of the same names.
//
// Queueing and batching are left to exporterhelper, configured through the
// usual sending_queue settings. Retries are not: the exporter retries inside
// the push, resending only the documents that have no final outcome yet (the
// retry settings), so exporterhelper's retry_on_failure is not offered; timeout
// bounds each bulk request. The exporter records its own telemetry
// (elasticsearch.bulk_requests.*, elasticsearch.docs.*,
// elasticsearch.flushed.*, elasticsearch.inflight.bytes,
// elasticsearch.startup_check) as described in documentation.md. The configuration is described in docs/configuration.md,
// the code's layout in docs/architecture.md.
package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"
