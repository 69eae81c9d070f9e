// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Response is what the server answers for an item: a status and, for a failure, an error.
type Response struct {
	Status    int
	ErrorType string
	Reason    string
	// Raw, when set, is written as the item's answer, byte for byte, and the item is not
	// stored: for answers Elasticsearch does not give to a create, such as
	// {"create":{"status":200}}, {"index":{"status":201}} or an item without status.
	Raw string
}

// bulk answers POST /_bulk: a body in snappy is answered 400 with DropSnappy and 200 without
// items with SnappyAnswersNothing; a body that cannot be read, without items, whose event
// count header does not match its items, or with a parameter refused (RefuseIncludeSource),
// is answered 400; then Answer may answer it whole; then
// come the request-level faults and hooks (413 for Faults.MaxRequestBytes, SlowResponse,
// dropped connections, OnRequest), and each item is answered by OnItem or processed.
func (s *Server) bulk(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.stats.Received++
	s.mu.Unlock()
	if s.SnappyAnswersNothing && r.Header.Get("Content-Encoding") == "snappy" {
		fmt.Fprint(w, `{"took":0,"errors":false,"items":[]}`)
		return
	}
	if s.DropSnappy && r.Header.Get("Content-Encoding") == "snappy" {
		const reason = `"type":"x_content_parse_exception","reason":"[1:1] Unrecognized token 'sNaPpY': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"`
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"root_cause":[{`+reason+`}],`+reason+`},"status":400}`)
		return
	}
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
	if len(items) == 0 { // as Elasticsearch answers a body without an action
		const reason = `"type":"action_request_validation_exception","reason":"Validation Failed: 1: no requests added;"`
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"root_cause":[{`+reason+`}],`+reason+`},"status":400}`)
		return
	}
	if n, _ := strconv.Atoi(r.Header.Get("X-Elastic-Event-Count")); n != 0 && n != len(items) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"type":"parse_exception","reason":"event count header %d, items %d"}}`, n, len(items))
		return
	}
	if s.RefuseIncludeSource && r.URL.Query().Has("include_source_on_error") {
		const reason = `"type":"illegal_argument_exception","reason":"request [/_bulk] contains unrecognized parameter: [include_source_on_error]"`
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"root_cause":[{`+reason+`}],`+reason+`},"status":400}`)
		return
	}
	if s.Answer != nil && s.Answer(w, items) {
		return
	}
	s.mu.Lock()
	if !s.KeepNothing {
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, raw)
	}
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
			if errorBody := s.ErrorBody; errorBody != nil {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(status)
				_, _ = io.Copy(w, errorBody(status))
				return
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
		if responses[i].Raw != "" {
			continue // not stored, and not an error Elasticsearch would count
		}
		switch {
		case responses[i].Status == 0:
			responses[i] = s.process(it)
		case responses[i].Status <= 299:
			// A hook's success stores the item as it is, without the _id check.
			s.store(it)
		}
		if responses[i].Status > 299 {
			anyErr = true
		} else {
			stored++
		}
	}
	padding := s.Faults.ResponsePadding
	out.WriteString(`{"errors":`)
	out.WriteString(strconv.FormatBool(anyErr))
	out.WriteString(`,"items":[`)
	for i, it := range items {
		if i > 0 {
			out.WriteByte(',')
		}
		op, _ := it.Op()
		resp := responses[i]
		if resp.Raw != "" {
			out.WriteString(resp.Raw)
			continue
		}
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
	if padding > 0 {
		// A member before the items, streamed: a client that bounds what it reads stops
		// before the items.
		_, _ = io.WriteString(w, `{"padding":"`)
		_, _ = io.CopyN(w, repeatReader('p'), int64(padding))
		_, _ = io.WriteString(w, `",`)
		_, _ = w.Write(out.Bytes()[1:])
		return
	}
	_, _ = w.Write(out.Bytes())
}

// repeatReader reads as its byte, without end.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// process answers an item that no hook answered: an injected fault, 409 for a create whose _id
// is already stored in the index, or 201 and the item stored. s.mu must be held.
func (s *Server) process(it Item) Response {
	if resp, ok := s.itemFault(it); ok {
		s.stats.ItemFaults++
		return resp
	}
	op, _ := it.Op()
	if id := it.ID(); id != "" && !s.KeepNothing {
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
	s.store(it)
	return Response{Status: http.StatusCreated}
}

// store accepts it: counted, and kept unless KeepNothing. s.mu must be held.
func (s *Server) store(it Item) {
	s.stats.Accepted++
	if s.perIndex == nil {
		s.perIndex = map[string]int{}
	}
	s.perIndex[it.Index()]++
	if !s.KeepNothing {
		s.accepted = append(s.accepted, it)
	}
}
