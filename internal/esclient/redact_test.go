// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://elastic:pw@es-1:9200", "http://elastic:xxxxx@es-1:9200"},
		{"https://elastic:p%40ss@es-1:9200/prefix", "https://elastic:xxxxx@es-1:9200/prefix"},
		{"http://elastic@es-1:9200", "http://elastic@es-1:9200"},
		{"http://es-1:9200", "http://es-1:9200"},
		// Unparsable, or parsed otherwise than meant.
		{"http://elastic:pw@es-1:92a0", "http://elastic:xxxxx@es-1:92a0"},
		{"http://elastic:pw@es 1:9200", "http://elastic:xxxxx@es 1:9200"},
		{"elastic:pw@es-1:9200", "elastic:xxxxx@es-1:9200"},
		{"https://elastic:p#w@es-1:9200", "https://elastic:xxxxx@es-1:9200"},
		{"http://elastic:12#pw@es-1:9200", "http://elastic:xxxxx@es-1:9200"},
		{"http://elastic:p/w@s@es-1:9200", "http://elastic:xxxxx@es-1:9200"},
		{"not a url", "not a url"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, RedactURL(tt.in), tt.in)
	}
}

// Endpoint errors quote the URL without its password, and still say what is wrong.
func TestEndpointErrorsAreRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://elastic:pw@es-1:92a0", "`endpoint`: invalid URL \"http://elastic:xxxxx@es-1:92a0\": invalid port \":92a0\" after host"},
		{"ftp://elastic:pw@es-1:9200", "`endpoint`: URL \"ftp://elastic:xxxxx@es-1:9200\" must start with http:// or https://"},
		{"elastic:pw@es-1:9200", "`endpoint`: URL \"elastic:xxxxx@es-1:9200\" must start with http:// or https://"},
		{"http://elastic:pw@", "`endpoint`: URL \"http://elastic:xxxxx@\" has no host"},
		{"https://elastic:pw#x@es-1:9200", "`endpoint`: invalid URL \"https://elastic:xxxxx@es-1:9200\": the user info holds a character that must be percent-encoded (such as # / ? @ or a space)"},
		{"http://elastic:12#pw@es-1:9200", "`endpoint`: invalid URL \"http://elastic:xxxxx@es-1:9200\": the user info holds a character that must be percent-encoded (such as # / ? @ or a space)"},
	}
	for _, tt := range tests {
		_, err := Endpoints{Endpoint: tt.in}.URLs()
		require.EqualError(t, err, tt.want, tt.in)
	}
}

// A *url.Error anywhere in an error's tree loses its URL's password, and a parse error its
// reason, which may quote a part of the password.
func TestRedactError(t *testing.T) {
	_, parseErr := url.Parse("http://elastic:pw@es-1:9x")    //nolint:staticcheck // invalid on purpose
	const withPassword = "http://elastic:pw@es-1:9200/_bulk" //nolint:gosec // the password to redact, not a credential
	getErr := &url.Error{Op: "Post", URL: withPassword, Err: errors.New("EOF")}
	err := redactError(errors.Join(fmt.Errorf("wrapped: %w", parseErr), getErr))
	assert.Equal(t, "wrapped: parse \"http://elastic:xxxxx@es-1:9x\": invalid port \":9x\" after host\n"+
		"Post \"http://elastic:xxxxx@es-1:9200/_bulk\": EOF", err.Error())
	require.NoError(t, redactError(nil))

	// As confighttp parses proxy_url. (url.Parse cuts the fragment first and quotes only
	// "https://elastic:secret": no '@' says that a password follows.)
	_, parseErr = url.ParseRequestURI("https://elastic:secret#x@es-1:9200")
	assert.Equal(t, "parse \"https://elastic:xxxxx@es-1:9200\": the user info holds a character that must be percent-encoded (such as # / ? @ or a space)",
		redactError(parseErr).Error())
}

// The client's errors never carry a password, even from a transport that puts the URL in them.
func TestPerformErrorsAreRedacted(t *testing.T) {
	cfg := testConfig("http://elastic:pw@127.0.0.1:1")
	sendThrough(&cfg, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: "Get", URL: "http://elastic:pw@" + r.URL.Host + r.URL.Path, Err: errors.New("refused")}
	}))
	c, _ := newTestClient(t, cfg)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", http.NoBody)
	require.NoError(t, err)
	_, err = c.Perform(req) //nolint:bodyclose // no response
	require.EqualError(t, err, "Get \"http://elastic:xxxxx@127.0.0.1:1/\": refused")
	assert.Equal(t, []string{"http://elastic:xxxxx@127.0.0.1:1"}, c.RedactedURLs())

	cfg = testConfig("http://127.0.0.1:1")
	cfg.HTTP.ProxyURL = "http://proxy:pw@proxy host:3128"
	_, err = New(context.Background(), cfg, testHost{}, componenttest.NewNopTelemetrySettings(), component.NewDefaultBuildInfo())
	require.EqualError(t, err, "building the HTTP client: parse \"http://proxy:xxxxx@proxy host:3128\": invalid character \" \" in host name")
}
