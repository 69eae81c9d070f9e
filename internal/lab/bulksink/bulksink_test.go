// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulksink

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestCountLines(t *testing.T) {
	h := NewHandler(CountLines, "")
	for _, n := range []int{1, 7, 3000} {
		for _, gz := range []bool{false, true} {
			assert.Equal(t, n, items(t, post(t, h, bulkBody(t, n, gz), gz, strconv.Itoa(n))), "docs %d gzip %v", n, gz)
		}
	}
	// The lines count, not the header.
	assert.Equal(t, 5, items(t, post(t, h, bulkBody(t, 5, true), true, "4")))
	st := h.Stats()
	assert.Equal(t, int64(7), st.Requests)
	assert.Equal(t, int64(2*(1+7+3000)+5), st.Documents)
	assert.Equal(t, int64(1), st.Mismatches)
	assert.Positive(t, st.RawBytes)
	assert.Positive(t, st.BodyBytes)

	rec := post(t, h, []byte(`{"create":{}}`+"\n"), false, "")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, int64(1), h.Stats().Errors)
}

func TestCountHeader(t *testing.T) {
	h := NewHandler(CountHeader, "")
	body := bulkBody(t, 1500, true)
	assert.Equal(t, 1500, items(t, post(t, h, body, true, "1500")))
	st := h.Stats()
	assert.Equal(t, int64(1500), st.Documents)
	assert.Equal(t, int64(len(body)), st.BodyBytes)
	assert.Zero(t, st.RawBytes, "the body is not decompressed")
	// Without the header, the body is decoded and its lines counted.
	assert.Equal(t, 1500, items(t, post(t, h, body, true, "")))
	assert.Positive(t, h.Stats().RawBytes)
}

func TestCapture(t *testing.T) {
	h := NewHandler(CountHeader, "")
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + CapturePath)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	resp, err = http.Post(srv.URL+CapturePath, "", nil)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 3, items(t, post(t, h, bulkBody(t, 3, true), true, "3")))
	resp, err = http.Get(srv.URL + CapturePath)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, bulkBody(t, 3, false), got)
}

func TestStartupRequests(t *testing.T) {
	h := NewHandler(CountLines, "8.19.0")
	for _, tt := range []struct{ method, path, want string }{
		{http.MethodGet, "/", `"number":"8.19.0"`},
		{http.MethodGet, "/_nodes/_local", `"version":"8.19.0"`},
		{http.MethodPost, "/_index_template/_simulate_index/logs-generic.otel-default", `"_data_stream_timestamp"`},
		{http.MethodGet, StatsPath, `"count_mode":"lines"`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, http.NoBody))
		assert.Equal(t, http.StatusOK, rec.Code, tt.path)
		assert.Equal(t, "Elasticsearch", rec.Header().Get("X-Elastic-Product"), tt.path)
		assert.Contains(t, rec.Body.String(), tt.want, tt.path)
	}
}

// TestProcess runs the sink as a child process (this test binary, see TestMain) and stops it.
func TestProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$") //nolint:gosec // the test binary itself, as the sink's child process
	cmd.Env = append(os.Environ(), "BULKSINK_CHILD=-count=header -stdin")
	p, err := Start(cmd)
	require.NoError(t, err)
	resp, err := http.Post(p.URL+"/_bulk", "application/x-ndjson", bytes.NewReader(bulkBody(t, 2, false)))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "no X-Elastic-Event-Count: counted by its lines")
	st, err := http.Get(p.URL + StatsPath)
	require.NoError(t, err)
	var stats Stats
	require.NoError(t, json.NewDecoder(st.Body).Decode(&stats))
	_ = st.Body.Close()
	assert.Equal(t, int64(2), stats.Documents)
	require.NoError(t, p.Stop())
}

func TestMain(m *testing.M) {
	if args := os.Getenv("BULKSINK_CHILD"); args != "" {
		if err := Main(context.Background(), strings.Fields(args), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
