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

// oddItem is an item of a bulk response that Elasticsearch does not give to a create action.
type oddItem struct {
	pos    int
	status int // 0 when it has none
	reason string
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

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readAtMost appends what r holds to dst, up to limit bytes in all; it stops there without
// reading further.
func readAtMost(dst []byte, r io.Reader, limit int) ([]byte, error) {
	for len(dst) < limit {
		if len(dst) == cap(dst) {
			grow := min(max(cap(dst), 512), limit-len(dst))
			dst = append(dst[:cap(dst)], make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), limit)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

const (
	itemsPrefix    = `{"items":[`
	createdPrefix  = `{"create":{"_index":"`
	createdSuffix  = `","status":201}}`
	itemsEnd       = `]}`
	maxItemNesting = 64
)

// compactBulkResponse appends to dst, as {"items":[...]}, the items of the bulk response src
// that docappender must read: each item that is not exactly
// {"create":{"_index":"<name>","status":201}} (counted as created) and that is an answer
// Elasticsearch gives to a create action (see itemProblem). It appends the position of each
// item it keeps to kept and each odd item to odd. Other members of the response object
// (took, errors) are skipped. It returns an error when src is not valid JSON of an object.
func compactBulkResponse(dst []byte, kept []int, odd []oddItem, src []byte) ([]byte, []int, []oddItem, int, error) {
	s := jsonScanner{src: src}
	malformed := func() ([]byte, []int, []oddItem, int, error) {
		return dst, kept, odd, 0, errMalformedResponse{at: s.i}
	}
	dst = append(dst, itemsPrefix...)
	created, keptBefore, sawItems := 0, len(kept), false
	if !s.eat('{') {
		return malformed()
	}
	for n := 0; !s.eat('}'); n++ {
		if n > 0 && !s.eat(',') {
			return malformed()
		}
		key, ok := s.str()
		if !ok || !s.eat(':') {
			return malformed()
		}
		if string(key) != "items" || sawItems {
			if !s.skip(0) {
				return malformed()
			}
			continue
		}
		sawItems = true
		if !s.eat('[') {
			return malformed()
		}
		for pos := 0; !s.eat(']'); pos++ {
			if pos > 0 && !s.eat(',') {
				return malformed()
			}
			s.ws()
			if end := createdEnd(src, s.i); end > 0 {
				created++
				s.i = end
				continue
			}
			start := s.i
			it, ok := s.item()
			if !ok {
				return malformed()
			}
			if problem := it.problem(); problem != "" {
				odd = append(odd, oddItem{pos: pos, status: it.status, reason: problem})
				continue
			}
			if len(kept) > keptBefore {
				dst = append(dst, ',')
			}
			dst = append(dst, src[start:s.i]...)
			kept = append(kept, pos)
		}
	}
	s.ws()
	if s.i != len(src) {
		return malformed()
	}
	return append(dst, itemsEnd...), kept, odd, created, nil
}

// createdEnd returns the index just past the item at src[i] when it is exactly
// {"create":{"_index":"<name>","status":201}} with a name free of quotes and escapes
// (Elasticsearch index names cannot hold them), and -1 otherwise. It reads the item once, the
// name with IndexByte, instead of scanning it byte by byte as the scanner does.
func createdEnd(src []byte, i int) int {
	rest := src[i:]
	if !bytes.HasPrefix(rest, []byte(createdPrefix)) {
		return -1
	}
	name := rest[len(createdPrefix):]
	q := bytes.IndexByte(name, '"')
	if q < 0 || bytes.IndexByte(name[:q], '\\') >= 0 || !bytes.HasPrefix(name[q:], []byte(createdSuffix)) {
		return -1
	}
	return i + len(createdPrefix) + q + len(createdSuffix)
}

// responseItem is what an item of a bulk response says that matters for its outcome.
type responseItem struct {
	object    bool   // the item is a JSON object
	actions   int    // its members: one per action, one expected
	action    []byte // the first, as written (escapes not decoded)
	inner     bool   // the action's value is an object
	hasStatus bool
	status    int
	hasError  bool
}

// problem returns why the item is not an answer Elasticsearch gives to a create action, ""
// when it is. The exporter sends only create actions (serializer.AppendAction); for these
// Elasticsearch documents 201 (created), 409 (a document with that _id exists, a duplicate)
// and the 4xx and 5xx of a failure. docappender counts any item without an error type and a
// status of 201 or less as indexed: an item without status, or of status 0, 100 or 200, would
// be counted as indexed although nothing says the document was.
func (it *responseItem) problem() string {
	switch {
	case !it.object:
		return "bulk response item is not an object"
	case it.actions != 1:
		return "bulk response item has " + strconv.Itoa(it.actions) + " actions, expected one"
	case string(it.action) != "create":
		return "bulk response item for a " + strconv.Quote(string(it.action)) + " action; the request had create"
	case !it.inner:
		return "bulk response item for create is not an object"
	case !it.hasStatus:
		return "bulk response item for create has no status"
	case it.status == http.StatusCreated:
		if it.hasError {
			return "bulk response item for create has status 201 and an error"
		}
		return ""
	case it.status == http.StatusConflict, it.status >= 400 && it.status <= 599:
		return ""
	}
	return "bulk response item for create has status " + strconv.Itoa(it.status) +
		"; Elasticsearch answers a create with 201, 409 or a 4xx/5xx failure"
}

// jsonScanner reads the JSON of a bulk response without decoding it.
type jsonScanner struct {
	src []byte
	i   int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c, after white space, when it comes next.
func (s *jsonScanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i < len(s.src) {
		return s.src[s.i]
	}
	return 0
}

// str reads a string and returns its content as written, escapes not decoded.
func (s *jsonScanner) str() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '"':
			s.i++
			return s.src[start : s.i-1], true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return nil, false
		default:
			s.i++
		}
	}
	return nil, false
}

// skip reads any value; nesting deeper than maxItemNesting is refused.
func (s *jsonScanner) skip(depth int) bool {
	if depth > maxItemNesting {
		return false
	}
	switch s.peek() {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		s.i++
		for n := 0; !s.eat('}'); n++ {
			if n > 0 && !s.eat(',') {
				return false
			}
			if _, ok := s.str(); !ok || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
		}
		return true
	case '[':
		s.i++
		for n := 0; !s.eat(']'); n++ {
			if n > 0 && !s.eat(',') {
				return false
			}
			if !s.skip(depth + 1) {
				return false
			}
		}
		return true
	}
	_, _, ok := s.scalar()
	return ok
}

// scalar reads a number, true, false or null, and returns the value of an integer that fits
// in an int.
func (s *jsonScanner) scalar() (n int, isInt, ok bool) {
	start := s.i
	for s.i < len(s.src) {
		c := s.src[s.i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && c != '-' && c != '+' && c != '.' && c != 'E' {
			break
		}
		s.i++
	}
	lit := s.src[start:s.i]
	switch string(lit) {
	case "":
		return 0, false, false
	case "true", "false", "null":
		return 0, false, true
	}
	v, err := strconv.ParseInt(string(lit), 10, 32)
	if err == nil {
		return int(v), true, true
	}
	_, err = strconv.ParseFloat(string(lit), 64)
	return 0, false, err == nil
}

// item reads an item of the items array.
func (s *jsonScanner) item() (responseItem, bool) {
	var it responseItem
	if s.peek() != '{' {
		return it, s.skip(1)
	}
	it.object = true
	s.i++
	for ; !s.eat('}'); it.actions++ {
		if it.actions > 0 && !s.eat(',') {
			return it, false
		}
		action, ok := s.str()
		if !ok || !s.eat(':') {
			return it, false
		}
		if it.actions > 0 || s.peek() != '{' {
			if !s.skip(2) {
				return it, false
			}
			continue
		}
		it.action, it.inner = action, true
		s.i++
		for n := 0; !s.eat('}'); n++ {
			if n > 0 && !s.eat(',') {
				return it, false
			}
			key, ok := s.str()
			if !ok || !s.eat(':') {
				return it, false
			}
			switch string(key) {
			case "status":
				if s.peek() == '"' || s.peek() == '{' || s.peek() == '[' {
					it.hasStatus, it.status = true, -1
					if !s.skip(3) {
						return it, false
					}
					continue
				}
				start := s.i
				v, isInt, ok := s.scalar()
				switch {
				case !ok:
					return it, false
				case string(s.src[start:s.i]) == "null":
					it.hasStatus = false
				case isInt:
					it.hasStatus, it.status = true, v
				default:
					it.hasStatus, it.status = true, -1
				}
			case "error":
				it.hasError = true
				if !s.skip(3) {
					return it, false
				}
			default:
				if !s.skip(3) {
					return it, false
				}
			}
		}
	}
	return it, true
}
