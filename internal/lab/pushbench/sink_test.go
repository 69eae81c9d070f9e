// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

// benchSinkEnv, when set in the environment of this test binary, makes it run the bulk sink
// (internal/lab/bulksink) with the arguments it holds instead of the tests: processSink starts the
// binary again that way, so that the benchmarks' sink runs in a process of its own.
const benchSinkEnv = "ESEXPORTER_BENCH_SINK"

func init() {
	args, ok := os.LookupEnv(benchSinkEnv)
	if !ok {
		return
	}
	if err := bulksink.Main(context.Background(), strings.Fields(args), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bulksink:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// processSink starts the bulk sink in a child process (this test binary, see init) and returns
// its URL; it answers one created item per document, counted from X-Elastic-Event-Count
// without decompressing the body. The sink's CPU is not the benchmark process's: cpu-ns/event
// (getrusage RUSAGE_SELF) leaves it out, though the sink still shares the machine's cores with
// the benchmark, which events/s feels.
func processSink(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchSinkEnv+"=-count=header -stdin")
	cmd.Stderr = os.Stderr
	p, err := bulksink.Start(cmd)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = p.Stop() })
	return p.URL
}
