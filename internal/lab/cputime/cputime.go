// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package cputime reads the CPU time the calling process has used, which the benchmarks and
// the bulk sink report: unlike wall time, it hardly moves when other jobs share the machine.
package cputime // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/cputime"
