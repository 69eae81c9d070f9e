// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package otlpsink

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.uber.org/goleak"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

// logsBody returns an ExportLogsServiceRequest of 2 resources, with 2 and 1 scopes, holding
// 3 + 1 + 2 = 6 log records with attributes and bodies, whose fields the count must skip.
func logsBody(t *testing.T) []byte {
	t.Helper()
	ld := plog.NewLogs()
	for _, scopes := range [][]int{{3, 1}, {2}} {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "svc")
		for _, n := range scopes {
			sl := rl.ScopeLogs().AppendEmpty()
			sl.Scope().SetName("scope")
			for i := range n {
				lr := sl.LogRecords().AppendEmpty()
				lr.Body().SetStr("hello")
				lr.Attributes().PutInt("i", int64(i))
			}
		}
	}
	b, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	require.NoError(t, err)
	return b
}

// tracesBody returns 5 spans, one with an event and a link, which are not spans.
func tracesBody(t *testing.T) []byte {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 5 {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("op")
		if i == 0 {
			sp.Events().AppendEmpty().SetName("event")
			sp.Links().AppendEmpty()
		}
	}
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	return b
}

// metricsBody returns one metric of each type: 2 gauge, 3 sum, 1 histogram, 2 exponential
// histogram and 1 summary data points, 9 in all, in two resources.
func metricsBody(t *testing.T) []byte {
	t.Helper()
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	g := ms.AppendEmpty()
	g.SetName("gauge")
	g.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(1)
	g.Gauge().DataPoints().AppendEmpty().SetIntValue(2)
	s := ms.AppendEmpty()
	s.SetName("sum")
	sum := s.SetEmptySum()
	for i := range 3 {
		sum.DataPoints().AppendEmpty().SetIntValue(int64(i))
	}
	ms2 := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	h := ms2.AppendEmpty()
	h.SetName("histogram")
	hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	hp.BucketCounts().FromRaw([]uint64{1, 2})
	hp.ExplicitBounds().FromRaw([]float64{1})
	e := ms2.AppendEmpty()
	e.SetName("exponential")
	e.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().SetCount(3)
	e.ExponentialHistogram().DataPoints().AppendEmpty().SetCount(4)
	sm := ms2.AppendEmpty()
	sm.SetName("summary")
	sm.SetEmptySummary().DataPoints().AppendEmpty().QuantileValues().AppendEmpty().SetQuantile(0.5)
	require.Equal(t, 9, md.DataPointCount())
	b, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	require.NoError(t, err)
	return b
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func post(h http.Handler, path, contentType, encoding string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// success checks the OTLP/HTTP success response and that it decodes as an export response
// without partial success.
func success(t *testing.T, rec *httptest.ResponseRecorder, decode func([]byte) error) {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/x-protobuf", rec.Header().Get("Content-Type"))
	require.NoError(t, decode(rec.Body.Bytes()))
}

func TestCountsEachSignal(t *testing.T) {
	h := NewHandler()
	logs, traces, metrics := logsBody(t), tracesBody(t), metricsBody(t)
	for _, enc := range []string{"", "gzip"} {
		body := func(b []byte) []byte {
			if enc == "gzip" {
				return gzipped(t, b)
			}
			return b
		}
		lr := plogotlp.NewExportResponse()
		success(t, post(h, LogsPath, "application/x-protobuf", enc, body(logs)), lr.UnmarshalProto)
		assert.Equal(t, int64(0), lr.PartialSuccess().RejectedLogRecords())
		tr := ptraceotlp.NewExportResponse()
		success(t, post(h, TracesPath, "application/x-protobuf", enc, body(traces)), tr.UnmarshalProto)
		mr := pmetricotlp.NewExportResponse()
		success(t, post(h, MetricsPath, "application/x-protobuf", enc, body(metrics)), mr.UnmarshalProto)
	}
	s := h.Stats()
	assert.Equal(t, int64(6), s.Requests)
	assert.Equal(t, int64(2*6), s.LogRecords)
	assert.Equal(t, int64(2*5), s.Spans)
	assert.Equal(t, int64(2*9), s.DataPoints)
	assert.Equal(t, int64(2*(6+5+9)), s.Documents)
	assert.Equal(t, int64(3), s.Gzipped)
	assert.Equal(t, int64(2*(len(logs)+len(traces)+len(metrics))), s.RawBytes)
	wire := int64(len(logs) + len(traces) + len(metrics) + len(gzipped(t, logs)) + len(gzipped(t, traces)) + len(gzipped(t, metrics)))
	assert.Equal(t, wire, s.BodyBytes)
	assert.Zero(t, s.Errors)
}

func TestRefusesWhatIsNotAnExportRequest(t *testing.T) {
	h := NewHandler()
	logs := logsBody(t)
	// Cut inside a record: the length of the last field runs past the end.
	assert.Equal(t, http.StatusBadRequest, post(h, LogsPath, "application/x-protobuf", "", logs[:len(logs)-3]).Code)
	assert.Equal(t, http.StatusBadRequest, post(h, LogsPath, "application/x-protobuf", "gzip", logs).Code, "not gzip")
	assert.Equal(t, http.StatusBadRequest, post(h, LogsPath, "application/x-protobuf", "zstd", logs).Code)
	assert.Equal(t, http.StatusUnsupportedMediaType, post(h, LogsPath, "application/json", "", []byte(`{}`)).Code)
	assert.Equal(t, http.StatusNotFound, post(h, "/v1/profiles", "application/x-protobuf", "", nil).Code)
	s := h.Stats()
	assert.Equal(t, int64(4), s.Errors)
	assert.Zero(t, s.Requests)
	assert.Zero(t, s.Documents)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, LogsPath, http.NoBody))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}

func TestEmptyRequestIsSuccess(t *testing.T) {
	h := NewHandler()
	lr := plogotlp.NewExportResponse()
	success(t, post(h, LogsPath, "application/x-protobuf", "", nil), lr.UnmarshalProto)
	assert.Equal(t, int64(1), h.Stats().Requests)
	assert.Zero(t, h.Stats().Documents)
}

// TestProcess runs the sink as a child process (this test binary, see TestMain), sends it a
// request and reads its stats.
func TestProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$") //nolint:gosec // the test binary itself, as the sink's child process
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	p, err := bulksink.Start(cmd)
	require.NoError(t, err)
	defer func() { assert.NoError(t, p.Stop()) }()
	resp, err := http.Post(p.URL+LogsPath, "application/x-protobuf", bytes.NewReader(logsBody(t)))
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Get(p.URL + StatsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	var s Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
	assert.Equal(t, int64(6), s.LogRecords)
	assert.Positive(t, s.CPUNanos)
}

const childEnv = "OTLPSINK_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := Main(context.Background(), []string{"-stdin"}, os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
