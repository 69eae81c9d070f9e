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
// session adds, see session.add), and it hands docappender only the items of a bulk response
// that say more than "created".
//
// docappender decodes every item of a bulk response with jsoniter, which makes a new string of
// each key and of each index name: four allocations per document and close to a fifth of the
// push path's CPU, although an item that only says {"create":{"_index":...,"status":201}}
// tells nothing but "indexed". compactClient reads the response of a 200 answer, counts such
// items and leaves them out; every other item (an error, a failure store status, anything
// unexpected) is kept byte for byte, and its position in the response is remembered, since
// docappender numbers the items it reads. A response that is not of the expected shape is
// handed on untouched. Each session has its own compactClient, used by one request at a time.
type compactClient struct {
	next elastictransport.Interface
	// filterPath replaces the filter_path that docappender sets (see FilterPath).
	filterPath string
	// docs is the number of documents of the request being sent.
	docs int
	// compacted tells that the last response was compacted: created items of it were left
	// out, and kept holds the position in the response of each item docappender read.
	compacted bool
	created   int
	kept      []int
	in, out   []byte
	body      bytes.Reader
}

// Perform sends req and compacts a successful bulk response.
func (c *compactClient) Perform(req *http.Request) (*http.Response, error) {
	c.compacted, c.created, c.kept = false, 0, c.kept[:0]
	req.Header.Set(docappender.HeaderEventCount, strconv.Itoa(c.docs))
	setFilterPath(req, c.filterPath)
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
	if out, kept, created, ok := compactBulkResponse(c.out[:0], c.kept, c.in); ok {
		c.out, c.kept, body = out, kept, out
		c.compacted, c.created = true, created
	}
	c.body.Reset(body)
	resp.Body = io.NopCloser(&c.body)
	resp.ContentLength = int64(len(body))
	return resp, nil
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
	itemsEnd       = `]}`
	maxItemNesting = 64
)

// compactBulkResponse appends src to dst without the items that only say created
// ({"create":{"_index":"<name>","status":201}}), appends the position of each item it keeps to
// kept, and counts the items left out. It reports whether src had the shape of docappender's
// filtered bulk response, {"items":[...]}, possibly after scalar members that a wider
// bulk_response_filter_path keeps, such as "errors":false; when it did not, dst and kept are of
// no use. The scalar members are left out of dst: docappender does not read them.
func compactBulkResponse(dst []byte, kept []int, src []byte) ([]byte, []int, int, bool) {
	src = bytes.TrimSpace(src)
	i := itemsStart(src)
	if i < 0 {
		return dst, kept, 0, false
	}
	dst = append(dst, itemsPrefix...)
	created := 0
	for pos := 0; ; pos++ {
		if i < len(src) && src[i] == ']' {
			if string(src[i:]) != itemsEnd {
				return dst, kept, 0, false
			}
			return append(dst, itemsEnd...), kept, created, true
		}
		if pos > 0 {
			if i >= len(src) || src[i] != ',' {
				return dst, kept, 0, false
			}
			i++
		}
		if end := createdEnd(src, i); end > 0 {
			created++
			i = end
			continue
		}
		end := objectEnd(src, i)
		if end < 0 {
			return dst, kept, 0, false
		}
		if len(kept) > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, src[i:end]...)
		kept = append(kept, pos)
		i = end
	}
}

// itemsStart returns the index just past `{"items":[` or past `"items":[` when src is an object
// whose members before "items" have scalar values ("errors":false,"took":3), and -1 otherwise.
// Member names are read up to the next quote: Elasticsearch's top-level names have no escapes.
func itemsStart(src []byte) int {
	const items = `"items":[`
	if bytes.HasPrefix(src, []byte(itemsPrefix)) {
		return len(itemsPrefix)
	}
	if len(src) == 0 || src[0] != '{' {
		return -1
	}
	for i := 1; i < len(src); {
		if bytes.HasPrefix(src[i:], []byte(items)) {
			return i + len(items)
		}
		if src[i] != '"' {
			return -1
		}
		name := bytes.IndexByte(src[i+1:], '"')
		if name < 0 {
			return -1
		}
		i += name + 2
		if i >= len(src) || src[i] != ':' {
			return -1
		}
		i++
		value := bytes.IndexByte(src[i:], ',')
		if value <= 0 || bytes.ContainsAny(src[i:i+value], `{["`) {
			return -1
		}
		i += value + 1
	}
	return -1
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
