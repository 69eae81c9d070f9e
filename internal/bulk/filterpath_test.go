// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"net/http"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The filter_path sent is the accounting's, then what bulk_response_filter_path adds.
func TestFilterPath(t *testing.T) {
	tests := []struct {
		name, configured, want string
	}{
		{name: "empty", configured: "", want: AccountingFilterPath},
		{name: "contrib default", configured: AccountingFilterPath, want: AccountingFilterPath},
		{
			name:       "beats translation",
			configured: "errors,items.*.error,items.*.status,items.*.failure_store",
			want:       AccountingFilterPath + ",errors,items.*.error",
		},
		{name: "spaces and blank entries", configured: " took , ,items.*._id,", want: AccountingFilterPath + ",took,items.*._id"},
		{name: "duplicates kept once", configured: "took,took", want: AccountingFilterPath + ",took"},
		{name: "harmless exclusion", configured: "-items.*.error.caused_by", want: AccountingFilterPath + ",-items.*.error.caused_by"},
		{name: "exclusion of another field", configured: "-items.*._id,-took", want: AccountingFilterPath + ",-items.*._id,-took"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FilterPath(tt.configured)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// An exclusion that would take away a field the accounting reads is refused: Elasticsearch
// applies exclusions first, so the accounting's inclusions would not bring it back.
func TestFilterPathRefusesHarmfulExclusions(t *testing.T) {
	for configured, needed := range map[string]string{
		"-items":                 "items.*._index",
		"-items.*.error":         "items.*.error.type",
		"-items.0.status":        "items.*.status",
		"-items.*.err*":          "items.*.error.type",
		"-**.reason":             "items.*._index",
		"took,-items.*.error.*":  "items.*.error.type",
		"-items.*.failure_store": "items.*.failure_store",
	} {
		t.Run(configured, func(t *testing.T) {
			_, err := FilterPath(configured)
			require.ErrorContains(t, err, "would remove "+needed+" from bulk responses")
			assert.ErrorContains(t, err, "`bulk_response_filter_path` entry")
		})
	}
}

// The filter_path on the wire: docappender's own when none is configured, the union otherwise,
// and the other parameters untouched.
func TestFilterPathOnTheWire(t *testing.T) {
	for _, tt := range []struct{ configured, want string }{
		{configured: "", want: AccountingFilterPath},
		{configured: "errors,items.*.error,items.*.status,items.*.failure_store", want: AccountingFilterPath + ",errors,items.*.error"},
	} {
		t.Run(tt.configured, func(t *testing.T) {
			filterPath, err := FilterPath(tt.configured)
			require.NoError(t, err)
			var query []map[string][]string
			client := clientFunc(func(req *http.Request) (*http.Response, error) {
				query = append(query, req.URL.Query())
				// The answer has the shape the wider filter gives.
				return answerBody(`{"errors":false,"items":[` + itemCreated + `]}`)
			})
			ix, err := New(Config{Client: client, MaxBulkBytes: 1 << 20, FilterPath: filterPath, Pipeline: "p"})
			require.NoError(t, err)
			res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
			require.NoError(t, err)
			assert.Equal(t, Result{Indexed: 1}, res)
			require.Len(t, query, 1)
			assert.Equal(t, []string{tt.want}, query[0]["filter_path"])
			assert.Equal(t, []string{"p"}, query[0]["pipeline"])
		})
	}
}

// suppress_conflict_errors leaves the version conflicts out of the log line; they are still
// counted as duplicates, and other failures are still logged.
func TestSuppressConflictErrors(t *testing.T) {
	for _, suppress := range []bool{false, true} {
		c := &scriptedClient{answer: func(int) (*http.Response, error) {
			return answerItems(itemConflict, itemRejected, itemCreated)
		}}
		core, logs := observer.New(zapcore.InfoLevel)
		ix, err := New(Config{
			Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core), SuppressConflictErrors: suppress,
		})
		require.NoError(t, err)
		b := &Batch{}
		for i, it := range []Item{{Index: "d", DocumentID: "mine"}, {Index: "i"}, {Index: "i"}} {
			start := len(b.Buf)
			b.Buf = append(b.Buf, `{"n":`...)
			b.Buf = append(b.Buf, byte('0'+i), '}')
			b.Add(start, it)
		}
		res, err := ix.Send(context.Background(), b)
		require.NoError(t, err)
		assert.Equal(t, Result{Indexed: 1, Rejected: 1, Duplicate: 1}, res)
		lines := logs.FilterMessage("Documents not indexed").All()
		require.Len(t, lines, 1)
		want := "1 duplicate (409 version_conflict_engine_exception) in d; 1 rejected (400 mapper_parsing_exception) in i"
		if suppress {
			want = "1 rejected (400 mapper_parsing_exception) in i"
		}
		assert.Equal(t, want, lines[0].ContextMap()["failures"], "suppress_conflict_errors: %v", suppress)
	}
}

// With no bulk_response_filter_path the bulk indexer's FilterPath is empty and docappender
// sends its DefaultFilterPath: it must be what the accounting reads.
func TestAccountingFilterPathIsDocappenderDefault(t *testing.T) {
	assert.Equal(t, docappender.DefaultFilterPath, AccountingFilterPath)
}
