// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"bytes"
	"net/http"
	"strconv"
)

const (
	itemsPrefix    = `{"items":[`
	createdPrefix  = `{"create":{"_index":"`
	createdSuffix  = `","status":201}}`
	itemsEnd       = `]}`
	maxItemNesting = 64
)

// compactResponse is what compactBulkResponse tells of a bulk response besides the items it
// keeps, each by the item's position in the response.
type compactResponse struct {
	// kept holds the position of each item kept, in order: docappender numbers the items
	// it reads 0, 1, ..., and item p of those is kept[p] of the response.
	kept []int
	// odd lists the items that are not an answer to a create, left out.
	odd []oddItem
	// failureStore holds the positions of the kept items with "failure_store":"used", and
	// failureStoreFailed and failureStoreNotEnabled those with "failed" and "not_enabled".
	failureStore, failureStoreFailed, failureStoreNotEnabled []int
	// items is the number of items of the response.
	items int
}

func (r *compactResponse) reset() {
	r.kept = r.kept[:0]
	clear(r.odd) // drop reason strings
	r.odd = r.odd[:0]
	r.failureStore = r.failureStore[:0]
	r.failureStoreFailed = r.failureStoreFailed[:0]
	r.failureStoreNotEnabled = r.failureStoreNotEnabled[:0]
	r.items = 0
}

// compactBulkResponse appends to dst, as {"items":[...]}, the items of the bulk response src
// that docappender must read: each item that is not exactly
// {"create":{"_index":"<name>","status":201}} (created) and that is an answer
// Elasticsearch gives to a create action (see itemProblem). It records in r, after resetting
// it, the position of each item kept and each odd item. Other members of the response object
// (took, errors) are skipped. It returns an error when src is not valid JSON of an object.
func compactBulkResponse(dst []byte, r *compactResponse, src []byte) ([]byte, error) {
	r.reset()
	s := jsonScanner{src: src}
	malformed := func() ([]byte, error) {
		return dst, errMalformedResponse{at: s.i}
	}
	dst = append(dst, itemsPrefix...)
	sawItems := false
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
			r.items++
			s.ws()
			if end := createdEnd(src, s.i); end > 0 {
				s.i = end
				continue
			}
			start := s.i
			it, ok := s.item()
			if !ok {
				return malformed()
			}
			if problem := it.problem(); problem != "" {
				r.odd = append(r.odd, oddItem{pos: pos, status: it.status, reason: problem})
				continue
			}
			if len(r.kept) > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, src[start:s.i]...)
			r.kept = append(r.kept, pos)
			switch it.failureStore {
			case failureStoreUsed:
				r.failureStore = append(r.failureStore, pos)
			case failureStoreFailed:
				r.failureStoreFailed = append(r.failureStoreFailed, pos)
			case failureStoreNotEnabled:
				r.failureStoreNotEnabled = append(r.failureStoreNotEnabled, pos)
			}
		}
	}
	s.ws()
	if s.i != len(src) {
		return malformed()
	}
	return append(dst, itemsEnd...), nil
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
	// failureStore is the item's "failure_store" when it is one of the statuses docappender
	// counts (failureStoreUsed, failureStoreFailed, failureStoreNotEnabled), "" otherwise.
	failureStore string
}

// problem returns why the item is not an answer Elasticsearch gives to a create action, ""
// when it is. The exporter sends only create actions (appendAction); for these
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

// oddItem is an item of a bulk response that Elasticsearch does not give to a create action.
type oddItem struct {
	pos    int
	status int // 0 when it has none
	reason string
}
