// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package bulk sends encoded documents to Elasticsearch with go-docappender's synchronous
// BulkIndexer and gives every document a final outcome.
//
// The documents of one push are encoded once into a Batch: one buffer plus the offsets and
// metadata of each document. The Indexer cuts the batch into bulk requests of at most
// MaxBulkBytes of uncompressed NDJSON, sends them one after the other, and classifies each
// item of each response. Retries resend bytes from the batch, never re-encode, and resend only
// the documents that have no final outcome yet. docappender's own document retries are off
// (MaxDocumentRetries 0) because its item positions refer to its last flush, not to the batch.
package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"encoding/base64"
	"encoding/binary"
	"io"

	"github.com/cespare/xxhash/v2"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Item describes one encoded document of a Batch.
type Item struct {
	start, end        int
	tplStart, tplEnd  int // the item's dynamic templates in Batch.templates
	Index             string
	DocumentID        string
	Pipeline          string
	RequireDataStream bool
	// DerivedID tells that DocumentID was computed from the document's content: a 409 then
	// means the same document is already indexed, an expected duplicate that is not logged.
	DerivedID bool
}

// Batch holds the encoded documents of one push. The zero value is ready to use; Reset makes it
// reusable.
type Batch struct {
	Buf       []byte
	items     []Item
	templates []DynamicTemplate
	tplMark   int // templates from here on belong to the next item added
}

// DynamicTemplate is one entry of a bulk item's dynamic_templates.
type DynamicTemplate = serializer.DynamicTemplate

// Reset empties the batch and keeps its memory.
func (b *Batch) Reset() {
	b.Buf = b.Buf[:0]
	clear(b.items) // drop string references
	b.items = b.items[:0]
	clear(b.templates)
	b.templates = b.templates[:0]
	b.tplMark = 0
}

// AddTemplate records a dynamic template of the next item added.
func (b *Batch) AddTemplate(path, template string) {
	b.templates = append(b.templates, DynamicTemplate{Path: path, Template: template})
}

// Add records the document written to Buf[start:] as an item with the given metadata.
// The dynamic templates added since the previous item belong to it.
func (b *Batch) Add(start int, it Item) {
	it.start, it.end = start, len(b.Buf)
	it.tplStart, it.tplEnd = b.tplMark, len(b.templates)
	b.tplMark = len(b.templates)
	b.items = append(b.items, it)
}

// Templates returns the dynamic templates of document i.
func (b *Batch) Templates(i int) []DynamicTemplate {
	return b.templates[b.items[i].tplStart:b.items[i].tplEnd]
}

// Len returns the number of documents in the batch.
func (b *Batch) Len() int { return len(b.items) }

// Document returns the encoded document i.
func (b *Batch) Document(i int) []byte { return b.Buf[b.items[i].start:b.items[i].end] }

// Item returns the metadata of document i.
func (b *Batch) Item(i int) Item { return b.items[i] }

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

// ContentID returns a document id derived from the encoded document: two XXH64 hashes with
// different seeds, 128 bits in all, as 22 characters of unpadded base64url. The document holds
// the record's timestamps, ids, attributes, body, resource and scope, so the same record gives
// the same id, and different records collide with negligible probability.
func ContentID(doc []byte) string {
	var sum [16]byte
	d := xxhash.NewWithSeed(0)
	_, _ = d.Write(doc)
	binary.BigEndian.PutUint64(sum[:8], d.Sum64())
	d.ResetWithSeed(0x9e3779b97f4a7c15)
	_, _ = d.Write(doc)
	binary.BigEndian.PutUint64(sum[8:], d.Sum64())
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
