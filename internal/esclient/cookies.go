// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import "net/http"

// cookieJar keeps the cookies that Elasticsearch (or a proxy in front of it) sets, and sends
// them back, as an http.Client with a Jar does. The confighttp `cookies` setting gives the
// http.Client it builds a jar, but the elastic-transport client sends through the client's
// transport only, so the jar is applied here, around that transport.
type cookieJar struct {
	next http.RoundTripper
	jar  http.CookieJar
}

func (c *cookieJar) RoundTrip(req *http.Request) (*http.Response, error) {
	if cookies := c.jar.Cookies(req.URL); len(cookies) > 0 {
		// A RoundTripper must not change the request it is given.
		req = req.Clone(req.Context())
		for _, cookie := range cookies {
			req.AddCookie(cookie)
		}
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if cookies := resp.Cookies(); len(cookies) > 0 {
		c.jar.SetCookies(req.URL, cookies)
	}
	return resp, nil
}
