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
//
// How long a Send can take: each of its bulk requests makes one attempt, and all of them
// together, with the dead letters, at most Retry.MaxRetries retries. An attempt lasts at most
// RequestTimeout; the wait before a retry is at most the backoff interval of that request's
// attempt (at most Retry.MaxInterval) or the server's Retry-After (at most 5 minutes),
// whichever is longer. So with R requests (including 413 halves and dead-letter requests) and
// M = MaxRetries: at most (R + M) × RequestTimeout + Σ_{a<M} max(interval(a), Retry-After).
// At Stop the waits end and no retry starts.
//
// The files, one concern each:
//
//   - batch.go: the Batch of encoded documents and their metadata; content-derived ids.
//   - indexer.go: the Indexer, its Config, Stop and Abort.
//   - send.go: Send and its loop: requests of at most MaxBulkBytes, retries, 413 splits; the
//     error it returns, made permanent there and only there.
//   - toolarge.go: the request size remembered after a 413, and how it grows back.
//   - session.go: the per-Send state around a docappender BulkIndexer, kept in a free list; flushing a
//     request.
//   - request.go: assembling a request body from the batch.
//   - compactclient.go: the client of a session's bulk indexer: the document count header,
//     answers read within bounds, successful bulk responses compacted.
//   - boundedread.go: reading at most a given number of bytes of an answer.
//   - response.go: compacting a bulk response before docappender decodes it, and checking that
//     each item is an answer to a create.
//   - jsonscan.go: the scanner that reads a bulk response's JSON without decoding it.
//   - limits.go: the bounds on what is read of a server's answers and kept of them.
//   - outcome.go: the final outcome of each document: classifying response items, counting,
//     giving up and handing back at shutdown.
//   - retry.go: the retry settings, which failures are retried, the backoff, and the retry
//     budget, which is the push's (its requests' and its dead letters' together).
//   - retryafter.go: the server's Retry-After wait.
//   - deadletter.go: documents rejected for good or given up, sent to the dead-letter index.
//   - failurelog.go: the rate-limited log line about failed documents.
//   - telemetry.go: recording requests and documents in the self-telemetry, with contrib's
//     outcome values beside this exporter's fate, and the metadata_keys attributes.
//   - gate.go, budget.go, concurrency.go: the limits on bytes and requests in flight.
package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"
