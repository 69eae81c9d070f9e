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
//   - CountLines decodes the body as a stream through reused buffers and counts its
//     newline-delimited lines, two per document (an action line and a document): the number
//     of documents comes from the body itself. It costs about as much CPU as decoding.
//   - CountHeader trusts the X-Elastic-Event-Count header that the exporter sets and reads the
//     compressed body into a reused buffer without decompressing it; a request without the
//     header is counted as CountLines counts.
//
// It decodes what Elasticsearch 9.x decodes, by Content-Encoding (case-insensitive): gzip
// (and x-gzip), deflate (and x-deflate; zlib or raw), snappy (the snappy framing format, read
// with klauspost's s2 reader, chunks of at most 64 KiB) and identity. Any other encoding
// (zstd, br, ...) is read as if there were none, as a node reads it (measured on 9.5.4 and
// 8.19.21): compressed bytes are then answered as a node answers them.
//
// Bodies it refuses get a node's error answer (400; its fields filtered by filter_path as a
// node filters them):
//
//   - an empty body: parse_exception "request body is required";
//   - a body of whitespace only, such as the exporter's snappy start-up check once decoded
//     (a snappy body of one "\n"): action_request_validation_exception "Validation Failed: 1:
//     no requests added;", which tells the exporter that the node decodes snappy;
//   - a body whose first byte other than whitespace cannot start a JSON object, such as
//     compressed bytes sent with an encoding a node does not decode or without
//     Content-Encoding: x_content_parse_exception "[1:1] Unrecognized token '...': was
//     expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')", the
//     token read as Jackson reads it (each byte a Latin-1 character, up to 256 of them, while
//     they are Java identifier parts), which tells the exporter that the node did not decode
//     it (a node may answer "[1:17] Invalid UTF-8 middle byte" instead, depending on the first
//     bytes: the sink does not);
//   - a body that does not end with a newline: illegal_argument_exception "The bulk request
//     must be terminated by a newline [\n]";
//   - a body that cannot be decoded, or of an odd number of lines: parse_exception (the sink's
//     own reasons; a node would say more).
//
// Only the first token of a body is checked: the lines after it are counted, not parsed.
// Neither mode keeps a body, except one request's when asked to capture it (see Handler).
package bulksink // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zlib"

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
	Errors     int64  `json:"errors"`     // requests refused (400): see the package doc
	CPUNanos   int64  `json:"cpu_nanos"`  // CPU time of the sink's process (user and system)
	Count      string `json:"count_mode"` // "lines" or "header"
	// Encodings counts the bulk requests by their Content-Encoding, answered or refused:
	// "none" (no header), "identity", "gzip", "deflate", "snappy", "other" (read as if none).
	// Encodings of no request are left out.
	Encodings map[string]int64 `json:"encodings,omitempty"`
}

// encoding is a Content-Encoding as Elasticsearch reads it.
type encoding int

const (
	encNone     encoding = iota // no Content-Encoding
	encIdentity                 // identity
	encGzip                     // gzip, x-gzip
	encDeflate                  // deflate, x-deflate: zlib or raw
	encSnappy                   // snappy: the snappy framing format
	encOther                    // any other: not decoded, the body is read as is
	encodings
)

var encodingNames = [encodings]string{"none", "identity", "gzip", "deflate", "snappy", "other"}

func parseEncoding(v string) encoding {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return encNone
	case strings.EqualFold(v, "identity"):
		return encIdentity
	case strings.EqualFold(v, "gzip"), strings.EqualFold(v, "x-gzip"):
		return encGzip
	case strings.EqualFold(v, "deflate"), strings.EqualFold(v, "x-deflate"):
		return encDeflate
	case strings.EqualFold(v, "snappy"):
		return encSnappy
	}
	return encOther
}

// Handler is the sink's HTTP handler. It is safe for concurrent use.
type Handler struct {
	mode    CountMode
	version string

	requests, documents, bodyBytes, rawBytes, mismatches, errs atomic.Int64
	byEncoding                                                 [encodings]atomic.Int64

	bufs          sync.Pool // *[]byte of readSize
	readers       sync.Pool // *gzip.Reader
	snappyReaders sync.Pool // *s2.Reader

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
	var byEncoding map[string]int64
	for e := range encodings {
		if n := h.byEncoding[e].Load(); n > 0 {
			if byEncoding == nil {
				byEncoding = map[string]int64{}
			}
			byEncoding[encodingNames[e]] = n
		}
	}
	return Stats{
		Requests:   h.requests.Load(),
		Documents:  h.documents.Load(),
		BodyBytes:  h.bodyBytes.Load(),
		RawBytes:   h.rawBytes.Load(),
		Mismatches: h.mismatches.Load(),
		Errors:     h.errs.Load(),
		CPUNanos:   cpu.Nanoseconds(),
		Count:      h.mode.String(),
		Encodings:  byEncoding,
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

	enc := parseEncoding(r.Header.Get("Content-Encoding"))
	h.byEncoding[enc].Add(1)
	header, headerErr := strconv.Atoi(r.Header.Get("X-Elastic-Event-Count"))
	body := &CountingReader{R: r.Body}
	var docs int
	var refusal *esError
	if h.mode == CountLines || capture || headerErr != nil {
		var kept *bytes.Buffer
		if capture {
			kept = new(bytes.Buffer)
		}
		scan, err := h.countLines(body, enc, kept)
		if err != nil {
			refusal = &esError{typ: "parse_exception", reason: err.Error()}
		} else {
			docs, refusal = scan.verdict()
		}
		if refusal == nil {
			h.rawBytes.Add(scan.raw)
			if headerErr == nil && header != docs {
				h.mismatches.Add(1)
			}
			if kept != nil {
				h.captureMu.Lock()
				h.captured = kept.Bytes()
				h.captureMu.Unlock()
			}
		}
	} else {
		if err := h.discard(body); err != nil {
			refusal = &esError{typ: "parse_exception", reason: err.Error()}
		}
		docs = header
	}
	h.bodyBytes.Add(body.N)
	if refusal != nil {
		h.errs.Add(1)
		refusal.write(w, r.URL.Query().Get("filter_path"))
		return
	}
	h.requests.Add(1)
	h.documents.Add(int64(docs))
	writeItems(w, docs)
}

// esError is an error answer of Elasticsearch to a whole request, status 400.
type esError struct {
	typ, reason string
}

// write answers the error as Elasticsearch does,
// {"error":{"root_cause":[{"type":...,"reason":...}],"type":...,"reason":...},"status":400},
// with the fields that filter_path (comma-separated paths) keeps when it is not empty: error
// (or error.*) keeps every field of error, error.root_cause, error.type, error.reason and
// status each their own; a filter that keeps none answers {}.
func (e *esError) write(w http.ResponseWriter, filterPath string) {
	type cause struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}
	type errorFields struct {
		RootCause []cause `json:"root_cause,omitempty"`
		Type      string  `json:"type,omitempty"`
		Reason    string  `json:"reason,omitempty"`
	}
	var answer struct {
		Error  *errorFields `json:"error,omitempty"`
		Status int          `json:"status,omitempty"`
	}
	keep := func(path string) bool { return filterKeeps(filterPath, path) }
	fields := errorFields{}
	if keep("error.root_cause") {
		fields.RootCause = []cause{{e.typ, e.reason}}
	}
	if keep("error.type") {
		fields.Type = e.typ
	}
	if keep("error.reason") {
		fields.Reason = e.reason
	}
	if fields.RootCause != nil || fields.Type != "" || fields.Reason != "" {
		answer.Error = &fields
	}
	if keep("status") {
		answer.Status = http.StatusBadRequest
	}
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(answer)
}

// filterKeeps tells whether filterPath keeps the field at path of an error answer.
func filterKeeps(filterPath, path string) bool {
	if filterPath == "" {
		return true
	}
	for p := range strings.SplitSeq(filterPath, ",") {
		p = strings.TrimSpace(p)
		if p == path || (strings.HasPrefix(path, "error.") && (p == "error" || p == "error.*")) {
			return true
		}
	}
	return false
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

// countLines reads body to its end, decoded by enc, and returns what it saw of the decoded
// bytes; kept, when not nil, receives them.
func (h *Handler) countLines(body io.Reader, enc encoding, kept *bytes.Buffer) (scan bodyScan, err error) {
	src := body
	switch enc {
	case encGzip:
		zr, _ := h.readers.Get().(*gzip.Reader)
		if zr == nil {
			zr, err = gzip.NewReader(body)
		} else {
			err = zr.Reset(body)
		}
		if err != nil {
			return scan, err
		}
		defer h.readers.Put(zr)
		src = zr
	case encSnappy:
		sr, _ := h.snappyReaders.Get().(*s2.Reader)
		if sr == nil {
			// The snappy framing format's chunks hold at most 64 KiB.
			sr = s2.NewReader(body, s2.ReaderMaxBlockSize(64<<10))
		} else {
			sr.Reset(body)
		}
		defer func() {
			sr.Reset(nil)
			h.snappyReaders.Put(sr)
		}()
		src = sr
	case encDeflate:
		// Not on the exporter's path: no reuse.
		if src, err = newDeflateReader(body); err != nil {
			return scan, err
		}
	}
	buf := h.buffer()
	defer h.bufs.Put(buf)
	for {
		n, rerr := src.Read(*buf)
		scan.add((*buf)[:n])
		if kept != nil {
			kept.Write((*buf)[:n])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return scan, rerr
		}
	}
	// A compressed stream has ended; read what may follow it, so that the connection can be
	// reused.
	return scan, h.discard(body)
}

// newDeflateReader reads a deflate body as Elasticsearch does (Netty's ZLIB_OR_NONE): zlib when
// its first two bytes are a zlib header, raw deflate otherwise.
func newDeflateReader(body io.Reader) (io.Reader, error) {
	br := bufio.NewReader(body)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// bodyScan is what the sink reads of a decoded bulk body as it streams by: its lines, its
// bytes, its last byte and, where a node begins to parse it, its first token.
type bodyScan struct {
	lines, raw int64
	last       byte
	started    bool   // a byte other than whitespace has been seen
	token      string // the first token, when it cannot start a JSON object
	line, col  int    // of the first token, from 0
}

// maxTokenLength is the length at which Jackson cuts the token of an "Unrecognized token" error.
const maxTokenLength = 256

func (s *bodyScan) add(p []byte) {
	s.lines += int64(bytes.Count(p, []byte{'\n'}))
	s.raw += int64(len(p))
	if len(p) > 0 {
		s.last = p[len(p)-1]
	}
	for i := 0; !s.started && i < len(p); i++ {
		switch p[i] {
		case ' ', '\t', '\r':
			s.col++
		case '\n':
			s.line, s.col = s.line+1, 0
		case '{':
			s.started = true
		default:
			s.started = true
			s.token = unrecognizedToken(p[i:])
		}
	}
}

// unrecognizedToken is the token that Jackson names in "Unrecognized token": the first byte,
// then the next ones while they are Java identifier parts, each byte a Latin-1 character, up
// to maxTokenLength (only within p).
func unrecognizedToken(p []byte) string {
	var b strings.Builder
	b.WriteRune(rune(p[0]))
	for i := 1; i < len(p) && i < maxTokenLength; i++ {
		r := rune(p[i])
		if !javaIdentifierPart(r) {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// javaIdentifierPart is Java's Character.isJavaIdentifierPart for the Latin-1 characters:
// letters, digits, currency symbols, connecting punctuation and the identifier-ignorable
// controls and format characters.
func javaIdentifierPart(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Sc, r) || unicode.Is(unicode.Pc, r) ||
		r <= 0x08 || (r >= 0x0e && r <= 0x1b) || (r >= 0x7f && r <= 0x9f) || unicode.Is(unicode.Cf, r)
}

// verdict is the documents of a body that was read to its end, or the answer of a node that
// refuses it.
func (s *bodyScan) verdict() (int, *esError) {
	switch {
	case s.raw == 0:
		return 0, &esError{typ: "parse_exception", reason: "request body is required"}
	case !s.started:
		return 0, &esError{typ: "action_request_validation_exception", reason: "Validation Failed: 1: no requests added;"}
	case s.token != "":
		return 0, &esError{typ: "x_content_parse_exception", reason: "[" + strconv.Itoa(s.line+1) + ":" + strconv.Itoa(s.col+1) +
			"] Unrecognized token '" + s.token + "': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"}
	case s.last != '\n':
		return 0, &esError{typ: "illegal_argument_exception", reason: "The bulk request must be terminated by a newline [\\n]"}
	case s.lines%2 != 0:
		return 0, &esError{typ: "parse_exception", reason: "odd number of lines: an action line without its document"}
	}
	return int(s.lines / 2), nil
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
