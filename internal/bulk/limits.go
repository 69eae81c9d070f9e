// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"fmt"
	"strconv"
)

// The bounds on what the exporter reads from a server and keeps of it, so that a broken or
// hostile server (or a proxy in front of it) cannot make it allocate, log or dead-letter
// without limit:
//
//   - MaxErrorBody: of the body of a whole-request failure (any status above 299), at most this
//     many bytes are read; the rest is not read, and the connection is not reused.
//   - esclient.MaxReason: an error reason, of a document or of a whole request, is cut to this
//     many bytes (at a UTF-8 boundary, with a marker, by esclient.TruncateReason) wherever it is
//     kept: errors returned, log lines, dead letters.
//   - ResponseLimit: a bulk response of 2xx is read up to 64 KiB plus 8 KiB per document of the
//     request, at most 64 MiB; a longer answer is refused without reading the rest, and the
//     documents of the request are counted as dropped (error.type response_too_large) and
//     dead-lettered like those of any response that does not match its request.
const (
	MaxErrorBody = 64 << 10

	responseBase     = 64 << 10
	responsePerDoc   = 8 << 10
	MaxResponseBytes = 64 << 20
	// retainedBufferSize: larger response buffers are not kept in an idle session. The
	// all-created answer to a 5 MB request of small documents is about 2.5 MB.
	retainedBufferSize = 4 << 20
)

// ResponseLimit returns the largest 2xx bulk response read for a request of docs documents.
// Elasticsearch answers each document with an item of its index name, status and, for a
// failure, an error type and reason (docappender asks for nothing else with filter_path): a
// few hundred bytes, rarely more than a few KiB.
func ResponseLimit(docs int) int {
	if docs >= (MaxResponseBytes-responseBase)/responsePerDoc {
		return MaxResponseBytes
	}
	return responseBase + docs*responsePerDoc
}

// errResponseTooLarge is returned by the session's client for a 2xx bulk response longer
// than ResponseLimit: the outcome of the request's documents is unknown.
type errResponseTooLarge struct {
	limit, docs int
}

func (e errResponseTooLarge) Error() string {
	return "bulk response longer than " + strconv.Itoa(e.limit) + " bytes for " + strconv.Itoa(e.docs) +
		" documents; not read further, their outcome is unknown"
}

// errMalformedResponse is returned by the session's client for a 2xx bulk response that is not
// a JSON object.
type errMalformedResponse struct {
	at int
}

func (e errMalformedResponse) Error() string {
	return fmt.Sprintf("bulk response is not valid JSON (at byte %d)", e.at)
}
