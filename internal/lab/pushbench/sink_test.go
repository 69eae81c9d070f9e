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
)

// binDir is the folder, made by TestMain and removed when the tests end, into which
// sinkBinary builds cmd/bulksink.
var binDir string

func TestMain(m *testing.M) {
	code := run(m)
	os.Exit(code)
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
