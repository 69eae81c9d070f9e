// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// Answers of Elasticsearch 9.5.4 and 8.19.21, measured, cut to what is read.
const (
	answerNoRequests = `{"error":{"root_cause":[{"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"}],` +
		`"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"},"status":400}`
	answerUnrecognized = `{"error":{"root_cause":[{"type":"x_content_parse_exception","reason":"[1:1] Unrecognized token 'ÿ\u0006\u0000\u0000sNaPpY'"}],` +
		`"type":"x_content_parse_exception","reason":"[1:1] Unrecognized token 'ÿ\u0006\u0000\u0000sNaPpY\u0001\u0005\u0000\u0000\u0016': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"},"status":400}`
	answerInvalidUTF8 = `{"error":{"type":"x_content_parse_exception","reason":"[1:17] Invalid UTF-8 middle byte 0x2a\n at [Source: (byte[])\"sNaPpY\"; line: 1, column: 17]"},"status":400}`
	answerNoNewline   = `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"The bulk request must be terminated by a newline [\\n]"}],"type":"illegal_argument_exception","reason":"The bulk request must be terminated by a newline [\\n]"},"status":400}`
	answerMalformed   = `{"error":{"type":"illegal_argument_exception","reason":"Malformed action/metadata line [1], expected FIELD_NAME but found [END_OBJECT]"},"status":400}`
	answerLaterLine   = `{"error":{"type":"x_content_parse_exception","reason":"[3:10] Unexpected character"},"status":400}`
)

func TestSnappyNotDecoded(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"unrecognized token at [1:1]", answerUnrecognized, "x_content_parse_exception"},
		{"invalid UTF-8 on line 1", answerInvalidUTF8, "x_content_parse_exception"},
		{"not terminated by a newline", answerNoNewline, "illegal_argument_exception"},
		{"decoded, no requests", answerNoRequests, ""},
		{"decoded, malformed action", answerMalformed, ""},
		{"a parse error after line 1", answerLaterLine, ""},
		{"not JSON", `<html>400 Bad Request</html>`, ""},
		{"error as a string", `{"error":"x_content_parse_exception [1:1]"}`, ""},
		{"empty", ``, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SnappyNotDecoded([]byte(tt.body)), "SnappyNotDecoded(%s)", tt.body)
		})
	}
}

func TestClassifySnappyProbe(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   probeAnswer
	}{
		{"decoded", 400, answerNoRequests, probeDecoded},
		{"read as JSON", 400, answerUnrecognized, probeNotDecoded},
		{"another 400", 400, answerMalformed, probeNotDecoded},
		{"a proxy refuses the encoding", http.StatusUnsupportedMediaType, ``, probeNotDecoded},
		{"a proxy answers 404", http.StatusNotFound, ``, probeNotDecoded},
		{"credentials refused", 401, `{"error":{"type":"security_exception"}}`, probeUnknown},
		{"forbidden", 403, `{"error":{"type":"security_exception"}}`, probeUnknown},
		{"busy", 429, ``, probeUnknown},
		{"unavailable", 503, ``, probeUnknown},
		{"200 from something that is not Elasticsearch", 200, `{}`, probeUnknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := classifySnappyProbe(tt.status, []byte(tt.body))
			assert.Equal(t, tt.want, got)
		})
	}
}

// The probe's body is snappy framing of one empty line.
func TestSnappyProbeBody(t *testing.T) {
	got, err := io.ReadAll(s2.NewReader(bytes.NewReader(snappyProbeBody)))
	require.NoError(t, err)
	assert.Equal(t, "\n", string(got))
}

func TestProbeSnappy(t *testing.T) {
	t.Run("decoded", func(t *testing.T) {
		srv := fakees.New(t)
		var checks []string
		cfg := testConfig(srv.URL)
		cfg.Checks = func(check Check, failed bool) {
			if check == CheckSnappy {
				checks = append(checks, map[bool]string{false: "ok", true: "failed"}[failed])
			}
		}
		c, logs := newTestClient(t, cfg)
		assert.True(t, c.ProbeSnappy(context.Background()))
		assert.Equal(t, 1, logs.FilterMessage("Elasticsearch decodes snappy request bodies; bulk requests are sent with snappy").Len())
		assert.Equal(t, []string{"ok"}, checks)
		assert.Zero(t, srv.Stats().Requests, "nothing is written")
	})
	t.Run("dropped", func(t *testing.T) {
		srv := fakees.New(t)
		srv.DropSnappy = true
		c, logs := newTestClient(t, testConfig(srv.URL))
		assert.False(t, c.ProbeSnappy(context.Background()))
		warns := logs.FilterMessage(snappyProbeWarning).All()
		require.Len(t, warns, 1)
		assert.Equal(t, int64(400), warns[0].ContextMap()["status"])
		assert.Equal(t, "x_content_parse_exception", warns[0].ContextMap()["answer"])
	})
	t.Run("an answer that tells nothing", func(t *testing.T) {
		// A proxy that answers 200 to any snappy bulk request: the first answer is a warning,
		// and the check is asked again (after 30s, past the end of this test's context).
		srv := fakees.New(t)
		srv.SnappyAnswersNothing = true
		c, logs := newTestClient(t, testConfig(srv.URL))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		assert.False(t, c.ProbeSnappy(ctx))
		assert.Equal(t, 1, srv.Stats().Received)
		warns := logs.FilterMessage(snappyProbeUnknownWarning).All()
		require.Len(t, warns, 1)
		assert.Equal(t, zapcore.WarnLevel, warns[0].Level)
		assert.Equal(t, int64(200), warns[0].ContextMap()["status"])
		assert.Zero(t, logs.FilterMessage(snappyProbeWarning).Len(), "not the line of a node that does not decode snappy")
	})
	t.Run("ends with its context", func(t *testing.T) {
		srv := fakees.New(t)
		c, _ := newTestClient(t, testConfig(srv.URL))
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the wait before asking again ends at once
		assert.False(t, c.ProbeSnappy(ctx))
		assert.Zero(t, srv.Stats().Received, "a canceled context sends nothing")
	})
}

// The body of a snappy request is logged decompressed, as a gzipped one is.
func TestBodyLoggingSnappy(t *testing.T) {
	srv := fakees.New(t)
	cfg := testConfig(srv.URL)
	cfg.LogRequestBody = true
	c, logs := newTestClient(t, cfg)
	var b bytes.Buffer
	w := s2.NewWriter(&b, s2.WriterSnappyCompat())
	_, err := w.Write([]byte(`{"create":{"_index":"logs-a.otel-default"}}` + "\n" + `{"body":"log 1"}` + "\n"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "/_bulk", bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "snappy")
	resp, err := c.Perform(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	reqs := logs.FilterMessage("Elasticsearch request").All()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].ContextMap()["body"], `"log 1"`, "the snappy body is logged decompressed")
}

// FuzzSnappyNotDecoded: any answer is read without a panic, and only an error of line 1 or of
// the body's end says that the body was not decoded.
func FuzzSnappyNotDecoded(f *testing.F) {
	for _, seed := range []string{answerNoRequests, answerUnrecognized, answerInvalidUTF8, answerNoNewline, answerMalformed, answerLaterLine, `{"error":"x"}`, ``} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		typ := SnappyNotDecoded(body)
		if typ == "" {
			return
		}
		gotType, reason := errorTypeReason(body)
		if gotType != typ {
			t.Fatalf("SnappyNotDecoded(%q) = %q, but the error type is %q", body, typ, gotType)
		}
		if !bytes.HasPrefix([]byte(reason), []byte("[1:")) && !bytes.HasPrefix([]byte(reason), []byte("The bulk request must be terminated by a newline")) {
			t.Fatalf("SnappyNotDecoded(%q) = %q for reason %q", body, typ, reason)
		}
		class, _ := classifySnappyProbe(http.StatusBadRequest, body)
		if class != probeNotDecoded {
			t.Fatalf("the probe reads %q as %v, SnappyNotDecoded as not decoded", body, class)
		}
	})
}
