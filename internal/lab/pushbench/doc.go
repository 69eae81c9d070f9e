// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package pushbench holds the push benchmarks of the exporter, which `make bench` and `make
// request-cost` run: BenchmarkPush and BenchmarkPushParallel (per signal, corpus and records
// per push, the factory-built exporter against the serializer alone, gzip alone and pdata's
// OTLP marshalers) and BenchmarkRequestCost (the fixed cost of one bulk request), with
// TestBenchmarkData, which keeps their records honest. They use what a user of the exporter
// has (NewFactory, Config, the collector's exportertest and componenttest) and, by import
// path, the internal packages they measure (serializer, profilecache, bulk), so that the
// exporter's module requires nothing for them. The bulk sink runs in a process of its own,
// cmd/bulksink built once per test binary (see processSink), so that the CPU time the
// benchmarks report is the exporter's alone.
package pushbench // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/pushbench"
