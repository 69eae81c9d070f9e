// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
)

// scriptedClient reads each request and answers the n-th (from 0) with answer(n).
type scriptedClient struct {
	n      int
	answer func(n int) (*http.Response, error)
}

func (c *scriptedClient) Perform(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	n := c.n
	c.n++
	return c.answer(n)
}

// answerItems answers 200 with a bulk response of the given items.
func answerItems(items ...string) (*http.Response, error) {
	return okClient(`{"items":[` + strings.Join(items, ",") + `]}`)(nil)
}

const (
	itemCreated  = `{"create":{"_index":"i","status":201}}`
	itemRejected = `{"create":{"_index":"i","status":400,"error":{"type":"mapper_parsing_exception","reason":"x"}}}`
	itemBusy     = `{"create":{"_index":"i","status":503,"error":{"type":"unavailable_shards_exception","reason":"x"}}}`
	itemConflict = `{"create":{"_index":"d","status":409,"error":{"type":"version_conflict_engine_exception","reason":"x"}}}`
	item429      = `{"create":{"_index":"i","status":429,"error":{"type":"es_rejected_execution_exception","reason":"x"}}}`
	item500      = `{"create":{"_index":"i","status":500,"error":{"type":"illegal_state_exception","reason":"x"}}}`
	item401      = `{"create":{"_index":"i","status":401,"error":{"type":"security_exception","reason":"x"}}}`
	item403      = `{"create":{"_index":"i","status":403,"error":{"type":"security_exception","reason":"x"}}}`
	itemStored   = `{"create":{"_index":".fs-i","status":201,"failure_store":"used"}}`
)

func batchOf(docs ...string) *Batch {
	var b Batch
	for _, d := range docs {
		start := len(b.Buf)
		b.Buf = append(b.Buf, d...)
		b.Add(start, Item{Index: "logs-a"})
	}
	return &b
}

// answerStatus answers a whole request with status and an Elasticsearch error body.
func answerStatus(status int) (*http.Response, error) {
	body := fmt.Sprintf(`{"error":{"type":"fake_exception","reason":"injected %d"},"status":%d}`, status, status)
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// errConnection is a network failure: the request got no answer.
var errConnection = errors.New("connection reset by peer")

// script answers the n-th request with answers[n] and fails the test on a request more.
func script(t *testing.T, answers ...func() (*http.Response, error)) *scriptedClient {
	t.Helper()
	return &scriptedClient{answer: func(n int) (*http.Response, error) {
		if n >= len(answers) {
			t.Errorf("request %d is one more than the %d expected", n+1, len(answers))
			return nil, errConnection
		}
		return answers[n]()
	}}
}

// items, status and fail make the answers of script.
func items(it ...string) func() (*http.Response, error) {
	return func() (*http.Response, error) { return answerItems(it...) }
}

func status(code int) func() (*http.Response, error) {
	return func() (*http.Response, error) { return answerStatus(code) }
}

func body(b string) func() (*http.Response, error) {
	return func() (*http.Response, error) { return okClient(b)(nil) }
}

func fail(err error) func() (*http.Response, error) {
	return func() (*http.Response, error) { return nil, err }
}

// repeat returns answer n times.
func repeat(n int, answer func() (*http.Response, error)) []func() (*http.Response, error) {
	out := make([]func() (*http.Response, error), n)
	for i := range out {
		out[i] = answer
	}
	return out
}

// newTelemetry returns a telemetry builder that records into tel.
func newTelemetry(t *testing.T) (*metadata.TelemetryBuilder, *componenttest.Telemetry) {
	t.Helper()
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	tb, err := metadata.NewTelemetryBuilder(tel.NewTelemetrySettings())
	require.NoError(t, err)
	return tb, tel
}

// docCounts returns the documents of docs.fate per fate, error type and status (contrib's
// outcome is checked by the tests of telemetry_test.go).
func docCounts(t *testing.T, tel *componenttest.Telemetry) map[string]int64 {
	t.Helper()
	return countertest.SumBy(t, tel, "otelcol.elasticsearch.docs.fate", "fate", "error.type", "http.response.status_code")
}

// fateSum returns the documents counted in docs.fate, whatever their attributes.
func fateSum(t *testing.T, tel *componenttest.Telemetry) int64 {
	t.Helper()
	return countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate")
}

// requestCounts returns the attempts of bulk requests counted per outcome and status.
func requestCounts(t *testing.T, tel *componenttest.Telemetry) map[string]int64 {
	t.Helper()
	return countertest.SumBy(t, tel, "otelcol.elasticsearch.bulk_requests.attempts", "outcome", "http.response.status_code")
}

// retried returns the documents counted as sent again, alone or with their whole request.
func retried(t *testing.T, tel *componenttest.Telemetry) int64 {
	t.Helper()
	return countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried") +
		countertest.Sum(t, tel, "otelcol.elasticsearch.docs.retried_http_request")
}

type clientFunc func(*http.Request) (*http.Response, error)

func (f clientFunc) Perform(r *http.Request) (*http.Response, error) { return f(r) }

func stubStatus(status int, body string) clientFunc {
	return func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader([]byte(body)))}, nil
	}
}

func okClient(body string) clientFunc { return stubStatus(http.StatusOK, body) }

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// lastGauge keeps the last value recorded to it.
type lastGauge struct {
	noop.Int64Gauge
	v atomic.Int64
}

func (g *lastGauge) Record(_ context.Context, v int64, _ ...metric.RecordOption) { g.v.Store(v) }

// testLimiter is a limiter on a fake clock, whose limit is read from its gauge.
type testLimiter struct {
	*concurrencyLimiter
	clock *fakeClock
	gauge *lastGauge
	// fill is the size of the requests released, over the request size limit: full ones
	// unless a test says otherwise.
	fill *float64
}

// release releases at the clock's time a request of *l.fill.
func (l testLimiter) release(rtt time.Duration, backpressure, sample bool) {
	l.concurrencyLimiter.release(l.clock.t, rtt, *l.fill, backpressure, sample)
}

// Limit returns the limit last recorded to the gauge.
func (l testLimiter) Limit() int { return int(l.gauge.v.Load()) }

func newTestLimiter(maxRequests int, adaptive bool) (testLimiter, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	gauge := &lastGauge{}
	l := newConcurrencyLimiter(ConcurrencyConfig{Max: maxRequests, Adaptive: adaptive}, gauge, clock.t)
	fill := 1.0
	return testLimiter{l, clock, gauge, &fill}, clock
}

// round sends n requests at once that each take rtt (the clock moves by rtt), and ends them
// with the given back-pressure. With n equal to the limit, the limit is reached.
func round(t *testing.T, l testLimiter, clock *fakeClock, n int, rtt time.Duration, backpressure bool) {
	t.Helper()
	for range n {
		require.NoError(t, l.acquire(context.Background()))
	}
	clock.advance(rtt)
	for range n {
		l.release(rtt, backpressure, !backpressure)
	}
}

// full runs a round at the current limit.
func full(t *testing.T, l testLimiter, clock *fakeClock, rtt time.Duration, backpressure bool) int {
	t.Helper()
	round(t, l, clock, l.Limit(), rtt, backpressure)
	return l.Limit()
}

// rampUp runs healthy rounds of full requests at the limit until the limit is max.
func rampUp(t *testing.T, l testLimiter, clock *fakeClock, rtt time.Duration, maxRequests int) {
	t.Helper()
	for range 2 * maxRequests {
		if full(t, l, clock, rtt, false) == maxRequests {
			break
		}
	}
	require.Equal(t, maxRequests, l.Limit())
}

type testNetError struct{}

func (*testNetError) Error() string { return "connection refused" }

// letter returns the dead letter expected for doc, meant for batchOf's index.
func letter(doc string, status int, errorType, reason string) fakees.DeadLetter {
	var d fakees.DeadLetter
	d.Document, d.Index, d.HTTP.Response.StatusCode = doc, "logs-a", status
	d.Error.Type, d.Error.Reason = errorType, reason
	return d
}

// isDeadLetters tells whether r sends dead letters.
func isDeadLetters(r capturedRequest) bool {
	return strings.Contains(r.lines[0], `"_index":"dlq"`)
}

func readCorpus(tb testing.TB, name string) (body []byte, docs int) {
	tb.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "realistic-"+name+".ndjson"))
	require.NoError(tb, err)
	return body, bytes.Count(body, []byte("\n")) / 2
}

// sizeStub is stubClient that records the size of the last body sent.
type sizeStub struct {
	stubClient
	last atomic.Int64
}

func (c *sizeStub) Perform(req *http.Request) (*http.Response, error) {
	n, _ := io.Copy(io.Discard, req.Body)
	c.last.Store(n)
	req.Body = http.NoBody
	return c.stubClient.Perform(req)
}

// snappyNode answers bulk requests as Elasticsearch does, decoding gzip and snappy bodies,
// and records the Content-Encoding of each; with drop set it reads a snappy body as if the
// header were not there, as a node behind a proxy that drops it does.
type snappyNode struct {
	t         *testing.T
	mu        sync.Mutex
	drop      bool
	encodings []string
	lengths   []int64
	docs      int
}

func (n *snappyNode) Perform(req *http.Request) (*http.Response, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	enc := req.Header.Get("Content-Encoding")
	n.encodings = append(n.encodings, enc)
	require.Equal(n.t, req.ContentLength, lengthOf(n.t, req), "Content-Length is the encoded body's")
	n.lengths = append(n.lengths, req.ContentLength)
	if n.drop && enc == "snappy" {
		return stubStatus(http.StatusBadRequest, `{"error":{"root_cause":[{"type":"x_content_parse_exception","reason":"[1:1] Unrecognized token"}],`+
			`"type":"x_content_parse_exception","reason":"[1:1] Unrecognized token 'sNaPpY'"},"status":400}`)(req)
	}
	raw, err := fakees.ReadBody(req)
	require.NoError(n.t, err)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	items := make([]string, len(lines)/2)
	for i := range items {
		items[i] = itemCreated
	}
	n.docs += len(items)
	return answerItems(items...)
}

// lengthOf reads what GetBody gives, the body as sent, and returns its length.
func lengthOf(t *testing.T, req *http.Request) int64 {
	t.Helper()
	body, err := req.GetBody()
	require.NoError(t, err)
	var n int64
	buf := make([]byte, 4096)
	for {
		k, err := body.Read(buf)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}

func newSnappyIndexer(t *testing.T, node *snappyNode) (*Indexer, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.WarnLevel)
	ix, err := New(Config{Client: node, CompressionLevel: 1, Snappy: true, MaxBulkBytes: 1 << 20, Logger: zap.New(core)})
	require.NoError(t, err)
	return ix, logs
}

func answerBody(body string) (*http.Response, error) { return okClient(body)(nil) }

// groupServer records the documents of each bulk request and answers each document with
// answer(doc), 201 when answer is nil or says "". The requests numbered in hold wait, once
// they have arrived (arrived receives their number), until release(n) lets them go.
type groupServer struct {
	answer  func(doc string) string
	status  func(request int) int // 0: answer each document
	arrived chan int

	mu       sync.Mutex
	requests [][]string // documents, by request
	bytes    []int
	hold     map[int]chan struct{}
}

func newGroupServer(hold ...int) *groupServer {
	g := &groupServer{arrived: make(chan int, 100), hold: map[int]chan struct{}{}}
	for _, n := range hold {
		g.hold[n] = make(chan struct{})
	}
	return g
}

func (g *groupServer) Perform(req *http.Request) (*http.Response, error) {
	raw, err := fakees.ReadBody(req)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var docs []string
	for i := 1; i < len(lines); i += 2 {
		docs = append(docs, lines[i])
	}
	g.mu.Lock()
	n := len(g.requests)
	g.requests = append(g.requests, docs)
	g.bytes = append(g.bytes, len(raw))
	held := g.hold[n]
	g.mu.Unlock()
	g.arrived <- n
	if held != nil {
		select {
		case <-held:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	if g.status != nil {
		if st := g.status(n); st != 0 {
			return answerStatus(st)
		}
	}
	items := make([]string, len(docs))
	for i, d := range docs {
		items[i] = itemCreated
		if g.answer != nil {
			if a := g.answer(d); a != "" {
				items[i] = a
			}
		}
	}
	return answerItems(items...)
}

// release lets request n go.
func (g *groupServer) release(n int) { close(g.hold[n]) }

// waitArrived waits until request n has arrived.
func (g *groupServer) waitArrived(t *testing.T, n int) {
	t.Helper()
	for {
		select {
		case got := <-g.arrived:
			if got == n {
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("request %d did not arrive", n)
		}
	}
}

func (g *groupServer) recorded() [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]string(nil), g.requests...)
}

// pushBatch returns a batch of n documents {"p":"<push>","n":<i>}.
func pushBatch(push string, n int) *Batch {
	docs := make([]string, n)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"p":%q,"n":%d}`, push, i)
	}
	return batchOf(docs...)
}

type sendOutcome struct {
	res Result
	err error
}

// sendAsync runs Send in a goroutine and returns the channel of its outcome.
func sendAsync(ctx context.Context, ix *Indexer, b *Batch) <-chan sendOutcome {
	out := make(chan sendOutcome, 1)
	go func() {
		r, err := ix.Send(ctx, b)
		out <- sendOutcome{r, err}
	}()
	return out
}

// waitWaiting waits until n chunks wait in the room and for a request slot.
func waitWaiting(t *testing.T, ix *Indexer, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		return int(ix.room.n.Load()) == n && ix.requests.g.waiting() == n
	}, 30*time.Second, time.Millisecond, "%d pushes waiting", n)
}

// sendWaiting starts Send of b with ctx, as sendAsync, and waits until n pushes wait in the
// room (see waitWaiting): b's among them.
func sendWaiting(ctx context.Context, t *testing.T, ix *Indexer, b *Batch, n int) <-chan sendOutcome {
	t.Helper()
	out := sendAsync(ctx, ix, b)
	waitWaiting(t, ix, n)
	return out
}

// holdSlot starts a push of one document whose request the server holds (request 0), and
// returns its outcome once the server has it.
func holdSlot(t *testing.T, ix *Indexer, g *groupServer) <-chan sendOutcome {
	t.Helper()
	out := sendAsync(context.Background(), ix, pushBatch("holder", 1))
	g.waitArrived(t, 0)
	return out
}

func groupConfig(c *groupServer) Config {
	return Config{
		Client: c, MaxBulkBytes: 1 << 20, Concurrency: ConcurrencyConfig{Max: 1},
		Retry: RetryConfig{
			Enabled: true, MaxRetries: 2, InitialInterval: time.Millisecond, MaxInterval: time.Millisecond,
			RetryOnStatus: []int{http.StatusServiceUnavailable}, RetryOnDocumentStatus: []int{http.StatusTooManyRequests},
		},
	}
}

// pushesOf returns the pushes whose documents a request holds, in order of first appearance.
func pushesOf(docs []string) []string {
	var pushes []string
	for _, d := range docs {
		p := d[strings.Index(d, `"p":"`)+5:]
		p = p[:strings.IndexByte(p, '"')]
		if len(pushes) == 0 || pushes[len(pushes)-1] != p {
			pushes = append(pushes, p)
		}
	}
	return pushes
}

// requestDocuments returns the count, sum and maximum of bulk_requests.documents, over its
// points.
func requestDocuments(t *testing.T, tel *componenttest.Telemetry) (count uint64, sum, most int64) {
	t.Helper()
	m, err := tel.GetMetric("otelcol.elasticsearch.bulk_requests.documents")
	require.NoError(t, err)
	h, ok := m.Data.(metricdata.Histogram[int64])
	require.True(t, ok, "%T", m.Data)
	for _, p := range h.DataPoints {
		count += p.Count
		sum += p.Sum
		if v, ok := p.Max.Value(); ok {
			most = max(most, v)
		}
	}
	return count, sum, most
}

// allocated returns the bytes allocated while f runs, by every goroutine.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// fillReader reads as prefix, then n bytes of fill, then suffix, without holding them.
type fillReader struct {
	prefix, suffix string
	n              int64
	fill           byte
	pos            int64
}

func (r *fillReader) Len() int64 { return int64(len(r.prefix)) + r.n + int64(len(r.suffix)) }

func (r *fillReader) Read(p []byte) (int, error) {
	total := r.Len()
	if r.pos >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.pos < total {
		switch {
		case r.pos < int64(len(r.prefix)):
			c := copy(p[k:], r.prefix[r.pos:])
			k += c
			r.pos += int64(c)
		case r.pos < int64(len(r.prefix))+r.n:
			c := int(min(int64(len(p)-k), int64(len(r.prefix))+r.n-r.pos))
			for j := range c {
				p[k+j] = r.fill
			}
			k += c
			r.pos += int64(c)
		default:
			c := copy(p[k:], r.suffix[r.pos-int64(len(r.prefix))-r.n:])
			k += c
			r.pos += int64(c)
		}
	}
	return k, nil
}

// deadLetterSink answers the push's first request with first and every dead-letter request
// with 201 for each of its documents, and counts the bytes of dead letters it was sent.
type deadLetterSink struct {
	mu          sync.Mutex
	first       func() (*http.Response, error)
	requests    int
	letterBytes int
	letters     []string
}

func (c *deadLetterSink) Perform(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if c.requests == 1 {
		_, _ = io.Copy(io.Discard, req.Body)
		return c.first()
	}
	// Read line by line, so that the sink's own allocations stay small next to the
	// exporter's.
	r := bufio.NewReaderSize(req.Body, 64<<10)
	docs := 0
	for n := 0; ; n++ {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = bytes.Clone(line) // ReadSlice reuses its buffer
		}
		for errors.Is(err, bufio.ErrBufferFull) {
			var more []byte
			more, err = r.ReadSlice('\n')
			line = append(line, more...)
		}
		if len(line) > 0 && n%2 == 1 {
			docs++
			c.letterBytes += len(bytes.TrimSuffix(line, []byte("\n")))
			if len(c.letters) < 3 {
				c.letters = append(c.letters, string(bytes.TrimSuffix(line, []byte("\n"))))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	out.WriteString(`{"items":[`)
	for i := range docs {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString(itemCreated)
	}
	out.WriteString(`]}`)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(&out)}, nil
}

func logDocs(n int) *Batch {
	docs := make([]string, n)
	for i := range docs {
		docs[i] = `{"@timestamp":"2026-01-01T00:00:00Z","message":"log line ` + strconv.Itoa(i) + `"}`
	}
	return batchOf(docs...)
}

// capturedRequest is a bulk request as the server receives it: the event count header, the
// query and the decompressed NDJSON lines.
type capturedRequest struct {
	events string
	query  url.Values
	lines  []string
}

// recordingClient records each bulk request and answers it with status(request) when that is
// not 0, and otherwise with answer(request, doc) for each document, or 201 when answer is nil.
type recordingClient struct {
	t        *testing.T
	requests []capturedRequest
	status   func(request int) int
	answer   func(request, doc int) string
}

func (c *recordingClient) Perform(req *http.Request) (*http.Response, error) {
	raw, err := fakees.ReadBody(req)
	require.NoError(c.t, err)
	require.True(c.t, bytes.HasSuffix(raw, []byte("\n")), "an NDJSON body ends with a newline")
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for _, l := range lines {
		require.True(c.t, json.Valid([]byte(l)), "line %q", l)
	}
	c.requests = append(c.requests, capturedRequest{
		events: req.Header.Get(docappender.HeaderEventCount), query: req.URL.Query(), lines: lines,
	})
	if c.status != nil {
		if st := c.status(len(c.requests) - 1); st != 0 {
			return answerStatus(st)
		}
	}
	items := make([]string, len(lines)/2)
	for i := range items {
		items[i] = `{"create":{"_index":".ds-a-000001","status":201}}`
		if c.answer != nil {
			items[i] = c.answer(len(c.requests)-1, i)
		}
	}
	resp := `{"items":[` + strings.Join(items, ",") + `]}`
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(resp))}, nil
}

// docappenderActionLine returns the action line docappender's Add writes for item.
func docappenderActionLine(t *testing.T, item docappender.BulkIndexerItem) string {
	t.Helper()
	c := &recordingClient{t: t}
	bi, err := docappender.NewBulkIndexer(docappender.BulkIndexerConfig{Client: c})
	require.NoError(t, err)
	item.Body = strings.NewReader(`{}`)
	require.NoError(t, bi.Add(item))
	_, err = bi.Flush(context.Background())
	require.NoError(t, err)
	require.Len(t, c.requests, 1)
	return c.requests[0].lines[0]
}

func nilIfEmpty(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// unmarshalItems decodes the array under the key "items" of the JSON object b, matched exactly.
func unmarshalItems(b []byte, items *[]json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	v, ok := obj["items"]
	if !ok {
		return nil
	}
	return json.Unmarshal(v, items)
}

// bodyCountingClient answers each bulk request according to how many times the same body was
// sent: fail(n) for its n-th sending (from 1), 201 for each document when fail returns 0.
type bodyCountingClient struct {
	mu    sync.Mutex
	seen  map[string]int
	total int
	fail  func(body string, n int) int
}

func (c *bodyCountingClient) Perform(req *http.Request) (*http.Response, error) {
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[string(raw)]++
	c.total++
	n := c.seen[string(raw)]
	c.mu.Unlock()
	if st := c.fail(string(raw), n); st != 0 {
		return answerStatus(st)
	}
	docs := strings.Count(string(raw), "\n") / 2
	return answerItems(slices.Repeat([]string{itemCreated}, docs)...)
}

// retries returns the requests that repeated an earlier one.
func (c *bodyCountingClient) retries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total - len(c.seen)
}

// stubClient answers every bulk request in memory with one 201 item per document, after
// reading the body, so that a benchmark of Send measures the Indexer and docappender without
// HTTP.
//
// With noItems, the stub answers {"errors":false,"items":[]} instead: docappender then decodes
// next to nothing, and Send must count no document as indexed (it reports the mismatch). The
// difference between the two measures what decoding the response costs in docappender.
type stubClient struct {
	noItems   bool
	mu        sync.Mutex
	responses map[string][]byte
}

func (c *stubClient) Perform(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	if c.noItems {
		body := io.NopCloser(strings.NewReader(`{"errors":false,"items":[]}`))
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: body}, nil
	}
	n := req.Header.Get("X-Elastic-Event-Count")
	c.mu.Lock()
	resp, ok := c.responses[n]
	if !ok {
		count, _ := strconv.Atoi(n)
		resp = []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(
			`{"create":{"_index":".ds-logs-generic.otel-default-2026.11.30-000001","status":201}},`, count), ",") + `]}`)
		if c.responses == nil {
			c.responses = map[string][]byte{}
		}
		c.responses[n] = resp
	}
	c.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(resp))}, nil
}

func benchmarkSend(b *testing.B, n int, noItems bool) {
	b.Helper()
	benchmarkSendWith(b, n, noItems, ConcurrencyConfig{})
}

func benchmarkSendWith(b *testing.B, n int, noItems bool, concurrency ConcurrencyConfig) {
	b.Helper()
	ix, err := New(Config{
		Client: &stubClient{noItems: noItems}, CompressionLevel: 1, MaxBulkBytes: 5_000_000,
		Concurrency: concurrency, IdleSessions: 64,
	})
	if err != nil {
		b.Fatal(err)
	}
	var batch Batch
	for i := range n {
		start := len(batch.Buf)
		batch.Buf = append(batch.Buf, `{"@timestamp":"1700000000000.`...)
		batch.Buf = strconv.AppendInt(batch.Buf, int64(i), 10)
		batch.Buf = append(batch.Buf, `","data_stream":{"type":"logs","dataset":"generic","namespace":"default"},`+
			`"severity_text":"INFO","severity_number":9,"attributes":{"http.method":"POST","http.status_code":201},`+
			`"resource":{"attributes":{"service.name":"checkout","host.name":"web-1"}},"scope":{"name":"checkout.logger"},`+
			`"body":{"text":"order placed for customer `...)
		batch.Buf = strconv.AppendInt(batch.Buf, int64(i), 10)
		batch.Buf = append(batch.Buf, `"}}`...)
		batch.Add(start, Item{Index: "logs-generic.otel-default", RequireDataStream: true})
	}
	b.SetBytes(int64(len(batch.Buf)))
	b.ReportAllocs()
	ctx := b.Context()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := ix.Send(ctx, &batch)
			if noItems {
				// Unanswered documents are never counted as indexed.
				if err == nil || res.Indexed != 0 || res.Dropped != n {
					b.Errorf("Send without items: %+v, %v", res, err)
					return
				}
				continue
			}
			if err != nil || res.Indexed != n {
				b.Errorf("Send: %+v, %v", res, err)
				return
			}
		}
	})
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

func fate(f string) attribute.KeyValue { return attribute.String("fate", f) }

func code(c int) attribute.KeyValue { return attribute.Int("http.response.status_code", c) }

func errorType(t string) attribute.KeyValue { return attribute.String("error.type", t) }

func storeStatus(s string) attribute.KeyValue { return attribute.String("failure_store", s) }

// point is a data point of a counter: its value and attributes.
func point(v int64, kv ...attribute.KeyValue) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{Value: v, Attributes: attribute.NewSet(kv...)}
}

// untilDeadline answers no request: it waits for the request's context to end.
func untilDeadline(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// sumWithOutcome returns the documents counted in docs.processed, without the failure_store
// points (the second count contrib makes of a document whose bulk item names its failure store).
func sumWithOutcome(t *testing.T, tel *componenttest.Telemetry) int64 {
	t.Helper()
	var n int64
	for _, dp := range countertest.Points(t, tel, "otelcol.elasticsearch.docs.processed") {
		if _, ok := dp.Attributes.Value("failure_store"); !ok {
			n += dp.Value
		}
	}
	return n
}

// refusal is the answer of Elasticsearch before 8.18 to a bulk request that carries
// include_source_on_error, a parameter it does not know.
const refusal = `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/_bulk] contains unrecognized parameter: [include_source_on_error]"}],"type":"illegal_argument_exception","reason":"request [/_bulk] contains unrecognized parameter: [include_source_on_error]"},"status":400}`
