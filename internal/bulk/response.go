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
// session adds, see session.add), and it shortens each item of a bulk response that says only
// "created" before docappender decodes it.
//
// docappender decodes every item of a bulk response with jsoniter, which makes a new string of
// each key and of each index name: four allocations per document, and close to a fifth of the
// push path's CPU, although an item that only says {"create":{"_index":...,"status":201}} tells
// nothing but "indexed". compactClient reads the response of a 200 answer and writes each such
// item as {"c":{}}, which docappender counts as indexed, at its position, without allocating.
// Every other item (an error, a failure store status, anything unexpected) is kept byte for
// byte, so docappender sees it as before, at the same position. A response that is not of the
// expected shape is handed on untouched. Each session has its own compactClient, used by one
// request at a time.
type compactClient struct {
	next elastictransport.Interface
	// docs is the number of documents of the request being sent.
	docs    int
	in, out []byte
	body    bytes.Reader
}

// Perform sends req and compacts a successful bulk response.
func (c *compactClient) Perform(req *http.Request) (*http.Response, error) {
	req.Header.Set(docappender.HeaderEventCount, strconv.Itoa(c.docs))
	resp, err := c.next.Perform(req)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return resp, err
	}
	c.in, err = readAll(c.in[:0], resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		// Hand the error to docappender as a body that fails to read, as the original would.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(c.in), errReader{err}))
		return resp, nil
	}
	body := c.in
	if out, ok := compactBulkResponse(c.out[:0], c.in); ok {
		c.out, body = out, out
	}
	c.body.Reset(body)
	resp.Body = io.NopCloser(&c.body)
	resp.ContentLength = int64(len(body))
	return resp, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readAll appends everything r holds to dst.
func readAll(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

const (
	itemsPrefix    = `{"items":[`
	createdPrefix  = `{"create":{"_index":"`
	createdSuffix  = `","status":201}}`
	compactedItem  = `{"c":{}}`
	itemsEnd       = `]}`
	maxItemNesting = 64
)

// compactBulkResponse appends src to dst with every item that only says created
// ({"create":{"_index":"<name>","status":201}}) written as {"c":{}}, and reports whether src
// had the shape of docappender's filtered bulk response, {"items":[...]}; when it did not, dst
// is of no use.
func compactBulkResponse(dst, src []byte) ([]byte, bool) {
	src = bytes.TrimSpace(src)
	if !bytes.HasPrefix(src, []byte(itemsPrefix)) {
		return dst, false
	}
	dst = append(dst, itemsPrefix...)
	i := len(itemsPrefix)
	for first := true; ; first = false {
		if i < len(src) && src[i] == ']' {
			if string(src[i:]) != itemsEnd {
				return dst, false
			}
			return append(dst, itemsEnd...), true
		}
		if !first {
			if i >= len(src) || src[i] != ',' {
				return dst, false
			}
			dst = append(dst, ',')
			i++
		}
		if end := createdEnd(src, i); end > 0 {
			dst = append(dst, compactedItem...)
			i = end
			continue
		}
		end := objectEnd(src, i)
		if end < 0 {
			return dst, false
		}
		dst = append(dst, src[i:end]...)
		i = end
	}
}

// createdEnd returns the index just past the item at src[i] when it is exactly
// {"create":{"_index":"<name>","status":201}} with a name free of quotes and escapes
// (Elasticsearch index names cannot hold them), and -1 otherwise. It reads the item once, the
// name with IndexByte, instead of scanning it byte by byte as objectEnd does.
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

// objectEnd returns the index just past the JSON object that starts at src[i], or -1 when
// there is none. Strings, with their escapes, are skipped; nesting deeper than maxItemNesting
// counts as none.
func objectEnd(src []byte, i int) int {
	if i >= len(src) || src[i] != '{' {
		return -1
	}
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '{', '[':
			depth++
			if depth > maxItemNesting {
				return -1
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i >= len(src) {
				return -1
			}
		}
	}
	return -1
}
