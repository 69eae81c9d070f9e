// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompactBulkResponse(t *testing.T) {
	const ok = `{"create":{"_index":".ds-logs-generic.otel-default-2026.11.30-000001","status":201}}`
	const rejected = `{"create":{"_index":"i","status":400,"error":{"type":"document_parsing_exception","reason":"a \"quoted\" } reason"}}}`
	tests := []struct {
		name, in, want string
		kept           []int
		odd            []int // positions
		failureStore   []int
		created        int
		malformed      bool
	}{
		{name: "empty", in: `{"items":[]}`, want: `{"items":[]}`},
		{name: "no items", in: `{"errors":false}`, want: `{"items":[]}`},
		{name: "created", in: `{"items":[` + ok + `,` + ok + `]}`, want: `{"items":[]}`, created: 2},
		{name: "trailing newline", in: `{"items":[` + ok + `]}` + "\n", want: `{"items":[]}`, created: 1},
		{
			name: "errors kept with their positions",
			in:   `{"items":[` + ok + `,` + rejected + `,` + ok + `,` + ok + `,` + rejected + `]}`,
			want: `{"items":[` + rejected + `,` + rejected + `]}`, kept: []int{1, 4}, created: 3,
		},
		{name: "only errors", in: `{"items":[` + rejected + `,` + rejected + `]}`, want: `{"items":[` + rejected + `,` + rejected + `]}`, kept: []int{0, 1}},
		{
			name: "failure store kept",
			in:   `{"items":[{"create":{"_index":"i","status":201,"failure_store":"used"}}]}`,
			want: `{"items":[{"create":{"_index":"i","status":201,"failure_store":"used"}}]}`, kept: []int{0}, failureStore: []int{0},
		},
		{
			name: "failure store statuses",
			in: `{"items":[` + ok + `,{"create":{"_index":"i","status":201,"failure_store":"used"}},` +
				`{"create":{"_index":"i","status":400,"failure_store":"not_enabled","error":{"type":"x"}}}]}`,
			want: `{"items":[{"create":{"_index":"i","status":201,"failure_store":"used"}},` +
				`{"create":{"_index":"i","status":400,"failure_store":"not_enabled","error":{"type":"x"}}}]}`,
			kept: []int{1, 2}, failureStore: []int{1}, created: 1,
		},
		{
			name: "odd statuses left out",
			in:   `{"items":[{"create":{"_index":"i","status":200}},{"index":{"_index":"i","status":201}},` + ok + `]}`,
			want: `{"items":[]}`, odd: []int{0, 1}, created: 1,
		},
		{
			name: "escaped name kept",
			in:   `{"items":[{"create":{"_index":"a\\b","status":201}}]}`,
			want: `{"items":[{"create":{"_index":"a\\b","status":201}}]}`, kept: []int{0},
		},
		{
			name: "other members and white space",
			in:   `{ "took" : 3, "errors" : true, "items" : [ ` + ok + ` , {"create": {"status": 429, "error": {"type": "x"}}} ] }`,
			want: `{"items":[{"create": {"status": 429, "error": {"type": "x"}}}]}`, kept: []int{1}, created: 1,
		},
		// A bulk_response_filter_path wider than the accounting's keeps more members.
		{name: "errors member", in: `{"errors":false,"items":[` + ok + `]}`, want: `{"items":[]}`, created: 1},
		{name: "object member", in: `{"ingest":{"took":1},"items":[` + ok + `]}`, want: `{"items":[]}`, created: 1},
		{name: "item not an object", in: `{"items":[1]}`, want: `{"items":[]}`, odd: []int{0}},
		{name: "truncated", in: `{"items":[` + ok + `,{"create":{"_index":"i"`, malformed: true},
		{name: "truncated string", in: `{"items":[{"create":{"_index":"i\"`, malformed: true},
		{name: "no closing brace", in: `{"items":[` + ok + `]`, malformed: true},
		{name: "garbage between items", in: `{"items":[` + ok + ` x ` + ok + `]}`, malformed: true},
		{name: "garbage after", in: `{"items":[]}x`, malformed: true},
		{name: "member without value", in: `{"errors":,"items":[` + ok + `]}`, malformed: true},
		{name: "not JSON", in: `<html>gateway says hello</html>`, malformed: true},
		{name: "too deep", in: `{"items":[` + strings.Repeat("[", 100) + `]}`, malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r compactResponse
			got, err := compactBulkResponse(nil, &r, []byte(tt.in))
			if tt.malformed {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.kept, nilIfEmpty(r.kept))
			var oddPos []int
			for _, o := range r.odd {
				oddPos = append(oddPos, o.pos)
			}
			assert.Equal(t, tt.odd, oddPos)
			assert.Equal(t, tt.failureStore, nilIfEmpty(r.failureStore))
			assert.Equal(t, tt.created, r.items-len(r.kept)-len(r.odd))
		})
	}
}

// TestCompactedResponseKeepsOutcomes sends documents through docappender with and without
// compaction of the answer and checks that, with the items the client counted and the
// positions it maps back, the outcome is the same: indexed count, failed documents with their
// positions, statuses and reasons, failure store use.
func TestCompactedResponseKeepsOutcomes(t *testing.T) {
	answer := `{"items":[` +
		`{"create":{"_index":"a","status":201}},` +
		`{"create":{"_index":"a","status":409,"error":{"type":"version_conflict_engine_exception","reason":"exists"}}},` +
		`{"create":{"_index":"a","status":201,"failure_store":"used"}},` +
		`{"create":{"_index":"a","status":201}},` +
		`{"create":{"_index":"a","status":429,"error":{"type":"es_rejected_execution_exception","reason":"busy"}}}` +
		`]}`
	stat := func(compact bool) docappender.BulkIndexerResponseStat {
		var client interface {
			Perform(*http.Request) (*http.Response, error)
		} = okClient(answer)
		c := &compactClient{next: okClient(answer)}
		if compact {
			client = c
		}
		bi, err := docappender.NewBulkIndexer(docappender.BulkIndexerConfig{Client: client, IncludeSourceOnError: docappender.True})
		require.NoError(t, err)
		for range 5 {
			require.NoError(t, bi.Add(docappender.BulkIndexerItem{Index: "a", Body: strings.NewReader(`{}`)}))
		}
		s, err := bi.Flush(context.Background())
		require.NoError(t, err)
		if compact {
			require.True(t, c.compacted)
			s.Indexed += int64(c.resp.items - len(c.resp.kept) - len(c.resp.odd))
			for i := range s.FailedDocs {
				s.FailedDocs[i].Position = c.resp.kept[s.FailedDocs[i].Position]
			}
			assert.Equal(t, []int{2}, c.resp.failureStore, "the failure store item, by its position")
		}
		return s
	}
	plain, compacted := stat(false), stat(true)
	assert.Equal(t, plain, compacted)
	assert.Equal(t, int64(3), compacted.Indexed)
	require.Len(t, compacted.FailedDocs, 2)
	assert.Equal(t, 1, compacted.FailedDocs[0].Position)
	assert.Equal(t, 4, compacted.FailedDocs[1].Position)
	assert.Equal(t, "busy", compacted.FailedDocs[1].Error.Reason)
	assert.Equal(t, int64(1), compacted.FailureStoreDocs.Used)
}

// FuzzCompactBulkResponse checks that a compacted response says what the original said: each
// item of a valid response is counted as created, when it is exactly such an item, or listed
// as odd, or kept byte for byte with its position; what docappender reads is valid JSON, and
// every item it reads is one Elasticsearch gives to a create action.
func FuzzCompactBulkResponse(f *testing.F) {
	f.Add([]byte(`{"items":[{"create":{"_index":"a","status":201}},{"create":{"_index":"a","status":429,"error":{"type":"x","reason":"y"}}}]}`))
	f.Add([]byte(`{"items":[{"create":{"_index":"a\"b","status":201}},{"create":{"_index":"a","status":201,"failure_store":"used"}}]}`))
	f.Add([]byte(`{"took":1,"items":[{"create":{"status":200}},{"index":{"status":201}},{"create":{}},{"create":{"status":"201"}}]}`))
	f.Add([]byte(`{"items":[]}`))
	f.Add([]byte(`{"errors":true,"took":3,"items":[{"create":{"_index":"a","status":201}},{"create":{"status":409,"error":{"type":"x"}}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var r compactResponse
		out, err := compactBulkResponse(nil, &r, in)
		kept, odd, created := r.kept, r.odd, r.items-len(r.kept)-len(r.odd)
		// The items are under "items", spelled exactly so, as docappender reads them;
		// encoding/json would also take "Items" for the field.
		var orig struct{ Items []json.RawMessage }
		if err != nil || unmarshalItems(in, &orig.Items) != nil {
			return
		}
		require.True(t, json.Valid(out), "compacted: %s", out)
		var compacted struct{ Items []json.RawMessage }
		require.NoError(t, unmarshalItems(out, &compacted.Items))
		require.Len(t, compacted.Items, len(kept))
		require.Equal(t, len(orig.Items), created+len(kept)+len(odd))
		seen := map[int]bool{}
		for k, p := range kept {
			require.Equal(t, string(orig.Items[p]), string(compacted.Items[k]))
			seen[p] = true
			var c map[string]map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(compacted.Items[k], &c), "kept item %d: %s", p, compacted.Items[k])
			require.Len(t, c, 1)
			var status int
			require.NoError(t, json.Unmarshal(c["create"]["status"], &status), "kept item %d: %s", p, compacted.Items[k])
			require.True(t, status == 201 || status == 409 || (status >= 400 && status <= 599), "kept item %d: %s", p, compacted.Items[k])
		}
		for _, o := range odd {
			require.False(t, seen[o.pos])
			require.NotEmpty(t, o.reason)
			seen[o.pos] = true
		}
		for p, item := range orig.Items {
			if seen[p] {
				continue
			}
			var c map[string]map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(item, &c))
			require.Len(t, c, 1)
			require.Len(t, c["create"], 2, "item %d: %s", p, item)
			require.Equal(t, "201", string(c["create"]["status"]))
			var name string
			require.NoError(t, json.Unmarshal(c["create"]["_index"], &name))
		}
	})
}
