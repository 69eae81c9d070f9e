// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package bulksink is a stand-in for Elasticsearch that the performance benchmarks run in a
// process of their own: it answers each `_bulk` request with one successful item per document
// (`{"create":{"_index":...,"status":201}}`, what Elasticsearch answers under the exporter's
// filter_path) and counts requests, documents and bytes, so that a benchmark can bill the
// exporter's CPU alone. It answers the exporter's start-up requests (GET /, GET
// /_nodes/_local, the index template check) as a 9.x cluster does.
//
// It reads each body once and decompresses no more than its counting needs:
//
//   - CountLines gunzips the body as a stream through a reused buffer and counts its
//     newline-delimited lines, two per document (an action line and a document): the number
//     of documents comes from the body itself. It costs about as much CPU as gunzip.
//   - CountHeader trusts the X-Elastic-Event-Count header that the exporter sets and reads the
//     compressed body into a reused buffer without decompressing it.
//
// Neither keeps a body, except one request's when asked to capture it (see Handler).
package bulksink // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/cputime"
)

// CountMode says how the sink counts the documents of a request.
type CountMode int

const (
	// CountLines decompresses the body and counts its lines: two per document.
	CountLines CountMode = iota
	// CountHeader reads X-Elastic-Event-Count and does not decompress the body.
	CountHeader
)

// ParseCountMode reads "lines" or "header".
func ParseCountMode(s string) (CountMode, error) {
	switch s {
	case "lines":
		return CountLines, nil
	case "header":
		return CountHeader, nil
	}
	return 0, errors.New(`count mode must be "lines" or "header", not ` + strconv.Quote(s))
}

func (m CountMode) String() string {
	if m == CountHeader {
		return "header"
	}
	return "lines"
}

// Index is the index name of every item the sink answers: the backing index of a data
// stream, as Elasticsearch names it in bulk responses.
const Index = ".ds-logs-generic.otel-default-2026.11.30-000001"

// Paths of the sink's own endpoints.
const (
	StatsPath   = "/_sink/stats"   // GET: Stats as JSON
	CapturePath = "/_sink/capture" // POST: keep the next bulk body; GET: that body, uncompressed
)

// Stats counts what the sink received, from its start.
type Stats struct {
	Requests   int64  `json:"requests"`   // bulk requests answered
	Documents  int64  `json:"documents"`  // documents in them
	BodyBytes  int64  `json:"body_bytes"` // bytes of the bodies as sent (compressed)
	RawBytes   int64  `json:"raw_bytes"`  // bytes of the bodies uncompressed (CountLines only)
	Mismatches int64  `json:"mismatches"` // requests whose X-Elastic-Event-Count differs from the lines
	Errors     int64  `json:"errors"`     // requests refused: unreadable body, odd number of lines
	CPUNanos   int64  `json:"cpu_nanos"`  // CPU time of the sink's process (user and system)
	Count      string `json:"count_mode"` // "lines" or "header"
}

// Handler is the sink's HTTP handler. It is safe for concurrent use.
type Handler struct {
	mode    CountMode
	version string

	requests, documents, bodyBytes, rawBytes, mismatches, errs atomic.Int64

	bufs    sync.Pool // *[]byte of readSize
	readers sync.Pool // *gzip.Reader

	captureMu    sync.Mutex
	captureArmed bool
	captured     []byte
}

const readSize = 64 << 10

// NewHandler returns a sink that counts documents by mode and says it is Elasticsearch
// version (9.1.0 when empty).
func NewHandler(mode CountMode, version string) *Handler {
	if version == "" {
		version = "9.1.0"
	}
	return &Handler{mode: mode, version: version}
}

// Stats returns the counters of the handler; CPUNanos is the process's CPU time.
func (h *Handler) Stats() Stats {
	cpu, _ := cputime.Process() // 0 where the system does not tell
	return Stats{
		Requests:   h.requests.Load(),
		Documents:  h.documents.Load(),
		BodyBytes:  h.bodyBytes.Load(),
		RawBytes:   h.rawBytes.Load(),
		Mismatches: h.mismatches.Load(),
		Errors:     h.errs.Load(),
		CPUNanos:   cpu.Nanoseconds(),
		Count:      h.mode.String(),
	}
}

// The answer to a bulk request is `{"items":[` item, then ",item" for each other document,
// then `]}`, written from one long run of items so that answering allocates nothing.
const (
	item       = `{"create":{"_index":"` + Index + `","status":201}}`
	itemsStart = `{"items":[`
	itemsEnd   = `]}`
	runItems   = 1024
)

var itemRun = []byte(strings.Repeat(","+item, runItems))

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/_bulk" && r.Method == http.MethodPost:
		h.bulk(w, r)
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		_, _ = io.WriteString(w, `{"name":"bulksink","cluster_name":"bulksink","version":{"number":"`+h.version+
			`","build_flavor":"default"},"tagline":"You Know, for Search"}`)
	case r.URL.Path == "/_nodes/_local" && r.Method == http.MethodGet:
		_, _ = io.WriteString(w, `{"cluster_name":"bulksink","nodes":{"n1":{"version":"`+h.version+`"}}}`)
	case strings.HasPrefix(r.URL.Path, "/_index_template/_simulate_index/") && r.Method == http.MethodPost:
		_, _ = io.WriteString(w, `{"template":{"settings":{},"mappings":{"_data_stream_timestamp":{"enabled":true}},"aliases":{}},"overlapping":[]}`)
	case r.URL.Path == StatsPath && r.Method == http.MethodGet:
		_ = json.NewEncoder(w).Encode(h.Stats())
	case r.URL.Path == CapturePath && r.Method == http.MethodPost:
		h.captureMu.Lock()
		h.captureArmed, h.captured = true, nil
		h.captureMu.Unlock()
	case r.URL.Path == CapturePath && r.Method == http.MethodGet:
		h.captureMu.Lock()
		body := h.captured
		h.captureMu.Unlock()
		if body == nil {
			http.Error(w, `{"error":"nothing captured yet"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write(body)
	default:
		http.Error(w, `{"error":{"type":"not_found"}}`, http.StatusNotFound)
	}
}

func (h *Handler) bulk(w http.ResponseWriter, r *http.Request) {
	h.captureMu.Lock()
	capture := h.captureArmed
	h.captureArmed = false
	h.captureMu.Unlock()

	header, headerErr := strconv.Atoi(r.Header.Get("X-Elastic-Event-Count"))
	body := &CountingReader{R: r.Body}
	var docs int
	var err error
	if h.mode == CountLines || capture {
		var lines, raw int64
		var kept *bytes.Buffer
		if capture {
			kept = new(bytes.Buffer)
		}
		lines, raw, err = h.countLines(body, r.Header.Get("Content-Encoding") == "gzip", kept)
		switch {
		case err != nil:
		case lines%2 != 0:
			err = errors.New("odd number of lines: an action line without its document")
		default:
			docs = int(lines / 2)
			h.rawBytes.Add(raw)
			if headerErr == nil && header != docs {
				h.mismatches.Add(1)
			}
		}
		if kept != nil && err == nil {
			h.captureMu.Lock()
			h.captured = kept.Bytes()
			h.captureMu.Unlock()
		}
	} else {
		err = h.discard(body)
		if err == nil && headerErr != nil {
			err = errors.New("no X-Elastic-Event-Count header")
		}
		docs = header
	}
	h.bodyBytes.Add(body.N)
	if err != nil {
		h.errs.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"type":"parse_exception","reason":`+strconv.Quote(err.Error())+`},"status":400}`)
		return
	}
	h.requests.Add(1)
	h.documents.Add(int64(docs))
	writeItems(w, docs)
}

// writeItems answers n created documents.
func writeItems(w http.ResponseWriter, n int) {
	size := len(itemsStart) + len(itemsEnd)
	if n > 0 {
		size += len(item) + (n-1)*(len(item)+1)
	}
	w.Header().Set("Content-Length", strconv.Itoa(size))
	_, _ = io.WriteString(w, itemsStart)
	if n > 0 {
		_, _ = io.WriteString(w, item)
		for rest := n - 1; rest > 0; {
			k := min(rest, runItems)
			_, _ = w.Write(itemRun[:k*(len(item)+1)])
			rest -= k
		}
	}
	_, _ = io.WriteString(w, itemsEnd)
}

func (h *Handler) buffer() *[]byte {
	if b, ok := h.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, readSize)
	return &b
}

// countLines reads body to its end, gunzipped when gzipped, and returns the number of lines
// and of uncompressed bytes; kept, when not nil, receives the uncompressed bytes.
func (h *Handler) countLines(body io.Reader, gzipped bool, kept *bytes.Buffer) (lines, raw int64, err error) {
	src := body
	if gzipped {
		zr, _ := h.readers.Get().(*gzip.Reader)
		if zr == nil {
			zr, err = gzip.NewReader(body)
		} else {
			err = zr.Reset(body)
		}
		if err != nil {
			return 0, 0, err
		}
		defer h.readers.Put(zr)
		src = zr
	}
	buf := h.buffer()
	defer h.bufs.Put(buf)
	for {
		n, rerr := src.Read(*buf)
		lines += int64(bytes.Count((*buf)[:n], []byte{'\n'}))
		raw += int64(n)
		if kept != nil {
			kept.Write((*buf)[:n])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, 0, rerr
		}
	}
	if gzipped {
		// The gzip stream has ended; read what may follow it, so that the connection can be
		// reused.
		if err := h.discard(body); err != nil {
			return 0, 0, err
		}
	}
	return lines, raw, nil
}

func (h *Handler) discard(body io.Reader) error {
	buf := h.buffer()
	defer h.bufs.Put(buf)
	for {
		_, err := body.Read(*buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// CountingReader reads R and counts the bytes read in N.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
