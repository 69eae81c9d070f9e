// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompactClientPassesErrorAnswersOn(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusTooManyRequests} {
		c := &compactClient{next: stubStatus(status, `{"items":[{"create":{"_index":"a","status":201}}]}`)}
		resp, err := c.Perform(httptest.NewRequest(http.MethodPost, "/_bulk", nil))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		assert.True(t, bytes.Equal([]byte(`{"items":[{"create":{"_index":"a","status":201}}]}`), b), "status %d: passed on byte for byte, got %s", status, b)
	}
	failing := &compactClient{next: clientFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(io.MultiReader(strings.NewReader(`{"items":[`), errReader{errors.New("connection reset")}))}, nil
	})}
	resp, err := failing.Perform(httptest.NewRequest(http.MethodPost, "/_bulk", nil))
	require.NoError(t, err)
	_, err = io.ReadAll(resp.Body)
	assert.EqualError(t, err, "connection reset", "a body that fails to read still fails for docappender")
}
