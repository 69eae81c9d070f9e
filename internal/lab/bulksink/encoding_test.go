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
	"sync"
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
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
)

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

func TestEncodings(t *testing.T) {
	raw := bulkBody(t, 3000, false)
	for _, tt := range []struct {
		header, counted string
		body            []byte
	}{
		{"", "none", raw},
		{"identity", "identity", raw},
		{"gzip", "gzip", encode(t, raw, gzipWriter)},
		{"X-GZIP", "gzip", encode(t, raw, gzipWriter)},
		{"deflate", "deflate", encode(t, raw, zlibWriter)},
		{"deflate", "deflate", encode(t, raw, rawDeflateWriter)},
		{"snappy", "snappy", encode(t, raw, snappyWriter)},
		{"Snappy", "snappy", encode(t, raw, snappyWriter)},
		// An encoding Elasticsearch does not decode: the body is read as it is.
		{"br", "other", raw},
	} {
		for _, mode := range []CountMode{CountLines, CountHeader} {
			h := NewHandler(mode, "")
			for _, header := range []string{"3000", ""} {
				req := httptest.NewRequest(http.MethodPost, "/_bulk", bytes.NewReader(tt.body))
				if tt.header != "" {
					req.Header.Set("Content-Encoding", tt.header)
				}
				if header != "" {
					req.Header.Set("X-Elastic-Event-Count", header)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				assert.Equal(t, 3000, items(t, rec), "%q %s", tt.header, mode)
			}
			st := h.Stats()
			assert.Equal(t, map[string]int64{tt.counted: 2}, st.Encodings, "%q %s", tt.header, mode)
			assert.Equal(t, int64(6000), st.Documents, "%q %s", tt.header, mode)
			assert.Equal(t, int64(2*len(tt.body)), st.BodyBytes, "%q %s", tt.header, mode)
			assert.Zero(t, st.Errors+st.Mismatches, "%q %s", tt.header, mode)
			if mode == CountLines {
				assert.Equal(t, int64(2*len(raw)), st.RawBytes, "%q", tt.header)
			} else {
				assert.Equal(t, int64(len(raw)), st.RawBytes, "%q: only the request without the header is decoded", tt.header)
			}
		}
	}
}

// TestSnappyReuse sends snappy bodies of many sizes through the handler's reused readers and
// buffers, in parallel.
func TestSnappyReuse(t *testing.T) {
	h := NewHandler(CountLines, "")
	const workers, each = 4, 20
	var bodies [workers * each][]byte
	var recs [workers * each]*httptest.ResponseRecorder
	for i := range bodies {
		bodies[i] = encode(t, bulkBody(t, 1+i*97%2500, false), snappyWriter)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w * each; i < (w+1)*each; i++ {
				req := httptest.NewRequest(http.MethodPost, "/_bulk", bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Encoding", "snappy")
				recs[i] = httptest.NewRecorder()
				h.ServeHTTP(recs[i], req)
			}
		})
	}
	wg.Wait()
	for i, rec := range recs {
		assert.Equal(t, 1+i*97%2500, items(t, rec))
	}
	assert.Equal(t, map[string]int64{"snappy": workers * each}, h.Stats().Encodings)
}

// The exporter's start-up check (internal/esclient's snappyprobe.go): a bulk request whose
// snappy body holds only "\n", with filter_path=error.type,error.reason.
const probeTarget = "/_bulk?filter_path=error.type,error.reason"

func probeBody(t *testing.T) []byte {
	t.Helper()
	return encode(t, []byte("\n"), func(w io.Writer) io.WriteCloser { return s2.NewWriter(w, s2.WriterSnappyCompat()) })
}

// Answers of Elasticsearch 9.5.4 and 8.19.21, as internal/esclient's tests hold them.
const (
	answerNoRequests = `{"error":{"root_cause":[{"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"}],` +
		`"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"},"status":400}`
	reasonUnrecognized = "[1:1] Unrecognized token 'ÿ\u0006\u0000\u0000sNaPpY\u0001\u0005\u0000\u0000\u0016': was expecting " +
		"(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
)

func TestSnappyProbe(t *testing.T) {
	for _, mode := range []CountMode{CountLines, CountHeader} {
		h := NewHandler(mode, "")
		// Decoded: the node finds no action.
		rec := postEncoded(t, h, probeTarget, probeBody(t), "snappy")
		assert.JSONEq(t, `{"error":{"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"}}`,
			rec.Body.String(), mode)
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Empty(t, esclient.SnappyNotDecoded(rec.Body.Bytes()))
		rec = postEncoded(t, h, "/_bulk", probeBody(t), "snappy")
		assert.JSONEq(t, answerNoRequests, rec.Body.String())

		// Not decoded (no Content-Encoding, as a proxy that drops it sends it): the snappy bytes
		// are read as JSON, and answered as a node answers them.
		rec = postEncoded(t, h, probeTarget, probeBody(t), "")
		typ, reason := errorAnswer(t, rec)
		assert.Equal(t, "x_content_parse_exception", typ)
		assert.Equal(t, reasonUnrecognized, reason)
		assert.Equal(t, "x_content_parse_exception", esclient.SnappyNotDecoded(rec.Body.Bytes()))

		st := h.Stats()
		assert.Equal(t, map[string]int64{"snappy": 2, "none": 1}, st.Encodings)
		assert.Equal(t, int64(3), st.Errors)
		assert.Zero(t, st.Requests+st.Documents)
	}
}

// An encoding Elasticsearch does not decode, zstd (Elasticsearch issue 146526), and compressed
// bodies sent without their Content-Encoding: read as JSON, refused as a node refuses them, and
// taken by the exporter for a body that was not decoded.
func TestUndecodedBodies(t *testing.T) {
	raw := bulkBody(t, 100, false)
	h := NewHandler(CountLines, "")
	for _, tt := range []struct {
		header string
		body   []byte
	}{
		{"zstd", encode(t, raw, zstdWriter)},
		{"", encode(t, raw, snappyWriter)},
		{"identity", encode(t, raw, gzipWriter)},
		{"compress", encode(t, raw, zlibWriter)},
	} {
		rec := postEncoded(t, h, "/_bulk?filter_path=error.type,error.reason", tt.body, tt.header)
		typ, reason := errorAnswer(t, rec)
		assert.Equal(t, "x_content_parse_exception", typ, tt.header)
		assert.Regexp(t, `^\[1:1\] Unrecognized token '.+': was expecting \(JSON String`, reason, tt.header)
		assert.Equal(t, "x_content_parse_exception", esclient.SnappyNotDecoded(rec.Body.Bytes()), tt.header)
	}
	assert.Equal(t, map[string]int64{"other": 2, "none": 1, "identity": 1}, h.Stats().Encodings)
	assert.Equal(t, int64(4), h.Stats().Errors)
}

func TestRefusals(t *testing.T) {
	docs := bulkBody(t, 2, false)
	for _, tt := range []struct {
		name, header string
		body         []byte
		typ, reason  string
	}{
		{"empty", "", nil, "parse_exception", "request body is required"},
		{"empty snappy", "snappy", nil, "parse_exception", "request body is required"},
		{"whitespace", "", []byte(" \r\n\n\t\n"), "action_request_validation_exception", "Validation Failed: 1: no requests added;"},
		{"whitespace gzip", "gzip", encode(t, []byte("\n\n"), gzipWriter), "action_request_validation_exception", "Validation Failed: 1: no requests added;"},
		{"no final newline", "", docs[:len(docs)-1], "illegal_argument_exception", `The bulk request must be terminated by a newline [\n]`},
		{"no final newline snappy", "snappy", encode(t, docs[:len(docs)-1], snappyWriter), "illegal_argument_exception", `The bulk request must be terminated by a newline [\n]`},
		{"first token on line 2", "", []byte("\n  nope\n{}\n"), "x_content_parse_exception", "[2:3] Unrecognized token 'nope': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"},
		{"odd lines", "", []byte(`{"create":{}}` + "\n"), "parse_exception", "odd number of lines: an action line without its document"},
		{"snappy, truncated", "snappy", encode(t, docs, snappyWriter)[:30], "parse_exception", "s2: corrupt input"},
		{"gzip, not gzip", "gzip", docs, "parse_exception", "gzip: invalid header"},
	} {
		h := NewHandler(CountLines, "")
		rec := postEncoded(t, h, "/_bulk", tt.body, tt.header)
		typ, reason := errorAnswer(t, rec)
		assert.Equal(t, tt.typ, typ, tt.name)
		assert.Equal(t, tt.reason, reason, tt.name)
		assert.Equal(t, int64(1), h.Stats().Errors, tt.name)
		assert.Zero(t, h.Stats().Documents, tt.name)
	}
}

func TestErrorFilterPath(t *testing.T) {
	h := NewHandler(CountLines, "")
	const (
		typ    = `"type":"parse_exception"`
		reason = `"reason":"request body is required"`
	)
	for filter, want := range map[string]string{
		"":                              `{"error":{"root_cause":[{` + typ + `,` + reason + `}],` + typ + `,` + reason + `},"status":400}`,
		"error.type":                    `{"error":{` + typ + `}}`,
		"error.type,error.reason":       `{"error":{` + typ + `,` + reason + `}}`,
		"error":                         `{"error":{"root_cause":[{` + typ + `,` + reason + `}],` + typ + `,` + reason + `}}`,
		"status,%20error.reason":        `{"error":{` + reason + `},"status":400}`,
		"items.*._index,items.*.status": `{}`,
		"error.root_cause":              `{"error":{"root_cause":[{` + typ + `,` + reason + `}]}}`,
	} {
		target := "/_bulk"
		if filter != "" {
			target += "?filter_path=" + filter
		}
		rec := postEncoded(t, h, target, nil, "")
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.JSONEq(t, want, rec.Body.String(), filter)
	}
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

// The exporter with compression: snappy finds that the sink decodes snappy, says so, and sends
// its bulk requests with snappy; at its defaults it sends them with gzip and sends no probe.
func TestExporterAgainstSink(t *testing.T) {
	st, logs := exporterAgainstSink(t, configcompression.TypeSnappy)
	assert.Equal(t, 1, logs.FilterMessage("Elasticsearch decodes snappy request bodies; bulk requests are sent with snappy").Len())
	assert.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len(), logs.All())
	assert.Equal(t, int64(300), st.Documents)
	assert.Equal(t, int64(1), st.Errors, "the probe")
	assert.Zero(t, st.Mismatches)
	assert.Equal(t, map[string]int64{"snappy": 1 + st.Requests}, st.Encodings)
	assert.Less(t, st.BodyBytes, st.RawBytes)

	st, logs = exporterAgainstSink(t, "")
	assert.Zero(t, logs.FilterMessageSnippet("snappy").Len())
	assert.Equal(t, int64(300), st.Documents)
	assert.Zero(t, st.Errors+st.Mismatches)
	assert.Equal(t, map[string]int64{"gzip": st.Requests}, st.Encodings)
}
