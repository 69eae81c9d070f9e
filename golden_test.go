// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

var update = flag.Bool("update", false, "rewrite the expected documents of the golden tests (never the hand-written ones)")

// TestGolden pushes each OTLP JSON input under testdata/golden through the factory-built
// exporter to a fake Elasticsearch and compares the bulk bodies it received with the .ndjson
// file beside the input: action lines decoded (docappender writes them from a Go map, so key
// order varies), documents byte for byte. The files under handwritten/ were written from
// DOCUMENTS.md by hand and are never rewritten by -update.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.ToSlash(in), ".json")
		t.Run(strings.TrimPrefix(name, "testdata/golden/"), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			require.NoError(t, err)
			srv := fakees.New(t)
			cfg := newTestConfig(srv.URL)
			switch {
			case bytes.Contains(raw, []byte(`"resourceLogs"`)):
				ld, unmarshalErr := (&plog.JSONUnmarshaler{}).UnmarshalLogs(raw)
				require.NoError(t, unmarshalErr)
				require.NoError(t, newLogsExporter(t, cfg, testSettings()).ConsumeLogs(context.Background(), ld))
			case bytes.Contains(raw, []byte(`"resourceSpans"`)):
				td, unmarshalErr := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
				require.NoError(t, unmarshalErr)
				require.NoError(t, newTracesExporter(t, cfg, testSettings()).ConsumeTraces(context.Background(), td))
			case bytes.Contains(raw, []byte(`"resourceMetrics"`)):
				md, unmarshalErr := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(raw)
				require.NoError(t, unmarshalErr)
				exp, createErr := NewFactory().CreateMetrics(context.Background(), testSettings(), cfg)
				require.NoError(t, createErr)
				startExporter(t, exp)
				require.NoError(t, exp.ConsumeMetrics(context.Background(), md))
			default:
				t.Fatalf("%s holds no resourceLogs, resourceSpans or resourceMetrics", in)
			}
			got := bytes.Join(srv.Bodies(), nil)
			wantFile := name + ".ndjson"
			if *update && !strings.Contains(name, "/handwritten/") {
				require.NoError(t, os.WriteFile(wantFile, got, 0o600))
			}
			want, err := os.ReadFile(wantFile)
			require.NoError(t, err, "run go test -update to write %s", wantFile)
			compareBulk(t, want, got)
		})
	}
}

// compareBulk compares two NDJSON bulk bodies: action lines as decoded JSON, source lines byte
// for byte, with a decoded diff on mismatch.
func compareBulk(t *testing.T, want, got []byte) {
	t.Helper()
	wantLines := splitLines(want)
	gotLines := splitLines(got)
	require.Len(t, gotLines, len(wantLines), "line count; got:\n%s", got)
	for i := range wantLines {
		if i%2 == 0 {
			assert.Equal(t, decode(t, wantLines[i]), decode(t, gotLines[i]), "action line %d", i+1)
			continue
		}
		if !bytes.Equal(wantLines[i], gotLines[i]) {
			assert.Equal(t, decode(t, wantLines[i]), decode(t, gotLines[i]), "document line %d differs in content", i+1)
			assert.Equal(t, string(wantLines[i]), string(gotLines[i]), "document line %d differs in bytes", i+1)
		}
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for line := range bytes.SplitSeq(bytes.TrimRight(b, "\n"), []byte("\n")) {
		out = append(out, line)
	}
	return out
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v), "invalid JSON: %s", b)
	return v
}
