// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pushbench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

// binDir is the folder, made by TestMain and removed when the tests end, into which
// sinkBinary builds cmd/bulksink.
var binDir string

func TestMain(m *testing.M) {
	code := run(m)
	os.Exit(code)
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pushbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pushbench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "pushbench: goroutines leaked:", err)
			return 1
		}
	}
	return code
}

// sinkBinary builds cmd/bulksink into binDir, once per test binary and only when a benchmark
// asks for the sink (TestBenchmarkData does not), and returns its path. It runs the go command
// on PATH, or $GO: `go test` puts the go command it was started with first on PATH. The
// test binary runs in this package's folder (go test and scripts/bench-compare.sh both start
// it there), so ../cmd/bulksink is the sink of the same tree.
var sinkBinary = sync.OnceValues(func() (string, error) {
	gocmd := os.Getenv("GO")
	if gocmd == "" {
		gocmd = "go"
	}
	bin := filepath.Join(binDir, "bulksink")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(gocmd, "build", "-o", bin, "../cmd/bulksink").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ../cmd/bulksink: %w\n%s", err, out)
	}
	return bin, nil
})

// processSink starts the bulk sink (cmd/bulksink, built by sinkBinary) in a child process and
// returns its URL; it answers one created item per document, counted from
// X-Elastic-Event-Count without decompressing the body. The sink's CPU is not the benchmark
// process's: cpu-ns/event (getrusage RUSAGE_SELF) leaves it out, though the sink still shares
// the machine's cores with the benchmark, which events/s feels.
func processSink(tb testing.TB) string {
	tb.Helper()
	bin, err := sinkBinary()
	require.NoError(tb, err)
	cmd := exec.Command(bin, "-count=header", "-stdin")
	cmd.Stderr = os.Stderr
	p, err := bulksink.Start(cmd)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = p.Stop() })
	return p.URL
}

// bulkSink is a fake Elasticsearch in this process that answers every document as created:
// for TestBenchmarkData, which measures nothing.
func bulkSink(tb testing.TB) string {
	tb.Helper()
	return fakees.New(tb).URL
}
