// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
)

// A server that refuses include_source_on_error has the request sent again at once without
// it (not a retry: this Indexer has none), and every later one too; its error reasons, which
// may then quote documents, stay out of the log.
func TestIncludeSourceRefusedFallsBack(t *testing.T) {
	var queries []url.Values
	c := clientFunc(func(req *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, req.Body)
		q := req.URL.Query()
		queries = append(queries, q)
		if q.Has("include_source_on_error") {
			return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(refusal))}, nil
		}
		return answerItems(itemCreated, `{"create":{"_index":"i","status":400,"error":{"type":"document_parsing_exception",`+
			`"reason":"failed to parse field [n] of type [long]. Preview of field's value: 'confidential'"}}}`)
	})
	core, logs := observer.New(zapcore.InfoLevel)
	tb, tel := newTelemetry(t)
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, Logger: zap.New(core), Telemetry: tb,
		IncludeSourceOnError: docappender.False,
	})
	require.NoError(t, err)

	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":"confidential"}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1, Rejected: 1}, res)
	require.Len(t, queries, 2)
	assert.Equal(t, "false", queries[0].Get("include_source_on_error"))
	assert.False(t, queries[1].Has("include_source_on_error"))
	assert.Zero(t, retried(t, tel), "the resend is not a retry")
	assert.Equal(t, map[string]int64{"success 200": 1}, countertest.SumBy(t, tel, "otelcol.elasticsearch.bulk_requests.count",
		"outcome", "http.response.status_code"), "the refused attempt and its resend are one request")
	assert.Equal(t, map[string]int64{"failed_client 400": 1, "success 200": 1}, requestCounts(t, tel))

	res, err = ix.Send(context.Background(), batchOf(`{"n":1}`, `{"n":"confidential"}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1, Rejected: 1}, res)
	require.Len(t, queries, 3, "later requests go without the parameter at once")
	assert.False(t, queries[2].Has("include_source_on_error"))

	assert.Equal(t, 1, logs.FilterMessageSnippet("refused the bulk parameter include_source_on_error").Len())
	for _, e := range logs.All() {
		assert.NotContains(t, fmt.Sprintf("%s %v", e.Message, e.ContextMap()), "confidential")
	}
}

// Other 400 answers to a whole request are not taken for the refusal.
func TestIncludeSourceRefusalIsRecognized(t *testing.T) {
	for body, want := range map[string]bool{
		refusal: true,
		`{"error":{"type":"illegal_argument_exception","reason":"request [/_bulk] contains unrecognized parameter: [foo]"},"status":400}`: false,
		`{"error":{"type":"parse_exception","reason":"include_source_on_error"},"status":400}`:                                            false,
		`<html>Bad Request</html>`: false,
	} {
		assert.Equal(t, want, refusesIncludeSource(body), body)
	}
}
