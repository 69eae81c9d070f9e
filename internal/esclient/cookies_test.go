// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The jar sends the cookies it keeps for the URL on a copy of the request, never on the
// request it is given, and keeps the cookies of each response.
func TestCookieJarLeavesTheRequestAlone(t *testing.T) {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	u, err := url.Parse("http://127.0.0.1:9200/_bulk")
	require.NoError(t, err)
	jar.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1"}}) //nolint:gosec // a Secure cookie is never sent to this plain-HTTP URL, which the test needs
	var sent string
	c := &cookieJar{jar: jar, next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = r.Header.Get("Cookie")
		h := http.Header{}
		h.Add("Set-Cookie", "b=2; Path=/")
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody, Request: r}, nil
	})}

	req, err := http.NewRequest(http.MethodPost, u.String(), http.NoBody)
	require.NoError(t, err)
	resp, err := c.RoundTrip(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "a=1", sent)
	assert.Empty(t, req.Header.Get("Cookie"), "the caller's request is not changed")

	_, err = c.RoundTrip(req)
	require.NoError(t, err)
	assert.Equal(t, "a=1; b=2", sent, "the response's cookie comes back")
}
