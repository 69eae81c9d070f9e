// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

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

	// ResponsePadding, when positive, pads every successful bulk answer with that many bytes,
	// in a member before "items": an answer far longer than any Elasticsearch gives.
	ResponsePadding int

	// OutageUntil makes every request until that time fail: answered 503, or with OutageRefuse
	// its connection closed at once. See StartOutage.
	OutageUntil  time.Time
	OutageRefuse bool
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

// EndOutage ends an outage now. It is safe to call while requests run.
func (s *Server) EndOutage() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Faults.OutageUntil = time.Time{}
}

// InOutage tells whether an outage is going on.
func (s *Server) InOutage() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Before(s.Faults.OutageUntil)
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
		seed := uint64(s.Faults.Seed)
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
