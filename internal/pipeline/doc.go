// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package pipeline runs one push of the exporter: it turns the pdata of a logs, metrics,
// traces or profiles push into documents and hands them to the bulk indexer, and counts what
// became of each record. The exporter (the root package) builds one Pipeline per component at
// start, after the bulk indexer that sends its documents, and hands it the pushes of
// exporterhelper (PushLogs, PushMetrics, PushTraces and PushProfiles).
//
// Its files are in the order a push runs:
//
//   - pipeline.go: the Pipeline, its Settings, and push, the one path of the four signals
//     (internal/signal names them);
//   - admission.go: room under the in-flight byte cap (flow_control::max_inflight_bytes), taken
//     from an estimate before encoding and corrected to the encoded size before sending;
//   - mode.go: the mapping mode of each scope (scope attribute, client metadata, default);
//   - walk.go: the push's scratch state and the set-up of each scope; then the walk of each
//     signal over its resources, scopes and records: logs.go, traces.go (with spanevents.go,
//     the routers of span events bound for Elastic APM's data streams), metrics.go,
//     profiles.go;
//   - route.go: the index or data stream of each record, and the _noindex skip;
//   - encode.go: the serializer's use (it appends documents to the batch, repairs, rejects a
//     record alone);
//   - batch.go: each document's bulk item (ids, pipeline) and the data streams seen;
//   - send.go: the bulk indexer's Send (internal/bulk: requests, group commit, retries,
//     outcomes, dead letters);
//   - accounting.go: what the push did not send and what encoding repaired, collected in one
//     report that the bulk indexer, the one writer of document telemetry, counts; rejections
//     logged;
//   - queue.go: the push's error, and the persistent-queue rule.
package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
