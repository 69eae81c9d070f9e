// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"go.uber.org/zap"
)

// Snappy request bodies.
//
// go-docappender (v2.14.0) compresses a bulk body itself, with gzip only: its
// BulkIndexerConfig has a CompressionLevel and no way to name another encoding, it writes the
// body into its own unexported buffer through its own gzip writer, and Flush sets
// Content-Encoding: gzip when the level is not 0. There is no hook to put another writer in
// its place. So with `compression: snappy`, the bulk indexers made while snappy is on have
// level 0 (they write the NDJSON as is) and the session's client (compactClient, the last code
// the request passes before the transport) encodes the body: snappy while the node is known to
// decode it, gzip once it is off, and sets Content-Encoding and Content-Length. The bulk
// indexers made while snappy is not on gzip the body themselves, at FallbackGzipLevel, and the
// client passes it on as it is (compressionLevel; a change of the state makes new bulk
// indexers). docappender still counts the uncompressed bytes; the client counts the bytes it
// sent.
//
// Snappy is the snappy framing format as klauspost's s2 writes it with WriterSnappyCompat
// (Content-Encoding: snappy), which Elasticsearch decodes (measured on 8.19.21 and 9.5.4).
// Elasticsearch does not document it, and a proxy or load balancer may drop the header: the
// start-up check asks the node first (esclient's ProbeSnappy), and requests are sent with gzip
// until it says yes (EnableSnappy). A bulk request that the node answers as if it had read the
// snappy bytes as JSON (esclient.SnappyNotDecoded) is sent again at once with gzip, and snappy
// stays off until restart.
//
// The cost: while snappy is on, the bulk indexer holds the whole uncompressed request (at most
// MaxBulkBytes) where with gzip it holds the compressed one, and the request body keeps that
// buffer between requests (requestBody); RequestBufferBytes counts it.

// snappyState is the state of snappy on an Indexer configured for it.
const (
	snappyPending int32 = iota // not known yet: gzip
	snappyOn                   // the node decodes it
	snappyOff                  // the node or what is in front of it does not: gzip until restart
)

// FallbackGzipLevel is the gzip level of requests sent while snappy is not on.
const FallbackGzipLevel = 1

// bodyCodec is what the sessions of an Indexer configured for snappy share: the state of
// snappy. Nil on an Indexer that leaves compression to docappender.
type bodyCodec struct {
	state atomic.Int32
}

// EnableSnappy turns snappy on, for the requests sent from now on, unless a request has
// shown that the node does not decode it. The exporter calls it when the start-up check has
// found that the node decodes snappy; it does nothing on an Indexer not configured for snappy.
func (ix *Indexer) EnableSnappy() {
	if ix.codec != nil && ix.codec.state.CompareAndSwap(snappyPending, snappyOn) {
		ix.gen.Add(1) // new bulk indexers leave the body to the session's client
	}
}

// snappyOff turns snappy off until restart, after a bulk request was answered as if the
// node had read the snappy bytes as JSON, and says so once.
func (ix *Indexer) snappyOff(errorType string) {
	if ix.codec.state.Swap(snappyOff) != snappyOff {
		ix.gen.Add(1) // new bulk indexers gzip the body themselves again
		ix.cfg.Logger.Warn("Elasticsearch did not decode a snappy bulk request body (a node, proxy or load balancer "+
			"between the exporter and Elasticsearch drops Content-Encoding: snappy); the request was sent again with gzip, "+
			"and bulk requests are sent with gzip until the exporter restarts",
			zap.Int("status", http.StatusBadRequest), zap.String("error.type", errorType))
	}
}

// compressionLevel is the gzip level of the bulk indexers made now: 0 while snappy is on,
// since the session's client encodes the body then.
func (ix *Indexer) compressionLevel() int {
	if ix.codec == nil {
		return ix.cfg.CompressionLevel
	}
	if ix.codec.state.Load() == snappyOn {
		return 0
	}
	return FallbackGzipLevel
}

// bodyEncoder encodes the bodies of the requests of one request body (requestBody), one
// request at a time.
type bodyEncoder struct {
	out bytes.Buffer
	sw  *s2.Writer
	gw  *gzip.Writer
	// sent is the length of the last body encoded, -1 when the last request was not encoded.
	sent int
}

// encode replaces the body of req, uncompressed NDJSON, by its snappy or gzip encoding, and
// sets the headers that say so.
func (e *bodyEncoder) encode(req *http.Request, body io.Reader, snappy bool) error {
	e.out.Reset()
	var w io.WriteCloser
	if snappy {
		if e.sw == nil {
			e.sw = s2.NewWriter(&e.out, s2.WriterSnappyCompat(), s2.WriterConcurrency(1))
		} else {
			e.sw.Reset(&e.out)
		}
		w = e.sw
	} else {
		if e.gw == nil {
			e.gw, _ = gzip.NewWriterLevel(&e.out, FallbackGzipLevel)
		} else {
			e.gw.Reset(&e.out)
		}
		w = e.gw
	}
	if _, err := io.Copy(w, body); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	b := e.out.Bytes()
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.ContentLength = int64(len(b))
	if snappy {
		req.Header.Set("Content-Encoding", "snappy")
	} else {
		req.Header.Set("Content-Encoding", "gzip")
	}
	e.sent = len(b)
	return nil
}

// release lets go of a body buffer grown larger than an idle request body keeps.
func (e *bodyEncoder) release() {
	if e.out.Cap() > retainedBufferSize {
		e.out = bytes.Buffer{}
	}
}
