// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package fakees is an in-process Elasticsearch stand-in for tests: it answers GET /,
// GET /_nodes/_local, POST /_index_template/_simulate_index/<name> and POST /_bulk, records
// every document it accepts, and can fail whole requests or single items on demand, through
// hooks or through seeded fault injection (see Faults). Like Elasticsearch's create action, it
// answers 409 for an item whose _id was already accepted in the same index. It checks wire
// format and failure handling; semantics are tested against a real Elasticsearch.
package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a fake Elasticsearch. Set the hooks and Faults before sending.
type Server struct {
	*httptest.Server

	// Version is the version number GET / reports. Default 9.1.0.
	Version string
	// NoRoot makes GET / answer 405, as server builds without the root endpoint do; the
	// version is then only found through GET /_nodes/_local.
	NoRoot bool
	// RootStatus, when set, is the answer to GET / and GET /_nodes/_local, with a
	// security_exception body: 403 is what credentials without the monitor cluster privilege
	// get.
	RootStatus int
	// RefuseIncludeSource answers 400 to a bulk request with the parameter
	// include_source_on_error, as Elasticsearch before 8.18 does.
	RefuseIncludeSource bool
	// DropSnappy reads a snappy bulk body as if Content-Encoding were not there, as a node or
	// a proxy that drops it does: the body is answered 400 x_content_parse_exception at [1:1].
	DropSnappy bool
	// SnappyAnswersNothing answers every snappy bulk request 200 with no items and keeps
	// nothing of it, as a proxy in front of the node that answers for it does: the answer
	// tells neither that the node decodes snappy nor that it does not.
	SnappyAnswersNothing bool
	// OnRequest, when set, may answer a whole bulk request: a non-zero status is returned with
	// an error body and nothing is accepted.
	OnRequest func(r *http.Request, items []Item) int
	// Answer, when set, may write the whole answer to a bulk request itself, given the items
	// received, for answers no Elasticsearch gives (a body that is not JSON or is cut short,
	// fewer items than sent, a redirect); it reports whether it answered. Nothing is stored of
	// a request it answers.
	Answer func(w http.ResponseWriter, items []Item) bool
	// KeepNothing keeps no item, body or request, for tests that measure memory under load:
	// only the counts are kept (Stats, AcceptedPerIndex), and no _id is checked.
	KeepNothing bool
	// RetryAfter is the Retry-After header sent with request-level 429 and 503 answers.
	RetryAfter string
	// ErrorBody, when set, gives the body of a request-level failure answered by OnRequest,
	// instead of the JSON error of Elasticsearch: an HTML page of a proxy, or a body of any
	// size, which the server streams without holding it.
	ErrorBody func(status int) io.Reader
	// OnItem, when set, answers each item; a zero Response lets the server process it (see
	// Faults and the _id check), which answers 201 Created when nothing fails. A Response
	// with Raw set is written as it is, as an item no Elasticsearch sends (see Response).
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
	// perIndex counts the items accepted, per index.
	perIndex map[string]int
	stats    Stats
	// reqRand and itemRand are the fault generators, made from Faults.Seed on first use.
	reqRand, itemRand *rand.Rand
}

type indexID struct{ index, id string }

// New starts a fake Elasticsearch; it is closed when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, httptest.NewServer)
}

// NewTLS starts a fake Elasticsearch on HTTPS, with the certificate of httptest (which no
// client trusts unless given srv.Certificate()); it is closed when the test ends.
func NewTLS(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, httptest.NewTLSServer)
}

// NewOn starts a fake Elasticsearch listening on addr (host:port); it is closed when the test
// ends.
func NewOn(tb testing.TB, addr string) *Server {
	tb.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("fakees: listening on %s: %v", addr, err)
	}
	return start(tb, func(h http.Handler) *httptest.Server {
		srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
		srv.Start()
		return srv
	})
}

// start makes a Server answering as a 9.x node and serves it with serve; it is closed when the
// test ends.
func start(tb testing.TB, serve func(http.Handler) *httptest.Server) *Server {
	tb.Helper()
	s := &Server{Version: "9.1.0"}
	s.Server = serve(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Stats counts what a Server received and the faults it injected.
type Stats struct {
	// Received counts every bulk request received outside an outage, those answered 400 or
	// by Answer or SnappyAnswersNothing among them.
	Received int
	// Requests counts the bulk requests received outside an outage that have items and are
	// not answered by Answer.
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

// AcceptedPerIndex returns, per index, the number of items accepted.
func (s *Server) AcceptedPerIndex() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.perIndex)
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

// serve routes a request, unless an outage fails it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.outage(w, r) {
		return
	}
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "/_nodes/_local") && s.RootStatus != 0:
		w.WriteHeader(s.RootStatus)
		fmt.Fprintf(w, `{"error":{"type":"security_exception","reason":"action [cluster:monitor/main] is unauthorized for user [fake], `+
			`this action is granted by the cluster privileges [monitor,manage,all]"},"status":%d}`, s.RootStatus)
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
