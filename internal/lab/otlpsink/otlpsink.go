// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package otlpsink is a stand-in for an OTLP/HTTP endpoint (such as Elasticsearch's /_otlp) that
// `make cost` runs in a process of its own behind core's otlphttp exporter, the reference its
// figures are compared with. It answers every POST of protobuf to /v1/logs, /v1/traces and
// /v1/metrics with the OTLP success response (status 200, an empty Export*ServiceResponse,
// Content-Type application/x-protobuf), after reading the body to its end, gunzipping it when
// it is gzipped, and counting what it holds: log records, spans and metric data points (of
// every metric type), the documents of the Elasticsearch exporter per signal, so that a run
// can check that everything sent arrived.
//
// It counts by walking the protobuf wire format down to the repeated fields it counts, without
// decoding the records, so that its own CPU stays small next to the collector's. A body that
// is not an export request it can walk is answered 400 and counted as an error; another
// content type than protobuf is answered 415.
package otlpsink // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/otlpsink"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/cputime"
)

// StatsPath is where GET answers the sink's Stats as JSON.
const StatsPath = "/_sink/stats"

// The OTLP/HTTP paths the sink answers, one per signal.
const (
	LogsPath    = "/v1/logs"
	TracesPath  = "/v1/traces"
	MetricsPath = "/v1/metrics"
)

// Stats counts what the sink received, from its start. The names of Documents, BodyBytes,
// RawBytes and CPUNanos in JSON are those of the bulk sink's stats.
type Stats struct {
	Requests   int64 `json:"requests"`    // export requests answered with success
	LogRecords int64 `json:"log_records"` // in the requests to /v1/logs
	Spans      int64 `json:"spans"`       // in the requests to /v1/traces
	DataPoints int64 `json:"data_points"` // in the requests to /v1/metrics, of every metric type
	Documents  int64 `json:"documents"`   // LogRecords + Spans + DataPoints
	BodyBytes  int64 `json:"body_bytes"`  // bytes of the bodies as sent (compressed)
	RawBytes   int64 `json:"raw_bytes"`   // bytes of the bodies uncompressed
	Gzipped    int64 `json:"gzipped"`     // requests whose body was gzipped
	Errors     int64 `json:"errors"`      // requests refused: unreadable body, not an export request
	CPUNanos   int64 `json:"cpu_nanos"`   // CPU time of the sink's process (user and system)
}

// Handler is the sink's HTTP handler. It is safe for concurrent use.
type Handler struct {
	requests, logRecords, spans, dataPoints, bodyBytes, rawBytes, gzipped, errs atomic.Int64

	bufs    sync.Pool // *bytes.Buffer
	readers sync.Pool // *gzip.Reader
}

// NewHandler returns a sink with its counters at zero.
func NewHandler() *Handler { return &Handler{} }

// Stats returns the counters of the handler; CPUNanos is the process's CPU time.
func (h *Handler) Stats() Stats {
	cpu, _ := cputime.Process() // 0 where the system does not tell
	s := Stats{
		Requests:   h.requests.Load(),
		LogRecords: h.logRecords.Load(),
		Spans:      h.spans.Load(),
		DataPoints: h.dataPoints.Load(),
		BodyBytes:  h.bodyBytes.Load(),
		RawBytes:   h.rawBytes.Load(),
		Gzipped:    h.gzipped.Load(),
		Errors:     h.errs.Load(),
		CPUNanos:   cpu.Nanoseconds(),
	}
	s.Documents = s.LogRecords + s.Spans + s.DataPoints
	return s
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case StatsPath:
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h.Stats())
	case LogsPath:
		h.export(w, r, countRecords, &h.logRecords)
	case TracesPath:
		h.export(w, r, countRecords, &h.spans)
	case MetricsPath:
		h.export(w, r, countDataPoints, &h.dataPoints)
	default:
		http.Error(w, "not an OTLP/HTTP path: "+r.URL.Path, http.StatusNotFound)
	}
}

func (h *Handler) export(w http.ResponseWriter, r *http.Request, count func([]byte) (int64, error), counter *atomic.Int64) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/x-protobuf" {
		h.errs.Add(1)
		http.Error(w, "only application/x-protobuf is accepted, not "+strconv.Quote(r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	buf := h.buffer()
	defer h.bufs.Put(buf)
	sent, err := h.read(buf, r)
	h.bodyBytes.Add(sent)
	var n int64
	if err == nil {
		n, err = count(buf.Bytes())
	}
	if err != nil {
		h.errs.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.rawBytes.Add(int64(buf.Len()))
	counter.Add(n)
	h.requests.Add(1)
	// An Export*ServiceResponse without partial_success: zero bytes of protobuf.
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

func (h *Handler) buffer() *bytes.Buffer {
	if b, ok := h.bufs.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

// read reads the body of r into buf, gunzipped when its Content-Encoding says gzip, and returns
// the bytes read from the wire.
func (h *Handler) read(buf *bytes.Buffer, r *http.Request) (int64, error) {
	body := &bulksink.CountingReader{R: r.Body}
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		_, err := buf.ReadFrom(body)
		return body.N, err
	case "gzip":
		h.gzipped.Add(1)
		zr, _ := h.readers.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(body)
		} else {
			err = zr.Reset(body)
		}
		if err != nil {
			return body.N, fmt.Errorf("gzip: %w", err)
		}
		defer h.readers.Put(zr)
		if _, err = buf.ReadFrom(zr); err != nil {
			return body.N, fmt.Errorf("gzip: %w", err)
		}
		// What may follow the gzip stream is read too, so that the connection can be reused.
		_, err = io.Copy(io.Discard, body)
		return body.N, err
	default:
		return body.N, errors.New("unsupported Content-Encoding " + strconv.Quote(enc) + ": gzip or none")
	}
}

// Field numbers of the OTLP protobuf messages (opentelemetry-proto): each Export*ServiceRequest
// holds resource_* (1), each Resource* holds scope_* (2), each Scope* holds the records (2);
// a Metric holds its data in gauge (5), sum (7), histogram (9), exponential_histogram (10) or
// summary (11), each of which holds data_points (1).
const (
	fieldResources  protowire.Number = 1
	fieldScopes     protowire.Number = 2
	fieldRecords    protowire.Number = 2
	fieldDataPoints protowire.Number = 1
)

var metricData = map[protowire.Number]bool{5: true, 7: true, 9: true, 10: true, 11: true}

// countRecords returns the records of an export request: the log records of an
// ExportLogsServiceRequest, the spans of an ExportTraceServiceRequest.
func countRecords(b []byte) (int64, error) { return walkRecords(b, nil) }

// countDataPoints returns the data points of an ExportMetricsServiceRequest.
func countDataPoints(b []byte) (int64, error) { return walkRecords(b, countMetricPoints) }

// walkRecords walks request → resources → scopes → records and returns the number of records,
// or, with inner, the sum of inner over them.
func walkRecords(b []byte, inner func([]byte) (int64, error)) (int64, error) {
	var n int64
	err := eachField(b, fieldResources, func(res []byte) error {
		return eachField(res, fieldScopes, func(scope []byte) error {
			return eachField(scope, fieldRecords, func(rec []byte) error {
				if inner == nil {
					n++
					return nil
				}
				k, err := inner(rec)
				n += k
				return err
			})
		})
	})
	return n, err
}

// countMetricPoints returns the data points of one Metric.
func countMetricPoints(m []byte) (int64, error) {
	var n int64
	err := eachFieldOf(m, func(num protowire.Number) bool { return metricData[num] }, func(data []byte) error {
		return eachField(data, fieldDataPoints, func([]byte) error {
			n++
			return nil
		})
	})
	return n, err
}

// eachField calls f with the bytes of each length-delimited field num of the message b.
func eachField(b []byte, num protowire.Number, f func([]byte) error) error {
	return eachFieldOf(b, func(n protowire.Number) bool { return n == num }, f)
}

// eachFieldOf calls f with the bytes of each length-delimited field of the message b whose
// number want accepts, skipping the other fields; it fails on bytes that are not protobuf.
func eachFieldOf(b []byte, want func(protowire.Number) bool, f func([]byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("not an OTLP export request: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.BytesType && want(num) {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return fmt.Errorf("not an OTLP export request: field %d: %w", num, protowire.ParseError(m))
			}
			if err := f(v); err != nil {
				return err
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return fmt.Errorf("not an OTLP export request: field %d: %w", num, protowire.ParseError(m))
		}
		b = b[m:]
	}
	return nil
}

// Main runs the sink as a command with the command-line arguments args: it listens, writes
// "otlpsink: listening on http://host:port" as its first line on stdout, and serves until ctx
// ends or, with -stdin, until stdin is closed (so that a child process ends with its parent).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("otlpsink", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	watchStdin := fs.Bool("stdin", false, "exit when stdin is closed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var in io.Reader
	if *watchStdin {
		in = stdin
	}
	return bulksink.Serve(ctx, *listen, NewHandler(), "otlpsink", "", in, stdout)
}
