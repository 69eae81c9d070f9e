// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// compactClient is the client of a session's bulk indexer. It bounds what it reads of any
// answer (see limits.go), takes the Retry-After of a 429 or 503 answer for the backoff, checks
// that each item of a bulk response is one Elasticsearch gives to a create action, and hands
// docappender only the items that say more than "created". With `compression: snappy`, it
// also encodes the request bodies that docappender left uncompressed (encoding.go).
//
// docappender decodes every item of a bulk response with jsoniter, which makes a new string of
// each key and of each index name, although an item that only says
// {"create":{"_index":...,"status":201}} tells nothing but "indexed". compactClient reads the
// response of a 2xx answer and leaves such items out; every other item of the expected kind
// (a duplicate, a failure, a failure store status) is kept byte for byte, and its position in
// the response is remembered, since docappender numbers the items it reads. An item that
// Elasticsearch does not give to a create action (no status, or a status other than 201, 409
// or 4xx/5xx, another action, two actions) is left out too and listed as odd: docappender
// would count it as indexed. Each session has its own compactClient, used by one request at a
// time.
type compactClient struct {
	next elastictransport.Interface
	// docs is the number of documents of the request being sent.
	docs int
	// budget, when set, counts the response bytes held while a response is read and decoded.
	budget *ByteBudget
	held   int64
	// retryAfter is the wait the last answer asked for with Retry-After (429 and 503 only).
	retryAfter time.Duration
	// compacted tells that the last response was compacted, and resp what compaction found.
	compacted bool
	resp      compactResponse
	in, out   []byte
	body      bytes.Reader
	// bodyCloser is body as the io.ReadCloser of a response, made once.
	bodyCloser io.ReadCloser
	// codec, set when the Indexer is configured for snappy, is the state of snappy; enc, the
	// encoder of the request body the session holds (requestBody), encodes the request bodies
	// that docappender left uncompressed (encoding.go), and off is called when the node is
	// found not to decode snappy.
	codec *bodyCodec
	enc   *bodyEncoder
	off   func(errorType string)
}

// Perform sends req, bounds what is read of the answer, and compacts a successful bulk
// response.
func (c *compactClient) Perform(req *http.Request) (*http.Response, error) {
	c.compacted, c.retryAfter = false, 0
	c.resp.reset()
	if c.enc != nil {
		c.enc.sent = -1
	}
	resp, errorRead, err := c.send(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		c.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	if resp.StatusCode > 299 { // what docappender takes for a failed request
		if errorRead {
			return resp, nil
		}
		return c.errorBody(resp), nil
	}
	limit := ResponseLimit(c.docs)
	if resp.ContentLength > int64(limit) {
		_ = resp.Body.Close()
		return nil, errResponseTooLarge{limit: limit, docs: c.docs}
	}
	if resp.ContentLength > 0 && int(resp.ContentLength) > cap(c.in) {
		c.in = make([]byte, 0, resp.ContentLength+1) // +1: to see the end without growing
	}
	c.in, err = readAtMost(c.in[:0], resp.Body, limit+1)
	_ = resp.Body.Close()
	c.hold(cap(c.in))
	if err != nil {
		// Hand the error to docappender as a body that fails to read, as the original would.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(c.in), errReader{err}))
		return resp, nil
	}
	if len(c.in) > limit {
		return nil, errResponseTooLarge{limit: limit, docs: c.docs}
	}
	out, err := compactBulkResponse(c.out[:0], &c.resp, c.in)
	if err != nil {
		return nil, err
	}
	c.out, c.compacted = out, true
	c.hold(cap(c.out))
	c.body.Reset(out)
	if c.bodyCloser == nil {
		c.bodyCloser = io.NopCloser(&c.body)
	}
	resp.Body = c.bodyCloser
	resp.ContentLength = int64(len(out))
	return resp, nil
}

// send sends req, first encoding its body when docappender left it uncompressed for the
// codec: snappy while it is on, gzip otherwise. A snappy request that the node answers as if
// it had not decoded the body is sent again at once with gzip, and snappy is turned off.
// errorRead tells that resp is a failed request's whose body errorBody has read already.
func (c *compactClient) send(req *http.Request) (resp *http.Response, errorRead bool, err error) {
	if c.codec == nil || req.Header.Get("Content-Encoding") != "" || req.GetBody == nil {
		resp, err = c.next.Perform(req)
		return resp, false, err
	}
	uncompressed := req.GetBody
	body, err := uncompressed()
	if err != nil {
		return nil, false, err
	}
	snappy := c.codec.state.Load() == snappyOn
	if err = c.enc.encode(req, body, snappy); err != nil {
		return nil, false, err
	}
	resp, err = c.next.Perform(req)
	if err != nil || !snappy || resp.StatusCode != http.StatusBadRequest || resp.Body == nil {
		return resp, false, err
	}
	resp = c.errorBody(resp)
	typ := esclient.SnappyNotDecoded(c.in)
	if typ == "" {
		return resp, true, nil
	}
	c.off(typ)
	// A new buffer: the transport may still read the snappy body after the answer
	// (golang/go#51907), and this happens once in the exporter's life.
	c.enc.out = bytes.Buffer{}
	if body, err = uncompressed(); err != nil {
		return nil, false, err
	}
	if err = c.enc.encode(req, body, false); err != nil {
		return nil, false, err
	}
	resp, err = c.next.Perform(req)
	return resp, false, err
}

// errorBody replaces the body of a failed request by at most MaxErrorBody bytes of it; the
// rest is not read.
func (c *compactClient) errorBody(resp *http.Response) *http.Response {
	var err error
	c.in, err = readAtMost(c.in[:0], resp.Body, MaxErrorBody)
	_ = resp.Body.Close()
	c.hold(cap(c.in))
	var body io.Reader = bytes.NewReader(c.in)
	if err != nil {
		body = io.MultiReader(body, errReader{err})
	}
	resp.Body = io.NopCloser(body)
	resp.ContentLength = -1
	return resp
}

// hold counts n bytes of response buffers in the byte budget, until release.
func (c *compactClient) hold(n int) {
	if c.budget != nil && n > 0 {
		c.budget.Grow(int64(n))
		c.held += int64(n)
	}
}

// release gives back the bytes held for the last response, and lets go of response buffers
// grown larger than an idle session keeps.
func (c *compactClient) release() {
	if c.held > 0 {
		c.budget.Release(c.held)
		c.held = 0
	}
	if cap(c.in) > retainedBufferSize {
		c.in = nil
	}
	if cap(c.out) > retainedBufferSize {
		c.out = nil
	}
}
