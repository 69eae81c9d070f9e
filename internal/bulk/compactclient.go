// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-docappender/v2"
)

// compactClient is the client of a session's bulk indexer. It sends the real number of
// documents of each request in X-Elastic-Event-Count (docappender counts the one item the
// session adds, see session.add), bounds what it reads of any answer (see limits.go), checks
// that each item of a bulk response is one Elasticsearch gives to a create action, and hands
// docappender only the items that say more than "created".
//
// docappender decodes every item of a bulk response with jsoniter, which makes a new string of
// each key and of each index name: four allocations per document and close to a fifth of the
// push path's CPU, although an item that only says {"create":{"_index":...,"status":201}}
// tells nothing but "indexed". compactClient reads the response of a 2xx answer, counts such
// items and leaves them out; every other item of the expected kind (a duplicate, a failure, a
// failure store status) is kept byte for byte, and its position in the response is
// remembered, since docappender numbers the items it reads. An item that Elasticsearch does
// not give to a create action (no status, or a status other than 201, 409 or 4xx/5xx, another
// action, two actions) is left out too and listed in odd: docappender would count it as
// indexed. Each session has its own compactClient, used by one request at a time.
type compactClient struct {
	next elastictransport.Interface
	// filterPath replaces the filter_path that docappender sets (see FilterPath).
	filterPath string
	// docs is the number of documents of the request being sent.
	docs int
	// budget, when set, counts the response bytes held while a response is read and decoded.
	budget *ByteBudget
	held   int64
	// compacted tells that the last response was compacted: created items of it were left
	// out, kept holds the position in the response of each item docappender read, and odd
	// the items that are not an answer to a create.
	compacted bool
	created   int
	kept      []int
	odd       []oddItem
	in, out   []byte
	body      bytes.Reader
	// bodyCloser is body as the io.ReadCloser of a response, made once.
	bodyCloser io.ReadCloser
}

// setHeader sets the header key, in canonical form, to the single value v, reusing the slice
// of a single value already there (http.Header.Set makes a new one).
func setHeader(h http.Header, key, v string) {
	if vs := h[key]; len(vs) == 1 {
		vs[0] = v
		return
	}
	h[key] = []string{v}
}

// Perform sends req, bounds what is read of the answer, and compacts a successful bulk
// response.
func (c *compactClient) Perform(req *http.Request) (*http.Response, error) {
	c.compacted, c.created, c.kept = false, 0, c.kept[:0]
	clear(c.odd)
	c.odd = c.odd[:0]
	setHeader(req.Header, docappender.HeaderEventCount, strconv.Itoa(c.docs))
	setFilterPath(req, c.filterPath)
	resp, err := c.next.Perform(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.StatusCode > 299 { // what docappender takes for a failed request
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
	out, kept, odd, created, err := compactBulkResponse(c.out[:0], c.kept, c.odd, c.in)
	if err != nil {
		return nil, err
	}
	c.out, c.kept, c.odd = out, kept, odd
	c.compacted, c.created = true, created
	c.hold(cap(c.out))
	c.body.Reset(out)
	if c.bodyCloser == nil {
		c.bodyCloser = io.NopCloser(&c.body)
	}
	resp.Body = c.bodyCloser
	resp.ContentLength = int64(len(out))
	return resp, nil
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

// release gives back the bytes held for the last response, and lets go of buffers grown
// larger than an idle session keeps.
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

// position returns the position in the last response of the item docappender read at
// position p.
func (c *compactClient) position(p int) int {
	if !c.compacted {
		return p
	}
	if p < 0 || p >= len(c.kept) {
		return -1
	}
	return c.kept[p]
}
