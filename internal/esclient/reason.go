// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import "unicode/utf8"

// MaxReason is the most bytes of an error reason, of a document or of a whole request, and of
// the body of an answer that failed, that the exporter keeps wherever it keeps them: errors
// returned, log lines (the version check's warnings among them), dead letters. What is longer
// is cut by TruncateReason.
const MaxReason = 1 << 10

// TruncatedMarker ends a text that TruncateReason cut.
const TruncatedMarker = "…[truncated]"

// TruncateReason returns s cut to MaxReason bytes, at a UTF-8 boundary, ending in
// TruncatedMarker when something was cut.
func TruncateReason(s string) string {
	if len(s) <= MaxReason {
		return s
	}
	n := MaxReason - len(TruncatedMarker)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + TruncatedMarker
}
