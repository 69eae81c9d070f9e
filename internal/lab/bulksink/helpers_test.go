// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulksink

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
)

func bulkBody(t *testing.T, docs int, gzipped bool) []byte {
	t.Helper()
	var raw bytes.Buffer
	for i := range docs {
		raw.WriteString(`{"create":{"_index":"logs-generic.otel-default"}}` + "\n")
		raw.WriteString(`{"n":` + strconv.Itoa(i) + "}\n")
	}
	if !gzipped {
		return raw.Bytes()
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(raw.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func post(t *testing.T, h http.Handler, body []byte, gzipped bool, header string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/_bulk", bytes.NewReader(body))
	if gzipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if header != "" {
		req.Header.Set("X-Elastic-Event-Count", header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// items decodes a bulk response and checks that every item is a created document.
func items(t *testing.T, rec *httptest.ResponseRecorder) int {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
	var resp struct {
		Items []map[string]struct {
			Index  string `json:"_index"`
			Status int    `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &resp))
	for _, it := range resp.Items {
		assert.Equal(t, 201, it["create"].Status)
		assert.Equal(t, Index, it["create"].Index)
	}
	return len(resp.Items)
}

// encode writes raw through w, made on a buffer by newWriter, and returns the buffer's bytes.
func encode(t *testing.T, raw []byte, newWriter func(io.Writer) io.WriteCloser) []byte {
	t.Helper()
	var out bytes.Buffer
	w := newWriter(&out)
	_, err := w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return out.Bytes()
}

// snappyWriter writes the snappy framing format as the exporter does (internal/bulk's
// encoding.go).
func snappyWriter(w io.Writer) io.WriteCloser {
	return s2.NewWriter(w, s2.WriterSnappyCompat(), s2.WriterConcurrency(1))
}

func gzipWriter(w io.Writer) io.WriteCloser {
	zw, _ := gzip.NewWriterLevel(w, 1)
	return zw
}

func zlibWriter(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }

func rawDeflateWriter(w io.Writer) io.WriteCloser {
	fw, _ := flate.NewWriter(w, 1)
	return fw
}

func zstdWriter(w io.Writer) io.WriteCloser {
	zw, _ := zstd.NewWriter(w)
	return zw
}

// postEncoded posts body to target (a path and query) with Content-Encoding enc (none when
// empty).
func postEncoded(t *testing.T, h http.Handler, target string, body []byte, enc string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// errorAnswer decodes an error answer of the sink.
func errorAnswer(t *testing.T, rec *httptest.ResponseRecorder) (typ, reason string) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	var answer struct {
		Error struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	return answer.Error.Type, answer.Error.Reason
}

func probeBody(t *testing.T) []byte {
	t.Helper()
	return encode(t, []byte("\n"), func(w io.Writer) io.WriteCloser { return s2.NewWriter(w, s2.WriterSnappyCompat()) })
}

// exporterAgainstSink starts the factory-built logs exporter with compression against a sink,
// pushes 300 records in three pushes, stops it, and returns the sink's stats and the
// exporter's log.
func exporterAgainstSink(t *testing.T, compression configcompression.Type) (Stats, *observer.ObservedLogs) {
	t.Helper()
	h := NewHandler(CountLines, "9.5.4")
	srv := httptest.NewServer(h)
	defer srv.Close()
	f := elasticsearchexporter.NewFactory()
	cfg := f.CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = []string{srv.URL}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	if compression != "" {
		cfg.Compression = compression
	}
	set := exportertest.NewNopSettings(f.Type())
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(core)
	exp, err := f.CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	if compression == configcompression.TypeSnappy {
		require.Eventually(t, func() bool {
			return logs.FilterMessageSnippet("bulk requests are sent with snappy").Len() > 0 ||
				logs.FilterMessageSnippet("`compression: snappy` is not possible").Len() > 0
		}, 10*time.Second, 10*time.Millisecond)
	}
	for range 3 {
		require.NoError(t, exp.ConsumeLogs(context.Background(), benchdata.Logs(100)))
	}
	require.NoError(t, exp.Shutdown(context.Background()))
	return h.Stats(), logs
}
