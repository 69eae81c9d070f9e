// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package bulk sends encoded documents to Elasticsearch with go-docappender's synchronous
// BulkIndexer and gives every document a final outcome.
//
// The documents of one push are encoded once into a Batch: one buffer plus the offsets and
// metadata of each document. The Indexer cuts the batch into bulk requests of at most
// MaxBulkBytes of uncompressed NDJSON and at most MaxBulkDocs documents, sends them one after
// the other, and classifies each item of each response. Retries resend bytes from the batch, never re-encode, and resend only
// the documents that have no final outcome yet. docappender's own document retries are off
// (MaxDocumentRetries 0) because its item positions refer to its last flush, not to the batch.
//
// How long a Send can take: each of its bulk requests makes one attempt, and all of them
// together, with the dead letters, at most Retry.MaxRetries retries. An attempt lasts at most
// RequestTimeout; the wait before a retry is at most the backoff interval of that request's
// attempt (at most Retry.MaxInterval) or the server's Retry-After (at most 5 minutes),
// whichever is longer. So with R requests (including 413 halves, the resends of a chunk whose
// shared request was answered 413, and dead-letter requests) and
// M = MaxRetries: at most (R + M) × RequestTimeout + Σ_{a<M} max(interval(a), Retry-After).
// At Stop the waits end and no retry starts. The wait for a request slot comes on top.
//
// Pushes that wait for a request slot share the next bulk request, one chunk each (group
// commit, see group.go), within the same MaxBulkBytes and MaxBulkDocs; each classifies and
// retries only its own documents.
//
// Which file holds which concern is listed in docs/architecture.md.
package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"
