// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/elastic/go-docappender/v2"
	"go.uber.org/zap"
)

// logFailures writes one Warn line per Send that had rejected or failed documents, with
// counts, error types, a reason and the indices. Lines are rate-limited; the number of
// suppressed lines is reported on the next one.
func (ix *Indexer) logFailures(s *session) {
	if len(s.failures.entries) == 0 {
		return
	}
	suppressed, ok := ix.limiter.Allow()
	if !ok {
		return
	}
	var sb strings.Builder
	for i, e := range s.failures.entries {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(strconv.Itoa(e.count))
		sb.WriteString(" ")
		sb.WriteString(e.outcome)
		sb.WriteString(" (")
		sb.WriteString(strconv.Itoa(e.status))
		sb.WriteString(" ")
		sb.WriteString(e.errorType)
		if e.reason != "" {
			sb.WriteString(": ")
			sb.WriteString(e.reason)
		}
		sb.WriteString(") in ")
		sb.WriteString(e.index)
		if e.fields != "" {
			sb.WriteString(", first document's metrics: ")
			sb.WriteString(e.fields)
		}
	}
	fields := []zap.Field{
		zap.String("failures", sb.String()),
		zap.Int("indexed", s.result.Indexed), zap.Int("rejected", s.result.Rejected),
		zap.Int("duplicate", s.result.Duplicate), zap.Int("dropped", s.result.Dropped),
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed_log_lines", suppressed))
	}
	ix.cfg.Logger.Warn("Documents not indexed", fields...)
}

// failureSummary groups failed documents by outcome, status, error type and index.
type failureSummary struct {
	entries []failureEntry
	// quietConflicts leaves out the version conflicts (Config.SuppressConflictErrors).
	quietConflicts bool
}

type failureEntry struct {
	outcome, errorType, reason, index string
	// fields names the metrics of the entry's first document: the paths of its dynamic
	// templates (metrics.<name> in otel mode), which identify what a metric document held.
	fields        string
	status, count int
}

const maxFailureEntries = 16

// errorTypeVersionConflict is the error of a document whose _id is taken: a duplicate.
const errorTypeVersionConflict = "version_conflict_engine_exception"

// addItem adds the failure of document i of b; a new entry names the document's metrics.
func (f *failureSummary) addItem(item docappender.BulkIndexerResponseItem, outcome string, b *Batch, i int) {
	if f.quietConflicts && item.Status == http.StatusConflict && item.Error.Type == errorTypeVersionConflict {
		return
	}
	if e := f.add(outcome, item.Status, item.Error.Type, item.Error.Reason, item.Index); e != nil {
		e.fields = templateFields(b.Templates(i))
	}
}

// add counts a failure in its entry and returns the entry when it is new, or nil.
func (f *failureSummary) add(outcome string, status int, errorType, reason, index string) *failureEntry {
	for i := range f.entries {
		e := &f.entries[i]
		if e.outcome == outcome && e.status == status && e.errorType == errorType && e.index == index {
			e.count++
			return nil
		}
	}
	if len(f.entries) == maxFailureEntries {
		return nil
	}
	f.entries = append(f.entries, failureEntry{
		outcome: outcome, errorType: errorType, reason: reason,
		index: index, status: status, count: 1,
	})
	return &f.entries[len(f.entries)-1]
}

// maxLoggedFields bounds the metrics named for one failure entry.
const maxLoggedFields = 8

// templateFields returns the paths of templates, comma-separated, at most maxLoggedFields of
// them, or "" when there are none (log records and spans).
func templateFields(templates []DynamicTemplate) string {
	if len(templates) == 0 {
		return ""
	}
	var sb strings.Builder
	for i, t := range templates {
		if i == maxLoggedFields {
			sb.WriteString(" and ")
			sb.WriteString(strconv.Itoa(len(templates) - i))
			sb.WriteString(" more")
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(t.Path)
	}
	return sb.String()
}

func (f *failureSummary) reset() {
	clear(f.entries)
	f.entries = f.entries[:0]
}
