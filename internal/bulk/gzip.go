// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/klauspost/compress/gzip"
)

// gzipClient gzips the body of each request of one session's bulk indexer in a single pass,
// then hands the request to the client.
//
// docappender can gzip bodies itself, but it writes each document into its gzip writer in
// three calls (action line, document, newline), and with small documents the compressor's and
// the CRC's cost per call made gzip a quarter of the push path's CPU. The session's bulk
// indexer is therefore made without compression: it copies action lines and documents into
// its plain buffer, and the whole body is compressed here with one Write. Each session has its
// own gzipClient, used by one push at a time, so pushes compress in parallel.
//
// The compressed body is reused by the session's next request. Like docappender's own buffer,
// it may still be read by the transport after Perform returns when the server answers before
// reading the whole body (golang/go#51907); that connection is not reused for our requests
// in the meantime, since the session sends one request at a time.
type gzipClient struct {
	next elastictransport.Interface
	zw   *gzip.Writer
	out  bytes.Buffer
	// sent is the compressed size of the last body handed to next.
	sent int
}

func newGzipClient(next elastictransport.Interface, level int) (*gzipClient, error) {
	zw, err := gzip.NewWriterLevel(io.Discard, level)
	if err != nil {
		return nil, fmt.Errorf("bulk: gzip level %d: %w", level, err)
	}
	return &gzipClient{next: next, zw: zw}, nil
}

// Perform compresses req's body and sends req.
func (c *gzipClient) Perform(req *http.Request) (*http.Response, error) {
	c.sent = 0
	if req.Body == nil || req.Body == http.NoBody {
		return c.next.Perform(req)
	}
	c.out.Reset()
	c.zw.Reset(&c.out)
	// docappender's body is a bytes.Reader, whose WriteTo writes it in one call.
	_, err := io.Copy(c.zw, req.Body)
	_ = req.Body.Close()
	if err == nil {
		err = c.zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("compressing the bulk request: %w", err)
	}
	body := c.out.Bytes()
	c.sent = len(body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Encoding", "gzip")
	return c.next.Perform(req)
}
