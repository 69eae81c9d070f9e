// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package fakees is an in-process Elasticsearch stand-in for tests: it answers GET / and
// POST /_bulk, records every document it accepts, and can fail whole requests or single items
// on demand. It checks wire format and failure handling; semantics are tested against a real
// Elasticsearch.
package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
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

// Server is a fake Elasticsearch. Set the hooks before sending.
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
	// OnItem, when set, answers each item; a zero Response means 201 Created.
	OnItem func(it Item) Response
	// HasTemplate tells whether a data stream index template matches a name, for
	// POST /_index_template/_simulate_index/<name>. Nil means every name matches.
	HasTemplate func(name string) bool

	mu       sync.Mutex
	accepted []Item
	requests []*http.Request
	bodies   [][]byte
}

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

func (s *Server) bulk(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, `{"error":{"type":"parse_exception","reason":"bad gzip"}}`, http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, `{"error":{"type":"parse_exception","reason":"bad body"}}`, http.StatusBadRequest)
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
	onRequest, onItem := s.OnRequest, s.OnItem
	s.mu.Unlock()

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
	var out bytes.Buffer
	out.WriteString(`{"errors":`)
	responses := make([]Response, len(items))
	anyErr := false
	for i, it := range items {
		resp := Response{Status: http.StatusCreated}
		if onItem != nil {
			if got := onItem(it); got.Status != 0 {
				resp = got
			}
		}
		responses[i] = resp
		if resp.Status > 299 {
			anyErr = true
		}
	}
	out.WriteString(strconv.FormatBool(anyErr))
	out.WriteString(`,"items":[`)
	s.mu.Lock()
	for i, it := range items {
		if i > 0 {
			out.WriteByte(',')
		}
		op, _ := it.Op()
		resp := responses[i]
		fmt.Fprintf(&out, `{%q:{"_index":%q,"status":%d`, op, it.Index(), resp.Status)
		if resp.Status > 299 {
			fmt.Fprintf(&out, `,"error":{"type":%q,"reason":%q}`, resp.ErrorType, resp.Reason)
		} else {
			s.accepted = append(s.accepted, it)
		}
		out.WriteString("}}")
	}
	s.mu.Unlock()
	out.WriteString("]}")
	_, _ = w.Write(out.Bytes())
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
