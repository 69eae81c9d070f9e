// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package fakees

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// post sends a bulk body, gzipped when asked, with the event count header when events is not
// empty, and returns the status and the decoded answer.
func post(t *testing.T, s *Server, body, events string, gzipped bool) (int, http.Header, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	if gzipped {
		gz := gzip.NewWriter(&buf)
		_, err := gz.Write([]byte(body))
		require.NoError(t, err)
		require.NoError(t, gz.Close())
	} else {
		buf.WriteString(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/_bulk?refresh=false", &buf)
	require.NoError(t, err)
	if gzipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if events != "" {
		req.Header.Set("X-Elastic-Event-Count", events)
	}
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var answer map[string]any
	require.NoError(t, json.Unmarshal(raw, &answer), "%s", raw)
	return resp.StatusCode, resp.Header, answer
}
