// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// The fault tests push a known load through the factory-built logs and traces exporters, with
// the sending queue on and deterministic_ids, to a fake Elasticsearch that injects failures,
// and then check by count and by content that every record is indexed exactly once or counted
// as rejected: each record carries a unique integer attribute seq.

var faultOutageFlag = flag.Duration("outage", 0,
	"length of the Elasticsearch outage of TestFaultOutage; default 5s, or $FAULT_OUTAGE (e.g. 60s)")

// faultOutage returns the length of the outage of TestFaultOutage.
func faultOutage(t *testing.T) time.Duration {
	t.Helper()
	if *faultOutageFlag > 0 {
		return *faultOutageFlag
	}
	if v := os.Getenv("FAULT_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "FAULT_OUTAGE")
		return d
	}
	return 5 * time.Second
}

// The load: log records have seq 0 to faultLogs-1; then each span has the next seq and its
// events the ones after it.
const (
	faultLogs          = 2000
	faultSpans         = 500
	faultEventsPerSpan = 2
	faultLogsPerPush   = 50
	faultSpansPerPush  = 25
	faultRecords       = faultLogs + faultSpans*(1+faultEventsPerSpan)

	// faultWait bounds the wait for every record to have a final outcome, on top of any outage.
	faultWait = 2 * time.Minute

	metricDocs           = "otelcol.elasticsearch.docs.processed"
	metricFates          = "otelcol.elasticsearch.docs.fate"
	metricRetried        = "otelcol.elasticsearch.docs.retried"
	metricRetriedRequest = "otelcol.elasticsearch.docs.retried_http_request"
)

// faultRun is one scenario: a fake Elasticsearch, the logs and traces exporters of one
// component, their telemetry and logs.
type faultRun struct {
	srv    *fakees.Server
	tel    *componenttest.Telemetry
	logs   *observer.ObservedLogs
	logExp exporter.Logs
	trcExp exporter.Traces
	// mutateLog, when set, changes log record seq before it is pushed.
	mutateLog func(seq int, r plog.LogRecord)
	start     time.Time
	down      bool
}

// newFaultRun builds and starts the exporters for srv, whose faults and hooks must be set
// already: the exporter's start sends requests.
func newFaultRun(t *testing.T, srv *fakees.Server, cfg *elasticsearchexporter.Config) *faultRun {
	t.Helper()
	require.NoError(t, cfg.Validate())
	set, tel := elasticsearchexporter.WithTelemetry(t)
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(core)
	r := &faultRun{srv: srv, tel: tel, logs: logs, start: time.Now()}
	f := elasticsearchexporter.NewFactory()
	var err error
	r.logExp, err = f.CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	r.trcExp, err = f.CreateTraces(context.Background(), set, cfg)
	require.NoError(t, err)
	// Shut down even when the test fails midway, before the fake server closes.
	t.Cleanup(func() { r.shutdown(t) })
	require.NoError(t, r.logExp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, r.trcExp.Start(context.Background(), componenttest.NewNopHost()))
	// Until the version check has seen 9.x, requests lack include_source_on_error and error
	// reasons are not read: start the load in the steady state.
	require.Eventually(t, func() bool { return logs.FilterMessage("Connected to Elasticsearch").Len() == 1 },
		faultWait, 5*time.Millisecond)
	return r
}

// shutdown shuts both exporters down once. Call it only once every record has a final
// outcome: shutdown stops retries and drains the queue with one attempt per batch.
func (r *faultRun) shutdown(t *testing.T) {
	t.Helper()
	if r.down {
		return
	}
	r.down = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	assert.NoError(t, r.logExp.Shutdown(ctx))
	assert.NoError(t, r.trcExp.Shutdown(ctx))
}

// push sends the whole load, log pushes and trace pushes interleaved, and calls after(i, n)
// after push i of n.
func (r *faultRun) push(t *testing.T, after func(i, n int)) {
	t.Helper()
	var pushes []func() error
	nextSpan := 0
	for first := 0; first < faultLogs; first += faultLogsPerPush {
		ld := elasticsearchexporter.FaultLogBatch(first, min(faultLogsPerPush, faultLogs-first), r.mutateLog)
		pushes = append(pushes, func() error { return r.logExp.ConsumeLogs(context.Background(), ld) })
		if len(pushes)%3 == 2 && nextSpan < faultSpans {
			td := faultTraceBatch(nextSpan, min(faultSpansPerPush, faultSpans-nextSpan))
			pushes = append(pushes, func() error { return r.trcExp.ConsumeTraces(context.Background(), td) })
			nextSpan += faultSpansPerPush
		}
	}
	for ; nextSpan < faultSpans; nextSpan += faultSpansPerPush {
		td := faultTraceBatch(nextSpan, min(faultSpansPerPush, faultSpans-nextSpan))
		pushes = append(pushes, func() error { return r.trcExp.ConsumeTraces(context.Background(), td) })
	}
	for i, p := range pushes {
		require.NoError(t, p(), "push %d", i)
		if after != nil {
			after(i, len(pushes))
		}
	}
}

// spanSeq returns the seq of span i; its events have the next ones.
func spanSeq(i int) int { return faultLogs + i*(1+faultEventsPerSpan) }

// faultTraceBatch returns spans first to first+n-1, each with its events.
func faultTraceBatch(first, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "fault-test")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("fault")
	for i := first; i < first+n; i++ {
		seq := spanSeq(i)
		start := pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq)*1_000_000)
		span := ss.Spans().AppendEmpty()
		span.SetName(fmt.Sprintf("span %d", i))
		span.SetTraceID(pcommon.TraceID{0xfa, byte(i >> 8), byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
		span.SetSpanID(pcommon.SpanID{0x5b, byte(i >> 8), byte(i), 1, 2, 3, 4, 5})
		span.SetStartTimestamp(start)
		span.SetEndTimestamp(start + 500_000)
		span.Attributes().PutInt("seq", int64(seq))
		span.Attributes().PutStr("kind", "span")
		for e := 1; e <= faultEventsPerSpan; e++ {
			ev := span.Events().AppendEmpty()
			ev.SetName(fmt.Sprintf("event %d", e))
			ev.SetTimestamp(start + pcommon.Timestamp(e*1000))
			ev.Attributes().PutInt("seq", int64(seq+e))
			ev.Attributes().PutStr("kind", "event")
		}
	}
	return td
}

// docSeq returns the seq attribute of an encoded log, span or span event document.
func docSeq(t *testing.T, doc []byte) int {
	t.Helper()
	var d struct {
		Attributes struct {
			Seq *int `json:"seq"`
		} `json:"attributes"`
	}
	require.NoError(t, json.Unmarshal(doc, &d), "%s", doc)
	require.NotNil(t, d.Attributes.Seq, "document without seq: %s", doc)
	return *d.Attributes.Seq
}

// faultCounts are the exporter's document counts: the fates, the documents sent again alone
// and with their whole request, and the documents with contrib's outcome.
type faultCounts struct {
	indexed, duplicate, rejected, dropped, deadLettered, retryable, retried, retriedRequest, processed int64
}

func (r *faultRun) counts(t *testing.T) faultCounts {
	t.Helper()
	docs := func(o string) int64 { return countertest.Sum(t, r.tel, metricFates, elasticsearchexporter.Fate(o)) }
	return faultCounts{
		indexed:        docs("indexed"),
		duplicate:      docs("duplicate"),
		rejected:       docs("rejected"),
		dropped:        docs("dropped"),
		deadLettered:   docs("dead_lettered"),
		retryable:      docs("retryable"),
		retried:        countertest.Sum(t, r.tel, metricRetried),
		retriedRequest: countertest.Sum(t, r.tel, metricRetriedRequest),
		processed:      countertest.Sum(t, r.tel, metricDocs),
	}
}

// final is the number of documents with a final fate.
func (c faultCounts) final() int64 {
	return c.indexed + c.duplicate + c.rejected + c.dropped + c.deadLettered
}

// waitFinal waits until every record of the load has a final outcome, and the dead letters
// expected are written, then shuts the exporters down.
func (r *faultRun) waitFinal(t *testing.T, extra time.Duration, deadLetters int64) {
	t.Helper()
	var c faultCounts
	ok := assert.Eventually(t, func() bool {
		c = r.counts(t)
		return c.final() >= faultRecords && c.deadLettered >= deadLetters
	}, faultWait+extra, 20*time.Millisecond)
	r.shutdown(t)
	if !ok {
		t.Fatalf("records without a final outcome: %d of %d have one (%+v), server %+v", c.final(), faultRecords, c, r.srv.Stats())
	}
}

// faultResult is what a scenario's checks found.
type faultResult struct {
	counts  faultCounts
	stats   fakees.Stats
	indexed int           // records stored in their own index
	letters []fakees.Item // documents stored in the dead-letter index
}

// verify checks that every record of the load is stored exactly once, with a derived _id,
// except the records of rejected (seq → error.type), which are not stored and are counted as
// rejected; that duplicates only ever came back as 409 answers and are counted as such; and
// that nothing was dropped. Documents in deadLetterIndex are returned, not checked.
func (r *faultRun) verify(t *testing.T, rejected map[int]string, deadLetterIndex string) faultResult {
	t.Helper()
	res := faultResult{counts: r.counts(t), stats: r.srv.Stats()}
	stored := map[int]int{}
	idOf := map[int]string{} // the _id of each stored record, by seq
	for _, it := range r.srv.Accepted() {
		if deadLetterIndex != "" && it.Index() == deadLetterIndex {
			res.letters = append(res.letters, it)
			continue
		}
		op, _ := it.Op()
		assert.Equal(t, "create", op)
		seq := docSeq(t, it.Document)
		stored[seq]++
		res.indexed++
		id := it.ID()
		assert.Regexp(t, `^[A-Za-z0-9_-]{22}$`, id, "seq %d has no content-derived _id", seq)
		if prev, seen := idOf[seq]; seen {
			assert.Equal(t, prev, id, "seq %d stored under two _ids", seq)
		}
		idOf[seq] = id
	}

	// By content: each seq once, and only the rejected ones missing.
	var twice, missing []int
	for seq := range faultRecords {
		switch n := stored[seq]; {
		case n > 1:
			twice = append(twice, seq)
		case n == 0:
			missing = append(missing, seq)
		}
	}
	assert.Empty(t, twice, "records stored more than once")
	var wantMissing []int
	for seq := range rejected {
		wantMissing = append(wantMissing, seq)
	}
	slices.Sort(wantMissing)
	assert.Equal(t, wantMissing, missing, "records not stored")
	assert.Equal(t, faultRecords-len(rejected), res.indexed)
	assert.Len(t, stored, res.indexed, "distinct seq values stored")

	// By _id: one stored document per id, and every 409 answered for a stored id.
	ids := map[string]bool{}
	for _, id := range idOf {
		ids[id] = true
	}
	assert.Len(t, ids, res.indexed, "distinct _ids")
	for id, n := range r.srv.AcceptedIDs() {
		assert.Equal(t, 1, n, "_id %s stored %d times", id, n)
	}
	conflicts := 0
	for id, n := range r.srv.Conflicts() {
		assert.True(t, ids[id], "409 for _id %s, which is not stored", id)
		conflicts += n
	}
	assert.Equal(t, res.stats.Conflicts, conflicts)

	// By the exporter's telemetry: every record has one final fate, and one outcome of
	// contrib's. A stored document whose answer was lost is sent again and comes back 409: a
	// duplicate, not a second copy. A rejected document whose dead letter is written has that
	// for its fate.
	c := res.counts
	assert.Equal(t, int64(faultRecords), c.final(), "final fates: %+v", c)
	assert.Equal(t, int64(faultRecords), c.processed, "documents with contrib's outcome: %+v", c)
	assert.Zero(t, c.dropped, "dropped documents")
	if deadLetterIndex != "" {
		assert.Zero(t, c.rejected, "rejected documents not dead-lettered")
		assert.Equal(t, int64(len(rejected)), c.deadLettered, "rejected documents dead-lettered")
	} else {
		assert.Equal(t, int64(len(rejected)), c.rejected, "rejected documents")
	}
	assert.Equal(t, int64(res.indexed), c.indexed+c.duplicate, "indexed and duplicate documents")
	assert.Equal(t, int64(res.stats.LostAnswers), c.duplicate, "duplicates are the documents whose answer was lost")
	assert.LessOrEqual(t, c.duplicate, int64(res.stats.Conflicts))
	byType := map[string]int64{}
	for _, typ := range rejected {
		byType[typ]++
	}
	for typ, n := range byType {
		assert.Equal(t, n, countertest.Sum(t, r.tel, metricDocs, elasticsearchexporter.Outcome("failed_client"), attribute.String("error.type", typ)),
			"rejected documents of error.type %s", typ)
	}
	assert.Empty(t, r.logs.FilterMessage("Dropping documents: retries exhausted").All())
	assert.Empty(t, r.logs.FilterMessage("Documents could not be written to the dead-letter index").All())

	t.Logf("%d records in %s: indexed=%d duplicate=%d retryable=%d retried=%d retried_http_request=%d rejected=%d dead_lettered=%d; "+
		"server: requests=%d stored=%d conflicts=%d item_faults=%d too_large=%d dropped=%d (processed %d, answers lost %d) outage_answers=%d",
		faultRecords, time.Since(r.start).Round(time.Millisecond), c.indexed, c.duplicate, c.retryable, c.retried, c.retriedRequest,
		c.rejected, c.deadLettered, res.stats.Requests, res.stats.Accepted, res.stats.Conflicts, res.stats.ItemFaults,
		res.stats.TooLarge, res.stats.Dropped, res.stats.DroppedProcessed, res.stats.LostAnswers, res.stats.OutageAnswers)
	return res
}

// (a) Elasticsearch answers 15% of the items 429: only those are sent again, until stored.
func TestFaultItemRejections(t *testing.T) {
	t.Parallel()
	srv := fakees.New(t)
	srv.Faults = fakees.Faults{Seed: 1, ItemStatusRate: 0.15}
	cfg := elasticsearchexporter.FaultConfig(srv.URL)
	cfg.Retry.MaxRetries = 30 // the default budget is plenty for independent 15% failures
	r := newFaultRun(t, srv, cfg)
	r.push(t, nil)
	r.waitFinal(t, 0, 0)

	res := r.verify(t, nil, "")
	assert.Positive(t, res.stats.ItemFaults)
	// Every item answered 429 was retried once per answer, alone with the other failed items.
	assert.Equal(t, int64(res.stats.ItemFaults), res.counts.retried)
	assert.Zero(t, res.counts.retriedRequest, "no whole request was sent again")
	assert.Zero(t, res.counts.retryable, "an item failure sent again is not a fate")
	assert.Zero(t, res.stats.Conflicts, "nothing stored was sent again")
}

// (b) Bulk requests larger than the server's limit are answered 413 and sent again in halves;
// one document larger than the limit is rejected for good.
func TestFaultRequestTooLarge(t *testing.T) {
	t.Parallel()
	const (
		limit  = 8 << 10
		bigSeq = 1234
	)
	srv := fakees.New(t)
	srv.Faults = fakees.Faults{Seed: 2, MaxRequestBytes: limit}
	r := newFaultRun(t, srv, elasticsearchexporter.FaultConfig(srv.URL))
	r.mutateLog = func(seq int, rec plog.LogRecord) {
		if seq == bigSeq {
			rec.Body().SetStr("big " + strings.Repeat("x", 3*limit/2))
		}
	}
	r.push(t, nil)
	r.waitFinal(t, 0, 0)

	res := r.verify(t, map[int]string{bigSeq: "request_entity_too_large"}, "")
	assert.Positive(t, res.stats.TooLarge, "some bulk requests were over the limit")
	assert.Equal(t, int64(1), countertest.Sum(t, r.tel, metricFates, elasticsearchexporter.Fate("rejected"),
		attribute.String("error.type", "request_entity_too_large"), attribute.Int("http.response.status_code", http.StatusRequestEntityTooLarge)))
	assert.Zero(t, res.stats.Conflicts, "a split resends nothing that was stored")
	for i, body := range srv.Bodies() {
		if len(body) > limit {
			continue // answered 413
		}
		assert.NotContains(t, string(body), `"big xxx`, "request %d: the big document was sent with others", i)
	}
	warns := r.logs.FilterMessage("Documents not indexed").All()
	require.NotEmpty(t, warns)
	found := false
	for _, w := range warns {
		if strings.Contains(fmt.Sprint(w.ContextMap()["failures"]), "a single document of") {
			found = true
		}
	}
	assert.True(t, found, "the big document's size is logged")
}

// (c) Elasticsearch is down for a while in the middle of the load, answering 503 or refusing
// connections: the pushes wait and retry, and nothing is lost or stored twice. Set -outage or
// FAULT_OUTAGE (e.g. 60s) for a longer outage.
func TestFaultOutage(t *testing.T) {
	t.Parallel()
	outage := faultOutage(t)
	for _, refuse := range []bool{false, true} {
		name := "503"
		if refuse {
			name = "connections closed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakees.New(t)
			srv.Faults = fakees.Faults{Seed: 3, OutageRefuse: refuse}
			r := newFaultRun(t, srv, elasticsearchexporter.FaultConfig(srv.URL))
			var began, ended time.Time
			r.push(t, func(i, n int) {
				if i != n/2 {
					return
				}
				// Half of the load is pushed: once a third of it is stored, the server
				// goes down while the rest is in the queue or yet to come.
				require.Eventually(t, func() bool { return srv.Stats().Accepted >= faultRecords/3 },
					faultWait, 5*time.Millisecond)
				srv.StartOutage(outage)
				began = time.Now()
			})
			r.waitFinal(t, outage, 0)
			ended = time.Now()

			res := r.verify(t, nil, "")
			assert.Positive(t, res.stats.OutageAnswers, "requests met the outage")
			assert.Positive(t, res.counts.retriedRequest, "the documents of failed requests were sent again after the outage")
			assert.Zero(t, res.stats.Conflicts, "nothing stored was sent again")
			assert.GreaterOrEqual(t, ended.Sub(began), outage, "the load outlived the outage")
			t.Logf("outage of %s began %s after the start", outage, began.Sub(r.start).Round(time.Millisecond))
		})
	}
}

// (d) 10% of the connections are closed without an answer, half of them after the request was
// processed, and every answer is slow. With deterministic ids, a document stored by a request
// whose answer was lost comes back 409 when it is sent again: a duplicate, not a second copy.
func TestFaultDroppedConnections(t *testing.T) {
	t.Parallel()
	srv := fakees.New(t)
	srv.Faults = fakees.Faults{
		Seed:               4,
		DropConnectionRate: 0.10,
		DropProcessedRate:  0.5,
		SlowResponse:       10 * time.Millisecond,
	}
	cfg := elasticsearchexporter.FaultConfig(srv.URL)
	// Smaller requests, so that there are more of them to drop.
	b := cfg.QueueBatchConfig.Get().Batch.Get()
	b.MinSize, b.MaxSize = 8<<10, 16<<10
	r := newFaultRun(t, srv, cfg)
	r.push(t, nil)
	r.waitFinal(t, 0, 0)

	res := r.verify(t, nil, "")
	assert.Positive(t, res.stats.Dropped-res.stats.DroppedProcessed, "requests dropped before processing")
	assert.Positive(t, res.stats.LostAnswers, "stored documents whose answer was lost")
	assert.Positive(t, res.counts.duplicate, "documents sent again after a lost answer came back 409")
	assert.Positive(t, countertest.Sum(t, r.tel, "otelcol.elasticsearch.bulk_requests.attempts", elasticsearchexporter.Outcome("internal_server_error")))
}

// (e) With the dead-letter index on, the items Elasticsearch rejects for good (400) are each
// written there exactly once, while 10% of all items, dead letters included, are answered 429
// and sent again.
func TestFaultDeadLetters(t *testing.T) {
	t.Parallel()
	const dlq = "fault-dead-letters"
	rejectSeq := func(seq int) bool { return seq%50 == 7 }
	srv := fakees.New(t)
	srv.Faults = fakees.Faults{Seed: 5, ItemStatusRate: 0.10}
	srv.OnItem = func(it fakees.Item) fakees.Response {
		if it.Index() == dlq {
			return fakees.Response{}
		}
		var d struct {
			Attributes struct {
				Seq int `json:"seq"`
			} `json:"attributes"`
		}
		if json.Unmarshal(it.Document, &d) == nil && rejectSeq(d.Attributes.Seq) {
			return fakees.Response{Status: http.StatusBadRequest, ErrorType: "document_parsing_exception", Reason: "failed to parse field [seq]"}
		}
		return fakees.Response{}
	}
	cfg := elasticsearchexporter.FaultConfig(srv.URL)
	cfg.DeadLetter.Enabled = true
	cfg.DeadLetter.Index = dlq
	rejected := map[int]string{}
	for seq := range faultRecords {
		if rejectSeq(seq) {
			rejected[seq] = "document_parsing_exception"
		}
	}
	r := newFaultRun(t, srv, cfg)
	r.push(t, nil)
	r.waitFinal(t, 0, int64(len(rejected)))

	res := r.verify(t, rejected, dlq)
	assert.Equal(t, int64(len(rejected)), res.counts.deadLettered)
	assert.Positive(t, res.stats.ItemFaults)
	lettered := map[int]int{}
	for _, it := range res.letters {
		var letter fakees.DeadLetter
		require.NoError(t, json.Unmarshal(it.Document, &letter))
		seq := docSeq(t, []byte(letter.Document))
		lettered[seq]++
		assert.Contains(t, rejected, seq, "dead letter of a record that was not rejected")
		assert.Equal(t, http.StatusBadRequest, letter.HTTP.Response.StatusCode)
		assert.Equal(t, "document_parsing_exception", letter.Error.Type)
		assert.Equal(t, "failed to parse field [seq]", letter.Error.Reason)
		want := "logs-generic.otel-default"
		if seq >= faultLogs && (seq-faultLogs)%(1+faultEventsPerSpan) == 0 {
			want = "traces-generic.otel-default"
		}
		assert.Equal(t, want, letter.Index, "seq %d", seq)
	}
	for seq := range rejected {
		assert.Equal(t, 1, lettered[seq], "dead letters of seq %d", seq)
	}
	assert.Len(t, res.letters, len(rejected))
}

// A document that is still too large alone (413) is rejected for good; with the dead-letter
// index on, it is dead-lettered like any document rejected for good, or, when its dead letter
// cannot be written either, counted as dropped and logged: it is not lost silently.
func TestFaultTooLargeDocumentDeadLetter(t *testing.T) {
	const limit = 4 << 10
	srv := fakees.New(t)
	srv.Faults = fakees.Faults{MaxRequestBytes: limit}
	set, tel := elasticsearchexporter.WithTelemetry(t)
	core, logs := observer.New(zapcore.WarnLevel)
	set.Logger = zap.New(core)
	cfg := elasticsearchexporter.NewTestConfig(srv.URL)
	cfg.DeadLetter.Enabled = true
	cfg.DeadLetter.Index = "fault-dead-letters"
	exp := elasticsearchexporter.NewLogsExporter(t, cfg, set)
	ld := elasticsearchexporter.TestLogs(3)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Body().SetStr("big " + strings.Repeat("x", 3*limit/2))
	err := exp.ConsumeLogs(context.Background(), ld)

	require.NoError(t, err, "rejected for good and dead-lettered: a final outcome")
	var letters []fakees.Item
	indexed := 0
	for _, it := range srv.Accepted() {
		if it.Index() == cfg.DeadLetter.Index {
			letters = append(letters, it)
		} else {
			indexed++
		}
	}
	assert.Equal(t, 2, indexed, "the other documents are indexed")
	require.Equal(t, int64(1), countertest.Sum(t, tel, metricDocs, elasticsearchexporter.Outcome("failed_client"),
		attribute.String("error.type", "request_entity_too_large")))
	assert.Equal(t, int64(1), countertest.Sum(t, tel, metricFates, elasticsearchexporter.Fate("dead_lettered")))
	assert.Zero(t, countertest.Sum(t, tel, metricFates, elasticsearchexporter.Fate("rejected")), "its fate is its dead letter's")
	assert.Zero(t, logs.FilterMessage("Documents could not be written to the dead-letter index").Len())
	require.Len(t, letters, 1)
	var letter struct {
		Document string `json:"document"`
		Error    struct{ Type, Reason string }
	}
	require.NoError(t, json.Unmarshal(letters[0].Document, &letter))
	assert.Equal(t, "request_entity_too_large", letter.Error.Type)
	assert.Contains(t, letter.Error.Reason, "bytes is over the server's request size limit")
	assert.LessOrEqual(t, len(letter.Document), 1024, "a dead letter keeps the beginning of a document too large to send")
	assert.True(t, strings.HasPrefix(letter.Document, `{"@timestamp":`))
}
