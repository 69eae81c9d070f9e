// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/cespare/xxhash/v2"
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
	refused   []refusedDoc
}

// refusedDoc is a document of a Batch that must not be sent (see Batch.Refuse).
type refusedDoc struct {
	start, end               int
	index, errorType, reason string
}

// Reset empties the batch and keeps its memory.
func (b *Batch) Reset() {
	b.Buf = b.Buf[:0]
	clear(b.items) // drop string references
	b.items = b.items[:0]
	clear(b.templates)
	b.templates = b.templates[:0]
	b.tplMark = 0
	clear(b.refused)
	b.refused = b.refused[:0]
}

// Retained returns the bytes of memory the batch holds, and keeps after Reset: its buffer,
// items, dynamic templates and refused documents.
func (b *Batch) Retained() int64 {
	return int64(cap(b.Buf)) + int64(cap(b.items))*ItemBytes +
		int64(cap(b.templates))*int64(unsafe.Sizeof(DynamicTemplate{})) +
		int64(cap(b.refused))*int64(unsafe.Sizeof(refusedDoc{}))
}

// ItemBytes is the memory of one document's metadata in a Batch, beside its bytes.
const ItemBytes = int64(unsafe.Sizeof(Item{}))

// Grow makes room for n more bytes of documents and items more documents, so that a batch of
// a known size is not grown by copying it as it is written.
func (b *Batch) Grow(n, items int) {
	b.Buf = slices.Grow(b.Buf, n)
	b.items = slices.Grow(b.items, items)
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

// Refuse records the document written to Buf[start:] as one that must not be sent to index,
// the target its record chose: the pipeline refused it (errorType and reason say why, e.g.
// routing.ErrorTypeTargetNotAllowed). Send counts it rejected for good, with errorType and
// no HTTP status, and writes its dead letter when dead letters are on (Config.DeadLetterIndex);
// it is never part of a bulk request. It is not one of the Len documents; dynamic templates
// added for it are dropped.
func (b *Batch) Refuse(start int, index, errorType, reason string) {
	b.templates = b.templates[:b.tplMark]
	b.refused = append(b.refused, refusedDoc{start: start, end: len(b.Buf), index: index, errorType: errorType, reason: reason})
}

// Refused returns the number of documents recorded with Refuse.
func (b *Batch) Refused() int { return len(b.refused) }

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
