// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package fakees

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const threeItems = `{"create":{"_index":"a","_id":"x"}}
{"n":0}
{"create":{"_index":"a","_id":"x"}}
{"n":1}
{"create":{"_index":"b","_id":"x"}}
{"n":2}
`

// Each item is answered in order; a create whose _id the index already holds is a conflict.
func TestBulkAnswersEachItem(t *testing.T) {
	for _, gzipped := range []bool{false, true} {
		s := New(t)
		status, _, answer := post(t, s, threeItems, "3", gzipped)
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, true, answer["errors"])
		var statuses []float64
		for _, it := range answer["items"].([]any) {
			statuses = append(statuses, it.(map[string]any)["create"].(map[string]any)["status"].(float64))
		}
		assert.Equal(t, []float64{201, 409, 201}, statuses)

		accepted := s.Accepted()
		require.Len(t, accepted, 2)
		assert.Equal(t, "a", accepted[0].Index())
		assert.Equal(t, "x", accepted[0].ID())
		assert.JSONEq(t, `{"n":2}`, string(accepted[1].Document))
		assert.Equal(t, "false", accepted[0].Query.Get("refresh"))
		assert.Equal(t, map[string]int{"x": 2}, s.AcceptedIDs())
		assert.Equal(t, map[string]int{"x": 1}, s.Conflicts())
		assert.Equal(t, Stats{Received: 1, Requests: 1, Accepted: 2, Conflicts: 1}, s.Stats())
		require.Len(t, s.Bodies(), 1)
		assert.True(t, bytes.Equal([]byte(threeItems), s.Bodies()[0]), "the body, decompressed: %q", s.Bodies()[0])
	}
}

// Bodies that Elasticsearch would refuse are answered 400 and recorded nowhere.
func TestBulkRefusesBadBodies(t *testing.T) {
	for _, tc := range []struct{ name, body, events string }{
		{name: "event count", body: threeItems, events: "2"},
		{name: "action line", body: "{\n{}\n"},
		{name: "no source line", body: `{"create":{}}` + "\n"},
		{name: "source line", body: `{"create":{}}` + "\n{\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t)
			status, _, answer := post(t, s, tc.body, tc.events, false)
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Equal(t, "parse_exception", answer["error"].(map[string]any)["type"])
			assert.Zero(t, s.Requests())
			assert.Equal(t, Stats{Received: 1}, s.Stats())
		})
	}
}

// NewTLS serves the same answers on HTTPS, to a client that trusts its certificate.
func TestTLS(t *testing.T) {
	s := NewTLS(t)
	require.True(t, strings.HasPrefix(s.URL, "https://"), s.URL)
	status, _, answer := post(t, s, threeItems, "3", false)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, true, answer["errors"])
	assert.Len(t, s.Accepted(), 2)
}

// With SnappyAnswersNothing, a snappy bulk request is answered 200 without items and nothing
// of it is kept; a gzipped one is answered as usual.
func TestSnappyAnswersNothing(t *testing.T) {
	s := New(t)
	s.SnappyAnswersNothing = true
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/_bulk", strings.NewReader("not snappy at all"))
	require.NoError(t, err)
	req.Header.Set("Content-Encoding", "snappy")
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"took":0,"errors":false,"items":[]}`, string(raw))
	assert.Equal(t, Stats{Received: 1}, s.Stats())
	assert.Nil(t, s.LastRequest())

	status, _, _ := post(t, s, threeItems, "3", true)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 2, s.Stats().Received)
	assert.Len(t, s.Accepted(), 2)
}

// Request-level answers: a body over MaxRequestBytes, an OnRequest hook with Retry-After, and
// an outage.
func TestBulkRequestFaults(t *testing.T) {
	s := New(t)
	s.SetFaults(Faults{MaxRequestBytes: 10})
	status, _, _ := post(t, s, threeItems, "", false)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Equal(t, 1, s.Stats().TooLarge)

	s.SetFaults(Faults{})
	s.RetryAfter = "3"
	s.OnRequest = func(*http.Request, []Item) int { return http.StatusTooManyRequests }
	status, header, _ := post(t, s, threeItems, "", false)
	assert.Equal(t, http.StatusTooManyRequests, status)
	assert.Equal(t, "3", header.Get("Retry-After"))

	s.OnRequest = nil
	s.StartOutage(time.Hour)
	assert.True(t, s.InOutage())
	status, _, answer := post(t, s, threeItems, "", false)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "cluster_block_exception", answer["error"].(map[string]any)["type"])
	assert.Equal(t, Stats{Received: 2, Requests: 2, TooLarge: 1, OutageAnswers: 1}, s.Stats())
	assert.Empty(t, s.Accepted())
}

// Item faults are drawn from the seed: the same seed fails the same items.
func TestItemFaultsFollowTheSeed(t *testing.T) {
	failed := func() []int {
		s := New(t)
		s.SetFaults(Faults{Seed: 7, ItemStatusRate: 0.5})
		var body strings.Builder
		for range 20 {
			body.WriteString(`{"create":{"_index":"a"}}` + "\n{}\n")
		}
		_, _, answer := post(t, s, body.String(), "", false)
		var out []int
		for i, it := range answer["items"].([]any) {
			if it.(map[string]any)["create"].(map[string]any)["status"].(float64) == http.StatusTooManyRequests {
				out = append(out, i)
			}
		}
		assert.Equal(t, len(out), s.Stats().ItemFaults)
		return out
	}
	first := failed()
	assert.NotEmpty(t, first)
	assert.Less(t, len(first), 20)
	assert.Equal(t, first, failed())
}

func TestVersionEndpoints(t *testing.T) {
	s := New(t)
	s.Version = "8.19.0"
	for path, want := range map[string]string{"/": `"number":"8.19.0"`, "/_nodes/_local": `"version":"8.19.0"`} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, http.NoBody)
		require.NoError(t, err)
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, "Elasticsearch", resp.Header.Get("X-Elastic-Product"))
		assert.Contains(t, string(raw), want)
	}
}

// The shapes of answers no Elasticsearch gives, for the exporter's bounds: an item answered
// byte for byte as a hook says (and not stored), a request-level failure with a body of the
// hook's choosing, and a successful answer padded before its items.
func TestUnusualAnswers(t *testing.T) {
	s := New(t)
	s.OnItem = func(it Item) Response {
		if it.Index() == "b" {
			return Response{Raw: `{"create":{"_index":"b","status":200}}`}
		}
		return Response{}
	}
	status, _, answer := post(t, s, threeItems, "", false)
	require.Equal(t, http.StatusOK, status)
	items := answer["items"].([]any)
	require.Len(t, items, 3)
	assert.Equal(t, map[string]any{"create": map[string]any{"_index": "b", "status": float64(200)}}, items[2])
	assert.Len(t, s.Accepted(), 1, "the raw answer stores nothing; the second item is a 409")

	s.SetFaults(Faults{ResponsePadding: 1 << 20})
	status, _, answer = post(t, s, `{"create":{"_index":"c"}}`+"\n{}\n", "", false)
	require.Equal(t, http.StatusOK, status)
	assert.Len(t, answer["padding"], 1<<20)
	assert.Len(t, answer["items"], 1)

	s.SetFaults(Faults{})
	s.OnRequest = func(*http.Request, []Item) int { return http.StatusBadGateway }
	s.ErrorBody = func(int) io.Reader { return strings.NewReader("<html>bad gateway</html>") }
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/_bulk", strings.NewReader(threeItems))
	require.NoError(t, err)
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Equal(t, "<html>bad gateway</html>", string(body))
}

// Answer writes the whole answer of a bulk request, and nothing of it is stored.
func TestAnswerHook(t *testing.T) {
	s := New(t)
	s.Answer = func(w http.ResponseWriter, items []Item) bool {
		if items[0].Index() != "a" {
			return false
		}
		_, _ = io.WriteString(w, `{"errors":false,"items":[]}`)
		return true
	}
	status, _, answer := post(t, s, threeItems, "", false)
	require.Equal(t, http.StatusOK, status)
	assert.Empty(t, answer["items"], "the hook's answer, not the server's")
	assert.Empty(t, s.Accepted())
	assert.Zero(t, s.Requests())

	status, _, answer = post(t, s, `{"create":{"_index":"c"}}`+"\n{}\n", "", false)
	require.Equal(t, http.StatusOK, status)
	assert.Len(t, answer["items"], 1, "declined: the server answers")
	assert.Len(t, s.Accepted(), 1)
}

// With KeepNothing only the counts are kept, and an _id is not checked.
func TestKeepNothing(t *testing.T) {
	s := New(t)
	s.KeepNothing = true
	status, _, answer := post(t, s, threeItems, "3", false)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, false, answer["errors"])
	assert.Empty(t, s.Accepted())
	assert.Empty(t, s.Bodies())
	assert.Nil(t, s.LastRequest())
	assert.Empty(t, s.AcceptedIDs())
	assert.Equal(t, map[string]int{"a": 2, "b": 1}, s.AcceptedPerIndex())
	assert.Equal(t, Stats{Received: 1, Requests: 1, Accepted: 3}, s.Stats())
}

// An outage answers 503 until EndOutage.
func TestEndOutage(t *testing.T) {
	s := New(t)
	s.StartOutage(time.Hour)
	require.True(t, s.InOutage())
	status, _, _ := post(t, s, threeItems, "", false)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	s.EndOutage()
	assert.False(t, s.InOutage())
	status, _, _ = post(t, s, threeItems, "", false)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, s.AcceptedPerIndex())
}
