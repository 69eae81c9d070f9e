// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"io"

	"github.com/elastic/go-docappender/v2"
)

// bulkRequest is the bulk request a session builds: one or more chunks, each the documents
// of one batch, handed to the bulk indexer in order with AddBuffer and sent together by one
// Flush. Elasticsearch answers the items of a request in the order they were sent, so the
// items of chunk k are those at positions offset(k) to offset(k)+ItemCount()-1 of the
// response (see classify).
type bulkRequest struct {
	chunks []chunk
	docs   int
	// scratch is what the chunks write their NDJSON through, one after the other.
	scratch bodyScratch
}

// reset empties the request for the next one.
func (r *bulkRequest) reset() {
	clear(r.chunks) // drop batch references
	r.chunks = r.chunks[:0]
	r.docs = 0
}

// add writes the documents pending of b to bi as the next chunk of the request, and returns
// the position in the response of the chunk's first item.
func (r *bulkRequest) add(bi *docappender.BulkIndexer, b *Batch, pending []int) (int, error) {
	offset := r.docs
	r.chunks = append(r.chunks, chunk{batch: b, pending: pending, offset: offset, scratch: &r.scratch})
	if err := bi.AddBuffer(&r.chunks[len(r.chunks)-1]); err != nil {
		return offset, err
	}
	r.docs += len(pending)
	return offset, nil
}

// bodyPiece is the size of the pieces in which a chunk writes its NDJSON.
const bodyPiece = 64 << 10

// chunk is the documents pending of a batch as part of a bulk request: a
// docappender.BulkIndexerBuffer whose WriteTo writes, for each document, its action line
// (serializer.AppendAction, the encoding docappender's Add and WriteItemMeta use), the
// document and a newline.
//
// The pieces are assembled in the scratch buffer and written when it holds about bodyPiece
// bytes: with gzip in the bulk indexer, each piece is compressed while it is still in the
// CPU's cache, no uncompressed copy of a whole request is kept, and gzip sees a few large
// writes rather than three small ones per document (while snappy is on, the bulk indexer
// holds the whole request uncompressed, see encoding.go). A document as large as a piece is
// written straight from the batch.
type chunk struct {
	batch   *Batch
	pending []int
	// offset is the position in the response of the item that answers pending[0].
	offset  int
	scratch *bodyScratch
}

// bodyScratch is the buffer in which chunks assemble their pieces, and the last action line
// written: action is that line, and last the item it was written for when it fits every item
// of the same index, pipeline and require_data_stream without an id or dynamic templates, since
// documents often share their action line with the previous one.
type bodyScratch struct {
	buf    []byte
	action []byte
	last   *Item
}

// ItemCount returns the number of documents the chunk writes.
func (c *chunk) ItemCount() int { return len(c.pending) }

// WriteTo writes the chunk's NDJSON to w.
func (c *chunk) WriteTo(w io.Writer) (int64, error) {
	b, sc := c.batch, c.scratch
	var written int64
	write := func(p []byte) error {
		n, err := w.Write(p)
		written += int64(n)
		return err
	}
	buf := sc.buf[:0]
	sc.last = nil
	for _, i := range c.pending {
		it := &b.items[i]
		plain := it.DocumentID == "" && it.tplEnd == it.tplStart
		if last := sc.last; !plain || last == nil || it.Index != last.Index || it.Pipeline != last.Pipeline ||
			it.RequireDataStream != last.RequireDataStream {
			sc.action = appendAction(sc.action[:0], it.Index, it.DocumentID, it.Pipeline, b.Templates(i), it.RequireDataStream)
			sc.last = nil
			if plain {
				sc.last = it
			}
		}
		buf = append(buf, sc.action...)
		buf = append(buf, '\n')
		doc := b.Buf[it.start:it.end]
		if len(buf)+len(doc) > bodyPiece {
			if err := write(buf); err != nil {
				return written, err
			}
			buf = buf[:0]
		}
		if len(doc) >= bodyPiece {
			if err := write(doc); err != nil {
				return written, err
			}
			buf = append(buf, '\n')
			continue
		}
		buf = append(buf, doc...)
		buf = append(buf, '\n')
	}
	sc.buf, sc.last = buf[:0], nil
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

// requestBody is what a bulk request needs only while it is built and sent: a docappender
// bulk indexer, with the buffer the request body is written to and its gzip writer, and the
// encoder of the session's client for the bodies docappender leaves uncompressed
// (encoding.go). A session takes one once it holds a request slot (takeBody) and gives it back
// once the answer is read (putBody), so the bodies in use are at most the requests in flight,
// and a push that waits for a slot holds its encoded documents only. The Indexer keeps the
// bodies given back in a free list, as many as Concurrency.Max allows in flight.
type requestBody struct {
	bi  *docappender.BulkIndexer
	enc bodyEncoder
	gen uint64 // the Indexer's settings generation the bulk indexer was made with
}

// takeBody gives s a request body made with the Indexer's current settings, from the free list
// or new, and makes the session's client its client.
func (ix *Indexer) takeBody(s *session) error {
	gen := ix.gen.Load()
	body, ok := ix.bodies.Get()
	if !ok || body.gen != gen {
		var err error
		if body, err = ix.newBody(gen); err != nil {
			return err
		}
	}
	body.bi.SetClient(&s.client)
	s.body, s.bi, s.client.enc = body, body.bi, &body.enc
	return nil
}

// putBody takes the request body back from s and keeps it for the next request, unless the
// settings changed since it was made or the free list is full.
func (ix *Indexer) putBody(s *session) {
	body := s.body
	s.body, s.bi, s.client.enc = nil, nil, nil
	body.enc.release()
	body.bi.SetClient(nil)
	if body.gen == ix.gen.Load() {
		ix.bodies.Put(body, 0)
	}
}

// dropBody takes the request body back from s and drops it: it holds documents added but not
// sent, which docappender's next Flush would send with the next request's (its Reset only
// zeroes counters).
func (*Indexer) dropBody(s *session) {
	s.body, s.bi, s.client.enc = nil, nil, nil
}

// newBody returns a request body whose bulk indexer has the Indexer's settings of generation
// gen.
func (ix *Indexer) newBody(gen uint64) (*requestBody, error) {
	bi, err := docappender.NewBulkIndexer(docappender.BulkIndexerConfig{
		Client:               ix.cfg.Client, // replaced by the client of each session that takes it
		MaxDocumentRetries:   0,             // retries are ours, see the package doc
		CompressionLevel:     ix.compressionLevel(),
		Pipeline:             ix.cfg.Pipeline,
		IncludeSourceOnError: docappender.Value(ix.includeSource.Load()),
		FilterPath:           ix.cfg.FilterPath, // empty: docappender's DefaultFilterPath, AccountingFilterPath
		QueryParams:          ix.cfg.QueryParams,
	})
	if err != nil {
		return nil, err
	}
	return &requestBody{bi: bi, gen: gen}, nil
}
