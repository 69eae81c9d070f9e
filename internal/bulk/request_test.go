// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session writes the action line of every document of a request (the documents are added
// with AddBuffer): it must say what docappender's Add and WriteItemMeta write.
func TestAppendActionMatchesDocappender(t *testing.T) {
	for _, tc := range []struct {
		name              string
		index, id, pipe   string
		templates         []DynamicTemplate
		requireDataStream bool
	}{
		{name: "index", index: "logs-generic.otel-default"},
		{name: "nothing"},
		{
			name: "all", index: "metrics-a.otel-b", id: "abc", pipe: "p1",
			templates: []DynamicTemplate{{Path: "metrics.x", Template: "counter_long"}}, requireDataStream: true,
		},
		{name: "id and pipeline", id: "x", pipe: "p"},
		{name: "require data stream only", requireDataStream: true},
		{name: "escaping", index: "a\"b\\c\u00e9\x01", id: "\n\t\u2028", pipe: "<p>&"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var templates map[string]string
			if len(tc.templates) > 0 {
				templates = map[string]string{}
				for _, dt := range tc.templates {
					templates[dt.Path] = dt.Template
				}
			}
			item := docappender.BulkIndexerItem{
				Index: tc.index, DocumentID: tc.id, Pipeline: tc.pipe, DynamicTemplates: templates,
				RequireDataStream: tc.requireDataStream,
			}
			want := docappenderActionLine(t, item)
			var meta bytes.Buffer
			_, err := docappender.WriteItemMeta(&meta, item)
			require.NoError(t, err)
			assert.Equal(t, want+"\n", meta.String(), "WriteItemMeta writes what Add writes")
			got := appendAction(nil, tc.index, tc.id, tc.pipe, tc.templates, tc.requireDataStream)
			assert.JSONEq(t, want, string(got))
			if !strings.ContainsAny(tc.index+tc.id+tc.pipe, "\"\\\u00e9\x01\n\t\u2028<&") {
				assert.Equal(t, want, string(got), "byte for byte")
			}
		})
	}
}

// One request holds each document after its own action line, whatever the documents share,
// and tells the server how many documents it holds; a retry resends only the documents that
// failed, each after its own action line.
func TestRequestBody(t *testing.T) {
	var b Batch
	add := func(doc string, it Item, templates ...DynamicTemplate) {
		start := len(b.Buf)
		b.Buf = append(b.Buf, doc...)
		for _, dt := range templates {
			b.AddTemplate(dt.Path, dt.Template)
		}
		b.Add(start, it)
	}
	add(`{"n":0}`, Item{Index: "logs-a", RequireDataStream: true})
	add(`{"n":1}`, Item{Index: "logs-a", RequireDataStream: true})
	add(`{"n":2}`, Item{Index: "logs-a", RequireDataStream: true})
	add(`{"n":3}`, Item{Index: "logs-b", RequireDataStream: true})
	add(`{"n":4}`, Item{Index: "logs-b", DocumentID: "id4", DerivedID: true})
	add(`{"n":5}`, Item{Index: "logs-b"})
	add(`{"n":6}`, Item{Index: "logs-b", Pipeline: "p"})
	add(`{"n":7}`, Item{Index: "metrics-c"}, DynamicTemplate{Path: "m.1", Template: "gauge_double"})
	add(`{"n":8}`, Item{Index: "metrics-c"}, DynamicTemplate{Path: "m.2", Template: "gauge_long"})
	wantAction := []string{
		`{"create":{"_index":"logs-a","require_data_stream":true}}`,
		`{"create":{"_index":"logs-a","require_data_stream":true}}`,
		`{"create":{"_index":"logs-a","require_data_stream":true}}`,
		`{"create":{"_index":"logs-b","require_data_stream":true}}`,
		`{"create":{"_id":"id4","_index":"logs-b"}}`,
		`{"create":{"_index":"logs-b"}}`,
		`{"create":{"_index":"logs-b","pipeline":"p"}}`,
		`{"create":{"_index":"metrics-c","dynamic_templates":{"m.1":"gauge_double"}}}`,
		`{"create":{"_index":"metrics-c","dynamic_templates":{"m.2":"gauge_long"}}}`,
	}
	pairs := func(docs ...int) []string {
		var lines []string
		for _, d := range docs {
			lines = append(lines, wantAction[d], `{"n":`+strconv.Itoa(d)+`}`)
		}
		return lines
	}
	for _, level := range []int{0, 1} {
		t.Run("gzip="+strconv.Itoa(level), func(t *testing.T) {
			c := &recordingClient{t: t, answer: func(request, doc int) string {
				if request == 0 && (doc == 2 || doc == 7) {
					return `{"create":{"_index":".ds-a-000001","status":429,"error":{"type":"es_rejected_execution_exception","reason":"busy"}}}`
				}
				return `{"create":{"_index":".ds-a-000001","status":201}}`
			}}
			ix, err := New(Config{Client: c, CompressionLevel: level, MaxBulkBytes: 1 << 20, Retry: RetryConfig{Enabled: true, MaxRetries: 2, RetryOnStatus: []int{http.StatusTooManyRequests}}})
			require.NoError(t, err)
			res, err := ix.Send(context.Background(), &b)
			require.NoError(t, err)
			assert.Equal(t, 9, res.Indexed)
			require.Len(t, c.requests, 2)
			assert.Equal(t, "9", c.requests[0].events)
			assert.Equal(t, pairs(0, 1, 2, 3, 4, 5, 6, 7, 8), c.requests[0].lines)
			assert.Equal(t, "2", c.requests[1].events)
			assert.Equal(t, pairs(2, 7), c.requests[1].lines)
		})
	}
}

// A body larger than a piece, with a document larger than a piece, arrives whole and in order.
func TestRequestBodyInPieces(t *testing.T) {
	var b Batch
	var want []string
	for i := range 400 {
		start := len(b.Buf)
		size := 1000
		if i == 150 {
			size = 3 * bodyPiece
		}
		doc := `{"n":` + strconv.Itoa(i) + `,"pad":"` + strings.Repeat("x", size) + `"}`
		b.Buf = append(b.Buf, doc...)
		index := "logs-" + strconv.Itoa(i/7)
		b.Add(start, Item{Index: index})
		want = append(want, `{"create":{"_index":"`+index+`"}}`, doc)
	}
	c := &recordingClient{t: t}
	ix, err := New(Config{Client: c, CompressionLevel: 1, MaxBulkBytes: 64 << 20})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), &b)
	require.NoError(t, err)
	assert.Equal(t, 400, res.Indexed)
	require.Len(t, c.requests, 1)
	assert.Equal(t, "400", c.requests[0].events)
	require.Len(t, c.requests[0].lines, len(want))
	for i := range want {
		require.Equal(t, want[i], c.requests[0].lines[i], "line %d", i)
	}
}

// A request built of two chunks, from two batches, is one bulk request; the items of its
// response are given back to each chunk by position, the second chunk's handed over to the
// session it belongs to (as a leader hands them to a follower), with each document's outcome.
func TestRequestOfTwoChunks(t *testing.T) {
	first, second := batchOf(`{"a":0}`, `{"a":1}`, `{"a":2}`), batchOf(`{"b":0}`, `{"b":1}`)
	c := &recordingClient{t: t, answer: func(_, doc int) string {
		switch doc {
		case 1:
			return itemRejected
		case 3:
			return `{"create":{"_index":"a","status":429,"error":{"type":"es_rejected_execution_exception","reason":"busy"}}}`
		case 4:
			return `{"create":{"_index":"a","status":201,"failure_store":"used"}}`
		}
		return itemCreated
	}}
	ix, err := New(Config{Client: c, CompressionLevel: 1, MaxBulkBytes: 1 << 20, Retry: RetryConfig{Enabled: true, MaxRetries: 1, RetryOnStatus: []int{http.StatusTooManyRequests}}})
	require.NoError(t, err)
	s := ix.getSession()
	defer ix.putSession(s)
	require.NoError(t, ix.takeBody(s))
	off1, err := s.req.add(s.bi, first, []int{0, 1, 2})
	require.NoError(t, err)
	off2, err := s.req.add(s.bi, second, []int{0, 1})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 3}, []int{off1, off2})
	require.True(t, ix.requests.tryAcquire(), "an idle Indexer has a request slot free")
	res := ix.request(context.Background(), s)
	ix.putBody(s)
	require.NoError(t, res.err)
	assert.Equal(t, http.StatusOK, res.status)
	stat := res.stat
	require.Len(t, c.requests, 1)
	assert.Equal(t, "5", c.requests[0].events)
	assert.Equal(t, []string{
		`{"create":{"_index":"logs-a"}}`, `{"a":0}`, `{"create":{"_index":"logs-a"}}`, `{"a":1}`,
		`{"create":{"_index":"logs-a"}}`, `{"a":2}`, `{"create":{"_index":"logs-a"}}`, `{"b":0}`,
		`{"create":{"_index":"logs-a"}}`, `{"b":1}`,
	}, c.requests[0].lines)
	require.NoError(t, s.responseMismatch(stat))

	retry := ix.classify(context.Background(), s, first, stat, []int{0, 1, 2})
	assert.Empty(t, retry)
	assert.Equal(t, Result{Indexed: 2, Rejected: 1}, s.result)

	f := ix.getSession()
	defer ix.putSession(f)
	f.group.batch, f.group.pending, f.group.offset = second, []int{0, 1}, off2
	handOver(s, f, res)
	<-f.group.done
	retry = ix.classify(context.Background(), f, second, f.group.res.stat, []int{0, 1})
	assert.Equal(t, []int{0}, retry, "the second batch's first document")
	assert.Equal(t, Result{Indexed: 1, FailureStore: 1}, f.result)
	assert.Equal(t, Result{Indexed: 2, Rejected: 1}, s.result, "the first session counts its own documents only")
}

// A request body (bulk indexer, request buffer, compressor) belongs to a request in flight:
// the pushes that wait for a request slot hold none, the pushes whose requests are in flight
// hold one each, and the bodies given back are kept for the next requests.
func TestRequestBodiesBelongToRequestsInFlight(t *testing.T) {
	g := newGroupServer(0, 1)
	cfg := groupConfig(g)
	cfg.Concurrency.Max = 2
	cfg.CompressionLevel = 1
	ix, err := New(cfg)
	require.NoError(t, err)
	holders := []<-chan sendOutcome{sendAsync(context.Background(), ix, pushBatch("h0", 1))}
	g.waitArrived(t, 0)
	holders = append(holders, sendAsync(context.Background(), ix, pushBatch("h1", 1)))
	g.waitArrived(t, 1)
	var outs []<-chan sendOutcome
	for i, p := range []string{"a", "b", "c"} {
		outs = append(outs, sendWaiting(context.Background(), t, ix, pushBatch(p, 2), i+1))
	}

	ix.sends.mu.Lock()
	bodies := map[*requestBody]bool{}
	waiting := 0
	for _, s := range ix.sends.running {
		if s.body == nil {
			waiting++
			continue
		}
		bodies[s.body] = true
		assert.Same(t, s.body.bi, s.bi)
	}
	ix.sends.mu.Unlock()
	assert.Len(t, bodies, 2, "one body for each request in flight")
	assert.Equal(t, 3, waiting, "the pushes waiting for a slot hold none")

	// One slot frees: the waiting pushes share the one request it takes, while the other
	// holder's request is still in flight. (Freeing both at once could let them take two.)
	g.release(0)
	for _, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 2}, o.res)
	}
	g.release(1)
	for _, out := range holders {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 1}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 3, "the holders', then the waiting pushes' in one request")
	assert.ElementsMatch(t, []string{"a", "b", "c"}, pushesOf(reqs[2]))
	assert.Equal(t, 2, ix.bodies.Len(), "the bodies are kept for the next requests")
}
