// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cloud IDs in the formats Elastic documents and its Beats read: `[name:]base64(host[:port]$es_uuid[:port]$kibana_uuid[:port])`.
// The endpoint takes the port after es_uuid, else the one after host, else none (https: 443).
// The decoded value of each is in its comment.
func TestParseCloudID(t *testing.T) {
	const docsExample = "dXMtZWFzdC0xLmF3cy5mb3VuZC5pbyRjZWM2ZjI2MWE3NGJmMjRjZTMzYmI4ODExYjg0Mjk0ZiRjNmMyY2E2ZDA0MjI0OWFmMGNjN2Q3YTllOTYyNTc0Mw=="
	const docsEndpoint = "https://cec6f261a74bf24ce33bb8811b84294f.us-east-1.aws.found.io"
	tests := []struct {
		name string
		id   string
		want string
		err  string
	}{
		// us-east-1.aws.found.io$cec6f261a74bf24ce33bb8811b84294f$c6c2ca6d042249af0cc7d7a9e9625743, the example of
		// Elastic's "Configure the output for Elastic Cloud" pages.
		{"docs_example", "staging:" + docsExample, docsEndpoint, ""},
		{"without_name", docsExample, docsEndpoint, ""},
		{"empty_name", ":" + docsExample, docsEndpoint, ""},
		{"name_with_colon", "my:deployment:" + docsExample, docsEndpoint, ""}, // the base64 follows the last ':'
		{"unpadded", "staging:" + strings.TrimRight(docsExample, "="), docsEndpoint, ""},
		{"padding_partly_missing", "staging:" + strings.TrimSuffix(docsExample, "="), docsEndpoint, ""},
		// us-central1.gcp.cloud.es.io:9243$ac31ebb90241773157043c34fd26fd46$a4c06230e48c8fce7be88a074a3bb3e0
		{
			"host_port", "custom-port:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvOjkyNDMkYWMzMWViYjkwMjQxNzczMTU3MDQzYzM0ZmQyNmZkNDYkYTRjMDYyMzBlNDhjOGZjZTdiZTg4YTA3NGEzYmIzZTA=",
			"https://ac31ebb90241773157043c34fd26fd46.us-central1.gcp.cloud.es.io:9243", "",
		},
		// us-central1.gcp.cloud.es.io$ac31ebb90241773157043c34fd26fd46:9243$a4c06230e48c8fce7be88a074a3bb3e0:9244
		{
			"es_uuid_port", "different-es-kb-port:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvJGFjMzFlYmI5MDI0MTc3MzE1NzA0M2MzNGZkMjZmZDQ2OjkyNDMkYTRjMDYyMzBlNDhjOGZjZTdiZTg4YTA3NGEzYmIzZTA6OTI0NA==",
			"https://ac31ebb90241773157043c34fd26fd46.us-central1.gcp.cloud.es.io:9243", "",
		},
		// us-central1.gcp.cloud.es.io$ac31ebb90241773157043c34fd26fd46$a4c06230e48c8fce7be88a074a3bb3e0:9244
		{
			"only_kibana_port", "only-kb-set:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvJGFjMzFlYmI5MDI0MTc3MzE1NzA0M2MzNGZkMjZmZDQ2JGE0YzA2MjMwZTQ4YzhmY2U3YmU4OGEwNzRhM2JiM2UwOjkyNDQ=",
			"https://ac31ebb90241773157043c34fd26fd46.us-central1.gcp.cloud.es.io", "",
		},
		// us-central1.gcp.cloud.es.io:9243$ac31ebb90241773157043c34fd26fd46$a4c06230e48c8fce7be88a074a3bb3e0:9244
		{
			"host_and_kibana_port", "host-and-kb-set:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvOjkyNDMkYWMzMWViYjkwMjQxNzczMTU3MDQzYzM0ZmQyNmZkNDYkYTRjMDYyMzBlNDhjOGZjZTdiZTg4YTA3NGEzYmIzZTA6OTI0NA==",
			"https://ac31ebb90241773157043c34fd26fd46.us-central1.gcp.cloud.es.io:9243", "",
		},
		// us-central1.gcp.cloud.es.io$ac31ebb90241773157043c34fd26fd46$a4c06230e48c8fce7be88a074a3bb3e0$anotherid$andanother
		{
			"extra_parts", "extra-items:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvJGFjMzFlYmI5MDI0MTc3MzE1NzA0M2MzNGZkMjZmZDQ2JGE0YzA2MjMwZTQ4YzhmY2U3YmU4OGEwNzRhM2JiM2UwJGFub3RoZXJpZCRhbmRhbm90aGVy",
			"https://ac31ebb90241773157043c34fd26fd46.us-central1.gcp.cloud.es.io", "",
		},
		{"without_kibana", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMw==", "https://abc123.bar.cloud.es.io", ""},  // bar.cloud.es.io$abc123
		{"trailing_dollar", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMyQ=", "https://abc123.bar.cloud.es.io", ""}, // bar.cloud.es.io$abc123$
		{"host_port_443", "foo:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvOjQ0MyRhYmMxMjMkZGVmNDU2", "https://abc123.us-central1.gcp.cloud.es.io:443", ""},

		{"only_host", "foo:YmFyLmNsb3VkLmVzLmlv", "", "is not host$es_uuid$kibana_uuid"},                 // bar.cloud.es.io
		{"empty_host", "foo:JGFiYzEyMyRkZWY0NTY=", "", "is not host$es_uuid$kibana_uuid"},                // $abc123$def456
		{"empty_uuid", "foo:YmFyLmNsb3VkLmVzLmlvJCRkZWY0NTY=", "", "is not host$es_uuid$kibana_uuid"},    // bar.cloud.es.io$$def456
		{"empty_uuid_with_port", "foo:YmFyLmNsb3VkLmVzLmlvJDo5MjQzJGRlZg==", "", "does not form a URL"},  // bar.cloud.es.io$:9243$def
		{"bad_port", "foo:YmFyLmNsb3VkLmVzLmlvOnh5eiRhYmMxMjM=", "", "does not form a URL"},              // bar.cloud.es.io:xyz$abc123
		{"port_zero", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMzowJGRlZg==", "", "does not form a URL"},         // bar.cloud.es.io$abc123:0$def
		{"port_too_big", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMzo3MDAwMCRkZWY=", "", "does not form a URL"},  // bar.cloud.es.io$abc123:70000$def
		{"user_info", "foo:YmFyLmNsb3VkLmVzLmlvJGFiY0BldmlsLmV4YW1wbGUkZGVm", "", "does not form a URL"}, // bar.cloud.es.io$abc@evil.example$def
		{"path", "foo:YmFyLmNsb3VkLmVzLmlvL3BhdGgkYWJjMTIzJGRlZg==", "", "does not form a URL"},          // bar.cloud.es.io/path$abc123$def
		{"not_base64", "foo:%%%", "", "is not base64"},
		{"garbage_prefix", "staging:garbage" + docsExample, "", "is not base64"}, // Beats' own refusal case
		{"empty_after_name", "foo:", "", "is not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := parseCloudID(tt.id)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, u.String())
		})
	}
}

func TestEndpointURLsPrecedence(t *testing.T) {
	// ELASTICSEARCH_URL is only a fallback: a configured endpoint wins.
	t.Setenv(EnvURL, "http://from-env:9200")
	urls, err := Endpoints{Endpoint: "https://configured:9200"}.URLs()
	require.NoError(t, err)
	assert.Equal(t, []*url.URL{{Scheme: "https", Host: "configured:9200"}}, urls)
}

// A trailing slash is trimmed from the path, which the transport puts in front of each
// request's own (//_nodes/_local finds no handler), also before a query string; the query
// string is kept (QueryParams reads it).
func TestEndpointTrailingSlash(t *testing.T) {
	for in, want := range map[string]string{
		"https://es:9200/":                "https://es:9200",
		"https://es:9200/?routing=abc":    "https://es:9200?routing=abc",
		"https://es:9200/prefix/":         "https://es:9200/prefix",
		"https://es:9200/a%2Fb/?x=1":      "https://es:9200/a%2Fb?x=1",
		"https://es:9200/prefix?x=1":      "https://es:9200/prefix?x=1",
		"https://u:p@es:9200//?refresh=1": "https://u:p@es:9200?refresh=1",
	} {
		urls, err := Endpoints{Endpoint: in}.URLs()
		require.NoError(t, err, in)
		assert.Equal(t, want, urls[0].String(), in)
	}
}
