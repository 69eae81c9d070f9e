// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"time"
	"unicode/utf8"
)

// AppendDeadLetter appends the dead-letter document of a document that Elasticsearch rejected
// for good or that could not be delivered: the time, the original document as a string, the
// index it was meant for, the HTTP status (0 when there was no answer) and the error's type
// and reason.
func AppendDeadLetter(dst, doc []byte, index string, status int, errorType, reason string, now time.Time) []byte {
	w := writer{buf: dst}
	w.raw(`{"@timestamp":"`)
	w.buf = now.UTC().AppendFormat(w.buf, time.RFC3339Nano)
	w.raw(`","document":`)
	var invalid int
	w.buf = append(w.buf, '"')
	w.buf, invalid = appendEscaped(w.buf, string(doc))
	_ = invalid // the document was written by this package: it is valid UTF-8
	w.buf = append(w.buf, '"')
	w.raw(`,"index":`)
	w.str(index)
	w.raw(`,"http":{"response":{"status_code":`)
	w.int(int64(status))
	w.raw(`}},"error":{"type":`)
	w.str(errorType)
	w.raw(`,"reason":`)
	w.str(reason)
	w.raw(`}}`)
	return w.buf
}

// TruncateUTF8 returns at most n bytes of b, cut before a UTF-8 sequence rather than inside
// one.
func TruncateUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
