// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// AccountingFilterPath is the filter_path of bulk requests that the accounting of each document
// needs: every item's index, status, failure store status and error type and reason. It is
// also contrib's default bulk_response_filter_path, and docappender's DefaultFilterPath, which
// it sends when its FilterPath is empty.
const AccountingFilterPath = "items.*._index,items.*.status,items.*.failure_store,items.*.error.type,items.*.error.reason"

// accountingFilters are the entries of AccountingFilterPath.
var accountingFilters = strings.Split(AccountingFilterPath, ",")

// FilterPath returns the filter_path to send with bulk requests for the configured
// bulk_response_filter_path: the entries of AccountingFilterPath, which the exporter needs to
// account for each document, then those of configured that they do not hold, in their order.
// Blank entries are dropped. An exclusion (an entry starting with "-") that would remove a field
// the accounting reads is refused: Elasticsearch applies exclusions before inclusions, so adding
// the field back would not help.
func FilterPath(configured string) (string, error) {
	filters := slices.Clone(accountingFilters)
	for entry := range strings.SplitSeq(configured, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" || slices.Contains(filters, entry) {
			continue
		}
		if excluded, ok := strings.CutPrefix(entry, "-"); ok {
			for _, needed := range accountingFilters {
				if excludes(excluded, needed) {
					return "", fmt.Errorf("`bulk_response_filter_path` entry %q would remove %s from bulk responses, which the exporter reads to account for each document; remove the entry", entry, needed)
				}
			}
		}
		filters = append(filters, entry)
	}
	return strings.Join(filters, ","), nil
}

// excludes reports whether the exclusion path excluded may remove the field at path needed (both
// dot-separated, needed with * for any array element): when excluded names needed or one of its
// parents. A segment of excluded is matched as a glob (err* matches error), and ** is taken to
// match any number of segments.
func excludes(excluded, needed string) bool {
	ex, nd := strings.Split(excluded, "."), strings.Split(needed, ".")
	for i, seg := range ex {
		if seg == "**" {
			return true
		}
		if i >= len(nd) {
			return false // excluded names a field below needed
		}
		if nd[i] == "*" {
			continue // an array: excluding any of its elements is harmful
		}
		if matched, err := path.Match(seg, nd[i]); !matched && err == nil {
			return false
		}
	}
	return true
}
