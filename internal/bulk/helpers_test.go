// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
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
