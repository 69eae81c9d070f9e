// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package fakees is an in-process Elasticsearch stand-in for tests: it answers GET / and
// POST /_bulk, records every document it accepts, and can fail whole requests or single items
// on demand, through hooks or through seeded fault injection (see Faults). Like Elasticsearch's
// create action, it answers 409 for an item whose _id was already accepted in the same index.
// It checks wire format and failure handling; semantics are tested against a real
// Elasticsearch.
package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Item is one bulk item as the server received it.
type Item struct {
	// Action is the decoded action line, e.g. {"create": {"_index": "logs-generic.otel-default"}}.
	Action map[string]map[string]any
	// Document is the source line, byte for byte.
	Document []byte
	// Query is the query of the request that carried the item.
	Query url.Values
}

// Op returns the item's action name and its metadata.
func (it Item) Op() (string, map[string]any) {
	for k, v := range it.Action {
		return k, v
	}
	return "", nil
}

// Index returns the item's _index.
func (it Item) Index() string {
	_, m := it.Op()
	s, _ := m["_index"].(string)
	return s
}

// Response is what the server answers for an item: a status and, for a failure, an error.
type Response struct {
	Status    int
	ErrorType string
	Reason    string
}

// ID returns the item's _id, empty when it has none.
func (it Item) ID() string {
	_, m := it.Op()
	s, _ := m["_id"].(string)
	return s
}

// Faults describes the failures a Server injects. Random choices come from pseudo-random
// generators seeded with Seed: one draws per bulk request (connection drops), the other per
// item (item statuses), so that for a given seed and arrival order the same requests and items
// fail. Request-level draws do not depend on the number of items.
type Faults struct {
	// Seed seeds the fault generators.
	Seed int64

	// ItemStatusRate is the fraction of items answered ItemStatus instead of being processed.
	ItemStatusRate float64
	// ItemStatus is the status of the failed items. Default 429.
	ItemStatus int
	// ItemErrorType is the error type of the failed items. Default
	// es_rejected_execution_exception for 429, fake_exception otherwise.
	ItemErrorType string
	// ItemFilter, when set, limits item faults to the items for which it returns true (a
	// dead-letter index may be spared, for instance). It is called with the server's lock held
	// and must not call the Server.
	ItemFilter func(Item) bool

	// MaxRequestBytes, when positive, answers 413 for a bulk request whose uncompressed body is
	// larger; nothing of it is processed.
	MaxRequestBytes int

	// SlowResponse delays the processing of each bulk request. A request whose client gives up
	// meanwhile is not processed.
	SlowResponse time.Duration

	// DropConnectionRate is the fraction of bulk requests whose connection is closed without an
	// answer.
	DropConnectionRate float64
	// DropProcessedRate is the fraction of the dropped requests that are processed first: their
	// items are stored but the client never learns it, as when a response is lost on the way.
	// The others are dropped before any item is processed.
	DropProcessedRate float64

	// OutageUntil makes every request until that time fail: answered 503, or with OutageRefuse
	// its connection closed at once. See StartOutage.
	OutageUntil  time.Time
	OutageRefuse bool
}

// Stats counts what a Server received and the faults it injected.
type Stats struct {
	// Requests counts the bulk requests received outside an outage.
	Requests int
	// Accepted counts the items stored; Conflicts the items answered 409.
	Accepted, Conflicts int
	// ItemFaults counts the items answered Faults.ItemStatus.
	ItemFaults int
	// TooLarge counts the requests answered 413 for Faults.MaxRequestBytes.
	TooLarge int
	// Dropped counts the bulk requests whose connection was closed without an answer, and
	// DroppedProcessed those of them that were processed first.
	Dropped, DroppedProcessed int
	// LostAnswers counts the items stored by a request that was then dropped: the client was
	// not told they were stored.
	LostAnswers int
	// OutageAnswers counts the requests failed by an outage.
	OutageAnswers int
}

// Server is a fake Elasticsearch. Set the hooks and Faults before sending.
type Server struct {
	*httptest.Server

	// Version is the version number GET / reports. Default 9.1.0.
	Version string
	// NoRoot makes GET / answer 405, as server builds without the root endpoint do; the
	// version is then only found through GET /_nodes/_local.
	NoRoot bool
	// OnRequest, when set, may answer a whole bulk request: a non-zero status is returned with
	// an error body and nothing is accepted.
	OnRequest func(r *http.Request, items []Item) int
	// RetryAfter is the Retry-After header sent with request-level 429 and 503 answers.
	RetryAfter string
	// OnItem, when set, answers each item; a zero Response lets the server process it (see
	// Faults and the _id check), which answers 201 Created when nothing fails.
	OnItem func(it Item) Response
	// HasTemplate tells whether a data stream index template matches a name, for
	// POST /_index_template/_simulate_index/<name>. Nil means every name matches.
	HasTemplate func(name string) bool
	// Faults are the failures injected; see Faults. Set them before the first request (an
	// exporter's start sends some) or with SetFaults and StartOutage.
	Faults Faults

	mu       sync.Mutex
	accepted []Item
	requests []*http.Request
	bodies   [][]byte
	// ids holds the _ids accepted, per index; conflicts the 409 answers per _id.
	ids       map[indexID]bool
	conflicts map[string]int
	stats     Stats
	// reqRand and itemRand are the fault generators, made from Faults.Seed on first use.
	reqRand, itemRand *rand.Rand
}

type indexID struct{ index, id string }

// New starts a fake Elasticsearch; it is closed when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{Version: "9.1.0"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// NewOn starts a fake Elasticsearch listening on addr (host:port); it is closed when the test
// ends.
func NewOn(tb testing.TB, addr string) *Server {
	tb.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("fakees: listening on %s: %v", addr, err)
	}
	s := &Server{Version: "9.1.0"}
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}}
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// Accepted returns the items accepted so far.
func (s *Server) Accepted() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Item(nil), s.accepted...)
}

// AcceptedIDs returns, per _id, the number of items accepted with it (in any index).
func (s *Server) AcceptedIDs() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.ids))
	for k := range s.ids {
		out[k.id]++
	}
	return out
}

// Conflicts returns, per _id, the number of items answered 409 because the _id was already
// accepted.
func (s *Server) Conflicts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.conflicts)
}

// Stats returns the counts of requests, items and injected faults so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// SetFaults replaces the faults injected from now on. It is safe to call while requests run;
// the fault generators keep their state.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Faults = f
}

// StartOutage makes every request fail for d from now, as Faults.OutageUntil does. It is safe
// to call while requests run.
func (s *Server) StartOutage(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Faults.OutageUntil = time.Now().Add(d)
}

// InOutage tells whether an outage is going on.
func (s *Server) InOutage() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Before(s.Faults.OutageUntil)
}

// Requests returns the number of bulk requests received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Bodies returns the uncompressed bodies of the bulk requests received.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// LastRequest returns the last bulk request received, or nil.
func (s *Server) LastRequest() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return nil
	}
	return s.requests[len(s.requests)-1]
}

const simulatePath = "/_index_template/_simulate_index/"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.outage(w, r) {
		return
	}
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/" && s.NoRoot:
		w.WriteHeader(http.StatusMethodNotAllowed)
		fmt.Fprint(w, `{"error":"Incorrect HTTP method for uri [/] and method [GET], allowed: [DELETE]","status":405}`)
	case r.Method == http.MethodGet && r.URL.Path == "/":
		fmt.Fprintf(w, `{"name":"fake","cluster_name":"fake","version":{"number":%q,"build_flavor":"default"},"tagline":"You Know, for Search"}`, s.Version)
	case r.Method == http.MethodGet && r.URL.Path == "/_nodes/_local":
		fmt.Fprintf(w, `{"cluster_name":"fake","nodes":{"n1":{"version":%q}}}`, s.Version)
	case r.Method == http.MethodPost && r.URL.Path == "/_bulk":
		s.bulk(w, r)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, simulatePath):
		s.mu.Lock()
		has := s.HasTemplate
		s.mu.Unlock()
		if has != nil && !has(strings.TrimPrefix(r.URL.Path, simulatePath)) {
			fmt.Fprint(w, `{}`)
			return
		}
		fmt.Fprint(w, `{"template":{"settings":{},"mappings":{"_data_stream_timestamp":{"enabled":true}},"aliases":{}},"overlapping":[]}`)
	default:
		http.Error(w, `{"error":{"type":"not_found"}}`, http.StatusNotFound)
	}
}

// outage fails r when an outage is going on, and reports whether it did.
func (s *Server) outage(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	in := time.Now().Before(s.Faults.OutageUntil)
	refuse := s.Faults.OutageRefuse
	if in {
		s.stats.OutageAnswers++
	}
	s.mu.Unlock()
	if !in {
		return false
	}
	if refuse {
		dropConnection(w)
		return true
	}
	_, _ = io.Copy(io.Discard, r.Body)
	if s.RetryAfter != "" {
		w.Header().Set("Retry-After", s.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprint(w, `{"error":{"type":"cluster_block_exception","reason":"injected outage"},"status":503}`)
	return true
}

// dropConnection closes the connection of w without answering.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("fakees: the connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	_ = conn.Close()
}

// dropDecision draws whether a bulk request's connection is dropped, and whether the request
// is processed before. Both draws are made for every request, so that each request's fate
// depends only on the seed and its arrival order.
func (s *Server) dropDecision() (drop, processed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &s.Faults
	if f.DropConnectionRate <= 0 {
		return false, false
	}
	s.initRand()
	d, p := s.reqRand.Float64(), s.reqRand.Float64()
	return d < f.DropConnectionRate, p < f.DropProcessedRate
}

// initRand makes the fault generators. s.mu must be held.
func (s *Server) initRand() {
	if s.reqRand == nil {
		seed := uint64(s.Faults.Seed) //nolint:gosec // any bit pattern is a seed
		s.reqRand = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		s.itemRand = rand.New(rand.NewPCG(seed, 0xbf58476d1ce4e5b9))
	}
}

// itemFault draws whether it is answered with the injected item status. s.mu must be held.
func (s *Server) itemFault(it Item) (Response, bool) {
	f := &s.Faults
	if f.ItemStatusRate <= 0 || (f.ItemFilter != nil && !f.ItemFilter(it)) {
		return Response{}, false
	}
	s.initRand()
	if s.itemRand.Float64() >= f.ItemStatusRate {
		return Response{}, false
	}
	status := f.ItemStatus
	if status == 0 {
		status = http.StatusTooManyRequests
	}
	errType := f.ItemErrorType
	if errType == "" {
		errType = "fake_exception"
		if status == http.StatusTooManyRequests {
			errType = "es_rejected_execution_exception"
		}
	}
	return Response{Status: status, ErrorType: errType, Reason: "injected item failure"}, true
}

// wait waits for d, and reports false when the client went away first.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// ReadBody returns the body of a bulk request, decompressed when it is gzipped.
func ReadBody(r *http.Request) ([]byte, error) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, fmt.Errorf("bad gzip: %w", err)
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("bad body: %w", err)
	}
	return raw, nil
}

func (s *Server) bulk(w http.ResponseWriter, r *http.Request) {
	raw, err := ReadBody(r)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"type":"parse_exception","reason":%q}}`, err.Error())
		return
	}
	items, err := parseBulk(raw, r.URL.Query())
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"type":"parse_exception","reason":%q}}`, err.Error())
		return
	}
	if n, _ := strconv.Atoi(r.Header.Get("X-Elastic-Event-Count")); n != 0 && n != len(items) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"type":"parse_exception","reason":"event count header %d, items %d"}}`, n, len(items))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.bodies = append(s.bodies, raw)
	s.stats.Requests++
	onRequest, onItem := s.OnRequest, s.OnItem
	maxBytes, slow := s.Faults.MaxRequestBytes, s.Faults.SlowResponse
	if maxBytes > 0 && len(raw) > maxBytes {
		s.stats.TooLarge++
	}
	s.mu.Unlock()

	if maxBytes > 0 && len(raw) > maxBytes {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		fmt.Fprintf(w, `{"error":{"type":"content_too_long_exception","reason":"request body of %d bytes is over the limit of %d"},"status":413}`,
			len(raw), maxBytes)
		return
	}
	if !wait(r, slow) {
		return
	}
	drop, processed := s.dropDecision()
	if drop && !processed {
		s.mu.Lock()
		s.stats.Dropped++
		s.mu.Unlock()
		dropConnection(w)
		return
	}

	if onRequest != nil {
		if status := onRequest(r, items); status != 0 {
			if s.RetryAfter != "" && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
				w.Header().Set("Retry-After", s.RetryAfter)
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"type":"fake_exception","reason":"injected %d"},"status":%d}`, status, status)
			return
		}
	}
	responses := make([]Response, len(items))
	for i, it := range items {
		if onItem != nil {
			responses[i] = onItem(it)
		}
	}
	var out bytes.Buffer
	anyErr := false
	s.mu.Lock()
	stored := 0
	for i, it := range items {
		switch {
		case responses[i].Status == 0:
			responses[i] = s.process(it)
		case responses[i].Status <= 299:
			// A hook's success stores the item as it is, without the _id check.
			s.accepted = append(s.accepted, it)
			s.stats.Accepted++
		}
		if responses[i].Status > 299 {
			anyErr = true
		} else {
			stored++
		}
	}
	out.WriteString(`{"errors":`)
	out.WriteString(strconv.FormatBool(anyErr))
	out.WriteString(`,"items":[`)
	for i, it := range items {
		if i > 0 {
			out.WriteByte(',')
		}
		op, _ := it.Op()
		resp := responses[i]
		fmt.Fprintf(&out, `{%q:{"_index":%q,"status":%d`, op, it.Index(), resp.Status)
		if resp.Status > 299 {
			fmt.Fprintf(&out, `,"error":{"type":%q,"reason":%q}`, resp.ErrorType, resp.Reason)
		}
		out.WriteString("}}")
	}
	if drop {
		s.stats.Dropped++
		s.stats.DroppedProcessed++
		s.stats.LostAnswers += stored
	}
	s.mu.Unlock()
	out.WriteString("]}")
	if drop {
		dropConnection(w)
		return
	}
	_, _ = w.Write(out.Bytes())
}

// process answers an item that no hook answered: an injected fault, 409 for a create whose _id
// is already stored in the index, or 201 and the item stored. s.mu must be held.
func (s *Server) process(it Item) Response {
	if resp, ok := s.itemFault(it); ok {
		s.stats.ItemFaults++
		return resp
	}
	op, _ := it.Op()
	if id := it.ID(); id != "" {
		key := indexID{index: it.Index(), id: id}
		if s.ids[key] && op == "create" {
			if s.conflicts == nil {
				s.conflicts = map[string]int{}
			}
			s.conflicts[id]++
			s.stats.Conflicts++
			return Response{
				Status: http.StatusConflict, ErrorType: "version_conflict_engine_exception",
				Reason: fmt.Sprintf("[%s]: version conflict, document already exists", id),
			}
		}
		if s.ids == nil {
			s.ids = map[indexID]bool{}
		}
		s.ids[key] = true
	}
	s.accepted = append(s.accepted, it)
	s.stats.Accepted++
	return Response{Status: http.StatusCreated}
}

// parseBulk splits an NDJSON bulk body into items, decoding each action line.
func parseBulk(raw []byte, q url.Values) ([]Item, error) {
	var items []Item
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var action map[string]map[string]any
		if err := json.Unmarshal(line, &action); err != nil {
			return nil, fmt.Errorf("action line %d: %w", len(items), err)
		}
		if !sc.Scan() {
			return nil, fmt.Errorf("action line %d has no source line", len(items))
		}
		doc := append([]byte(nil), sc.Bytes()...)
		if !json.Valid(doc) {
			return nil, fmt.Errorf("source line %d is not valid JSON: %s", len(items), doc)
		}
		items = append(items, Item{Action: action, Document: doc, Query: q})
	}
	return items, sc.Err()
}
