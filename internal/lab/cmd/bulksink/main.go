// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Command bulksink is a stand-in for Elasticsearch that answers each `_bulk` request with one
// created item per document and counts documents and bytes (internal/lab/bulksink), for `make
// cost`, which runs it as a process of its own beside the collector it measures, and for the
// push benchmarks (internal/lab/pushbench), which build it and run it beside themselves.
//
//	bulksink -listen 127.0.0.1:9200 -count lines
//
// Its first line on stdout says where it listens; GET /_sink/stats returns its counters.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bulksink:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bulksink.Main(ctx, os.Args[1:], os.Stdin, os.Stdout)
}
