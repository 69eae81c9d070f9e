// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// A push that finds a request slot free is sent at once, in a request of its own.
func TestGroupLonePushAlone(t *testing.T) {
	g := newGroupServer()
	ix, err := New(groupConfig(g))
	require.NoError(t, err)
	for _, p := range []string{"a", "b"} {
		r, err := ix.Send(context.Background(), pushBatch(p, 3))
		require.NoError(t, err)
		assert.Equal(t, Result{Indexed: 3}, r)
	}
	assert.Equal(t, [][]string{
		{`{"p":"a","n":0}`, `{"p":"a","n":1}`, `{"p":"a","n":2}`},
		{`{"p":"b","n":0}`, `{"p":"b","n":1}`, `{"p":"b","n":2}`},
	}, g.recorded())
}

// The bound on a push's wait: a push that finds every slot taken goes in the request sent when
// the first of them frees, while the others are still in flight.
func TestGroupWaiterGoesAtTheFirstFreeSlot(t *testing.T) {
	g := newGroupServer(0, 1)
	cfg := groupConfig(g)
	cfg.Concurrency = ConcurrencyConfig{Max: 2}
	ix, err := New(cfg)
	require.NoError(t, err)
	first := sendAsync(context.Background(), ix, pushBatch("first", 1))
	g.waitArrived(t, 0)
	second := sendAsync(context.Background(), ix, pushBatch("second", 1))
	g.waitArrived(t, 1)
	waiter := sendWaiting(context.Background(), t, ix, pushBatch("waiter", 2), 1)

	g.release(0)
	o := <-waiter
	require.NoError(t, o.err)
	assert.Equal(t, Result{Indexed: 2}, o.res, "sent and answered while request 1 is still held")
	assert.Equal(t, []string{"waiter"}, pushesOf(g.recorded()[2]))
	require.NoError(t, (<-first).err)

	g.release(1)
	require.NoError(t, (<-second).err)
}

// The pushes that wait while the only request slot is held go in one next request; each
// push's Result counts its own documents, and each retries and dead-letters only its own.
func TestGroupWaitingPushesShareARequest(t *testing.T) {
	g := newGroupServer(0)
	var mu sync.Mutex
	seen := map[string]int{}
	g.answer = func(doc string) string {
		mu.Lock()
		defer mu.Unlock()
		seen[doc]++
		switch {
		case doc == `{"p":"a","n":0}` && seen[doc] == 1:
			return item429 // retried once, by a
		case doc == `{"p":"b","n":1}`:
			return itemRejected
		}
		return ""
	}
	cfg := groupConfig(g)
	cfg.DeadLetterIndex = "dead"
	tb, tel := newTelemetry(t)
	cfg.Telemetry = tb
	ix, err := New(cfg)
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	outs := map[string]<-chan sendOutcome{}
	for i, p := range []string{"a", "b", "c"} {
		outs[p] = sendWaiting(context.Background(), t, ix, pushBatch(p, 2), i+1)
	}
	g.release(0)
	require.NoError(t, (<-holder).err)

	want := map[string]Result{"a": {Indexed: 2}, "b": {Indexed: 1, Rejected: 1, DeadLettered: 1}, "c": {Indexed: 2}}
	for p, out := range outs {
		o := <-out
		require.NoError(t, o.err, p)
		assert.Equal(t, want[p], o.res, p)
	}
	reqs := g.recorded()
	require.GreaterOrEqual(t, len(reqs), 3)
	assert.Equal(t, []string{"a", "b", "c"}, pushesOf(reqs[1]), "the waiting pushes in one request")
	assert.Len(t, reqs[1], 6)
	// After it: a's retry of its one document, and b's dead letter, and nothing else.
	var rest []string
	for _, r := range reqs[2:] {
		rest = append(rest, r...)
	}
	require.Len(t, rest, 2, "%v", rest)
	joined := strings.Join(rest, "\n")
	assert.Contains(t, joined, `{"p":"a","n":0}`)
	assert.Contains(t, joined, `\"p\":\"b\",\"n\":1`, "b's dead letter is of its rejected document")

	// Each request is counted once, by the push that sent it; each document once, by its push.
	assert.Equal(t, int64(len(reqs)), countertest.Sum(t, tel, "otelcol.elasticsearch.bulk_requests.count"))
	assert.Equal(t, int64(len(reqs)), countertest.Sum(t, tel, "otelcol.elasticsearch.bulk_requests.attempts"))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried"), "a's one document")
	// The holder's, a's and c's documents, b's first; b's second, stored as a dead letter.
	assert.Equal(t, map[string]int64{"indexed  201": 6, "dead_lettered  201": 1}, docCounts(t, tel))
	// The documents per request: the shared request counts the documents of its three pushes.
	docs := 0
	for _, r := range reqs {
		docs += len(r)
	}
	count, sum, most := requestDocuments(t, tel)
	assert.Equal(t, uint64(len(reqs)), count)
	assert.Equal(t, int64(docs), sum)
	assert.Equal(t, int64(6), most)
}

// The pushes of different metadata_keys partitions are never in one request.
func TestGroupKeepsPartitionsApart(t *testing.T) {
	g := newGroupServer(0)
	cfg := groupConfig(g)
	cfg.MetadataKeys = []string{"X-Tenant"}
	ix, err := New(cfg)
	require.NoError(t, err)
	tenant := func(name string) context.Context {
		return client.NewContext(context.Background(), client.Info{Metadata: client.NewMetadata(map[string][]string{"x-tenant": {name}})})
	}
	holder := holdSlot(t, ix, g)
	var outs []<-chan sendOutcome
	for i, p := range []struct{ push, tenant string }{{"x1", "x"}, {"y1", "y"}, {"x2", "x"}, {"y2", "y"}} {
		outs = append(outs, sendWaiting(tenant(p.tenant), t, ix, pushBatch(p.push, 2), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	for _, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 2}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 3, "the holder's, then one per tenant")
	got := []string{strings.Join(pushesOf(reqs[1]), ","), strings.Join(pushesOf(reqs[2]), ",")}
	assert.ElementsMatch(t, []string{"x1,x2", "y1,y2"}, got)
}

// A request of grouped pushes stays within MaxBulkBytes: the pushes that do not fit wait for
// the next one.
func TestGroupWithinMaxBulkBytes(t *testing.T) {
	g := newGroupServer(0)
	cfg := groupConfig(g)
	one := chunkBytes(pushBatch("p0", 4), []int{0, 1, 2, 3})
	cfg.MaxBulkBytes = 2*one + one/2 // two pushes fit, not three
	ix, err := New(cfg)
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	var outs []<-chan sendOutcome
	for i := range 3 {
		outs = append(outs, sendWaiting(context.Background(), t, ix, pushBatch(fmt.Sprint("p", i), 4), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	for _, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 4}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"p0", "p1"}, pushesOf(reqs[1]))
	assert.Equal(t, []string{"p2"}, pushesOf(reqs[2]))
	for i, n := range g.bytes {
		assert.LessOrEqual(t, n, cfg.MaxBulkBytes, "request %d", i)
	}
}

// A request of grouped pushes holds at most MaxBulkDocs documents: the pushes whose documents
// would go over it wait for the next one, however few bytes they are.
func TestGroupWithinMaxBulkDocs(t *testing.T) {
	g := newGroupServer(0)
	cfg := groupConfig(g)
	cfg.MaxBulkDocs = 7 // the leader's 3 documents and one push of 4, not two
	ix, err := New(cfg)
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	var outs []<-chan sendOutcome
	for i := range 3 {
		outs = append(outs, sendWaiting(context.Background(), t, ix, pushBatch(fmt.Sprint("p", i), 3+i%2), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	for i, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 3 + i%2}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"p0", "p1"}, pushesOf(reqs[1])) // 3 + 4
	assert.Equal(t, []string{"p2"}, pushesOf(reqs[2]))
	for i, r := range reqs {
		assert.LessOrEqual(t, len(r), cfg.MaxBulkDocs, "request %d", i)
	}
}

// A push of more than MaxBulkDocs documents is sent in requests of at most MaxBulkDocs.
func TestMaxBulkDocsCutsAPush(t *testing.T) {
	g := newGroupServer()
	cfg := groupConfig(g)
	cfg.MaxBulkDocs = 4
	ix, err := New(cfg)
	require.NoError(t, err)
	r, err := ix.Send(context.Background(), pushBatch("a", 10))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 10}, r)
	var sizes []int
	for _, req := range g.recorded() {
		sizes = append(sizes, len(req))
	}
	assert.Equal(t, []int{4, 4, 2}, sizes)
}

// A waiting push whose context ends before a leader takes its chunk returns, and its
// documents are not sent.
func TestGroupCanceledWaiterWithdraws(t *testing.T) {
	g := newGroupServer(0)
	ix, err := New(groupConfig(g))
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	ctx, cancel := context.WithCancel(context.Background())
	out := sendWaiting(ctx, t, ix, pushBatch("gone", 2), 1)
	cancel()
	o := <-out
	require.ErrorIs(t, o.err, context.Canceled)
	assert.Equal(t, Result{Dropped: 2}, o.res)
	assert.Zero(t, ix.room.n.Load(), "the chunk left the room")
	g.release(0)
	require.NoError(t, (<-holder).err)
	r, err := ix.Send(context.Background(), pushBatch("next", 1))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1}, r)
	reqs := g.recorded()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"next"}, pushesOf(reqs[1]), "the canceled push's documents were not sent")
}

// Once a leader took the chunks of other pushes, their request is sent and answered whatever
// happens to the contexts of the pushes in it.
func TestGroupSharedRequestOutlivesContexts(t *testing.T) {
	g := newGroupServer(0, 1)
	ix, err := New(groupConfig(g))
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	ctxs := make([]context.Context, 2)
	cancels := make([]context.CancelFunc, 2)
	var outs []<-chan sendOutcome
	for i := range ctxs {
		ctxs[i], cancels[i] = context.WithCancel(context.Background())
		outs = append(outs, sendWaiting(ctxs[i], t, ix, pushBatch(fmt.Sprint("p", i), 2), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	g.waitArrived(t, 1)
	for _, c := range cancels {
		c() // the leader's and the follower's
	}
	g.release(1)
	for _, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 2}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"p0", "p1"}, pushesOf(reqs[1]))
}

// At Stop, each push of a grouped request that failed hands its own batch back.
func TestGroupHandBackOnStop(t *testing.T) {
	g := newGroupServer(0, 1)
	g.status = func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return 0
	}
	cfg := groupConfig(g)
	cfg.HandBackOnStop = true
	ix, err := New(cfg)
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	var outs []<-chan sendOutcome
	for i := range 2 {
		outs = append(outs, sendWaiting(context.Background(), t, ix, pushBatch(fmt.Sprint("p", i), 2+i), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	g.waitArrived(t, 1)
	ix.Stop()
	g.release(1)
	for i, out := range outs {
		o := <-out
		require.ErrorIs(t, o.err, ErrHandedBack)
		assert.Equal(t, Result{HandedBack: 2 + i}, o.res)
	}
	assert.Len(t, g.recorded(), 2, "no retry after Stop")
}

// A grouped request answered 413 lowers the request size, and each push sends its chunk again
// on its own; no document is rejected for the size of the others'.
func TestGroupTooLargeResendsEachChunk(t *testing.T) {
	g := newGroupServer(0)
	g.status = func(n int) int {
		if n == 1 {
			return http.StatusRequestEntityTooLarge
		}
		return 0
	}
	ix, err := New(groupConfig(g))
	require.NoError(t, err)
	holder := holdSlot(t, ix, g)
	var outs []<-chan sendOutcome
	for i := range 2 {
		outs = append(outs, sendWaiting(context.Background(), t, ix, pushBatch(fmt.Sprint("p", i), 1), i+1))
	}
	g.release(0)
	require.NoError(t, (<-holder).err)
	for _, out := range outs {
		o := <-out
		require.NoError(t, o.err)
		assert.Equal(t, Result{Indexed: 1}, o.res)
	}
	reqs := g.recorded()
	require.Len(t, reqs, 4)
	assert.Equal(t, []string{"p0", "p1"}, pushesOf(reqs[1]))
	assert.ElementsMatch(t, []string{"p0", "p1"}, append(pushesOf(reqs[2]), pushesOf(reqs[3])...))
}
