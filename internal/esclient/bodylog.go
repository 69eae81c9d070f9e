// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"

	"github.com/klauspost/compress/s2"

	"go.uber.org/zap"
)

// bodyLogger logs request and response bodies at debug level, for telemetry.log_request_body
// and telemetry.log_response_body. Gzip and snappy request bodies are logged decompressed. Headers,
// and so credentials, are never logged.
type bodyLogger struct {
	next              http.RoundTripper
	logger            *zap.Logger
	request, response bool
}

func (l *bodyLogger) RoundTrip(req *http.Request) (*http.Response, error) {
	if l.request && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			l.logger.Debug("Elasticsearch request", zap.String("method", req.Method),
				zap.String("path", req.URL.Path), zap.ByteString("body", readBody(body, req.Header.Get("Content-Encoding"))))
		}
	}
	resp, err := l.next.RoundTrip(req)
	if err != nil || !l.response {
		return resp, err
	}
	raw, readErr := io.ReadAll(resp.Body)
	// The body is read to its end or to its error: closing it can report nothing that
	// changes what was read, so its error is not the request's.
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if readErr != nil {
		return resp, readErr
	}
	l.logger.Debug("Elasticsearch response", zap.String("path", req.URL.Path),
		zap.Int("status", resp.StatusCode), zap.ByteString("body", raw))
	return resp, nil
}

func readBody(body io.ReadCloser, encoding string) []byte {
	defer body.Close()
	var r io.Reader = body
	switch encoding {
	case "gzip":
		gz, err := gzip.NewReader(body)
		if err != nil {
			return []byte("<unreadable gzip body>")
		}
		r = gz
	case "snappy":
		// The snappy framing format, which s2's reader reads.
		r = s2.NewReader(body)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return []byte("<unreadable body>")
	}
	return b
}
