// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Command otlpsink is a stand-in for an OTLP/HTTP endpoint that answers every export request
// with success and counts the log records, spans and data points it received
// (internal/lab/otlpsink), for `make cost`, which runs it as a process of its own behind the
// otlphttp exporter it measures as the reference.
//
//	otlpsink -listen 127.0.0.1:4318
//
// Its first line on stdout says where it listens; GET /_sink/stats returns its counters.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/otlpsink"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := otlpsink.Main(ctx, os.Args[1:], os.Stdin, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
}
