// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"io"

	"github.com/elastic/go-docappender/v2"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// add hands the documents pending of b to the bulk indexer as the body of one request.
//
// docappender's Add writes an action line, the document and a newline into its buffer, or its
// gzip writer, in three writes, and allocates the newline: with one Add per document, small
// documents cost about a tenth of the push path's CPU there, and one allocation each. add
// calls Add once per request instead, with the first document's metadata and a body that
// writes the first document followed by the action line and the document of each other one
// (see requestBody). The response still has one item per document, in order, which is what
// classify reads; the session's client sends the real number of documents in
// X-Elastic-Event-Count, since docappender counts one item.
func (s *session) add(b *Batch, pending []int) error {
	first := &b.items[pending[0]]
	s.body.batch, s.body.pending = b, pending
	s.client.docs = len(pending)
	var templates map[string]string
	if first.tplEnd > first.tplStart {
		// docappender reads the map while Add writes the action line, so one map serves
		// every request.
		if s.templates == nil {
			s.templates = make(map[string]string)
		}
		clear(s.templates)
		for _, t := range b.Templates(pending[0]) {
			s.templates[t.Path] = t.Template
		}
		templates = s.templates
	}
	return s.bi.Add(docappender.BulkIndexerItem{
		Index:             first.Index,
		DocumentID:        first.DocumentID,
		Pipeline:          first.Pipeline,
		Body:              &s.body,
		DynamicTemplates:  templates,
		RequireDataStream: first.RequireDataStream,
	})
}

// bodyPiece is the size of the pieces in which requestBody writes a request body.
const bodyPiece = 64 << 10

// requestBody writes the documents pending of a batch as a bulk request body, less the first
// document's action line, which docappender writes: the first document, then the action line
// and the document of each other one, newline-separated (docappender adds the last newline).
//
// The pieces are assembled in a small scratch buffer and written when it holds about
// bodyPiece bytes: each piece is compressed while it is still in the CPU's cache, no copy of a
// whole request is kept, and gzip sees a few large writes rather than three small ones per
// document. A document as large as a piece is written straight from the batch.
type requestBody struct {
	batch   *Batch
	pending []int
	buf     []byte
	// action is the last action line written, and last the item it was written for when it
	// fits every item of the same index, pipeline and require_data_stream without an id or
	// dynamic templates: documents often share their action line with the previous one.
	action []byte
	last   *Item
}

func (r *requestBody) WriteTo(w io.Writer) (int64, error) {
	b := r.batch
	var written int64
	write := func(p []byte) error {
		n, err := w.Write(p)
		written += int64(n)
		return err
	}
	buf := r.buf[:0]
	r.last = nil
	for k, i := range r.pending {
		it := &b.items[i]
		if k > 0 {
			buf = append(buf, '\n')
			plain := it.DocumentID == "" && it.tplEnd == it.tplStart
			if last := r.last; !plain || last == nil || it.Index != last.Index || it.Pipeline != last.Pipeline ||
				it.RequireDataStream != last.RequireDataStream {
				r.action = serializer.AppendAction(r.action[:0], it.Index, it.DocumentID, it.Pipeline, b.Templates(i), it.RequireDataStream)
				r.last = nil
				if plain {
					r.last = it
				}
			}
			buf = append(buf, r.action...)
			buf = append(buf, '\n')
		}
		doc := b.Buf[it.start:it.end]
		if len(buf) > 0 && len(buf)+len(doc) > bodyPiece {
			if err := write(buf); err != nil {
				return written, err
			}
			buf = buf[:0]
		}
		if len(doc) >= bodyPiece {
			if err := write(doc); err != nil {
				return written, err
			}
			continue
		}
		buf = append(buf, doc...)
	}
	r.buf = buf[:0]
	return written, write(buf)
}

// itemOverhead returns the bytes an item adds to a request besides its document: its action
// line and the two newlines. Names that need JSON escaping make it a little
// larger; the cut is meant to be close, not exact.
func itemOverhead(it *Item) int {
	n := len(`{"create":{}}`) + 2
	if it.Index != "" {
		n += len(`,"_index":""`) + len(it.Index)
	}
	if it.DocumentID != "" {
		n += len(`,"_id":""`) + len(it.DocumentID)
	}
	if it.Pipeline != "" {
		n += len(`,"pipeline":""`) + len(it.Pipeline)
	}
	if it.RequireDataStream {
		n += len(`,"require_data_stream":true`)
	}
	return n
}
