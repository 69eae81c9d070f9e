// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/elastic/go-docappender/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The endpoints' query parameters are on the URL of every bulk request that leaves: the first
// attempt, the retry of a document, the dead letter of a rejected one, and the resend without
// include_source_on_error to a server that refuses it. The Indexer's own parameters are there
// beside them, and the path stays /_bulk.
func TestQueryParamsOnEveryRequest(t *testing.T) {
	var urls []*url.URL
	c := clientFunc(func(req *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, req.Body)
		urls = append(urls, req.URL)
		switch len(urls) {
		case 1: // refused for include_source_on_error: resent without it
			return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(refusal))}, nil
		case 2: // doc 0 rejected (dead letter), doc 1 retried
			return answerItems(itemRejected, itemBusy)
		default: // the retry, and the dead letter
			return answerItems(itemCreated)
		}
	})
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d", Pipeline: "p",
		IncludeSourceOnError: docappender.False,
		Retry:                RetryConfig{Enabled: true, MaxRetries: 1, InitialInterval: 1},
		QueryParams:          url.Values{"routing": {"abc"}, "refresh": {"wait_for"}, "x": {"a b&c=d"}},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Indexed: 1, Rejected: 1, DeadLettered: 1}, res)

	require.Len(t, urls, 4)
	for i, u := range urls {
		assert.Equal(t, "/_bulk", u.Path, "request %d", i)
		q := u.Query()
		assert.Equal(t, []string{"abc"}, q["routing"], "request %d", i)
		assert.Equal(t, []string{"wait_for"}, q["refresh"], "request %d", i)
		assert.Equal(t, []string{"a b&c=d"}, q["x"], "request %d: a value is sent as it was written, escaped", i)
		assert.Equal(t, []string{"p"}, q["pipeline"], "request %d", i)
		assert.Equal(t, []string{AccountingFilterPath}, q["filter_path"], "request %d", i)
	}
	assert.Equal(t, "false", urls[0].Query().Get("include_source_on_error"))
	assert.False(t, urls[1].Query().Has("include_source_on_error"))
}

// Without query parameters the request carries only the Indexer's own.
func TestNoQueryParams(t *testing.T) {
	var query url.Values
	c := clientFunc(func(req *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, req.Body)
		query = req.URL.Query()
		return answerItems(itemCreated)
	})
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20})
	require.NoError(t, err)
	_, err = ix.Send(context.Background(), batchOf(`{"n":0}`))
	require.NoError(t, err)
	assert.Equal(t, url.Values{"filter_path": {AccountingFilterPath}}, query)
}
