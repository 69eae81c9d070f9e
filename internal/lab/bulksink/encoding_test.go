// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulksink

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

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
