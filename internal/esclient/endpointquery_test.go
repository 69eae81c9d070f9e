// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The query parameters of endpoint, endpoints and ELASTICSEARCH_URL, and the query strings
// refused, each with a message that names the setting.
func TestEndpointQueryParams(t *testing.T) {
	tests := []struct {
		name string
		ep   Endpoints
		env  string
		want url.Values
		err  string
	}{
		{name: "none", ep: Endpoints{Endpoint: "https://es:9200"}},
		{name: "empty", ep: Endpoints{Endpoint: "https://es:9200/?"}},
		{
			name: "endpoint", ep: Endpoints{Endpoint: "https://es:9200/prefix?routing=abc&refresh=wait_for"},
			want: url.Values{"routing": {"abc"}, "refresh": {"wait_for"}},
		},
		{
			name: "escaped", ep: Endpoints{Endpoint: "https://es:9200?routing=a%20b%26c&flag"},
			want: url.Values{"routing": {"a b&c"}, "flag": {""}},
		},
		{
			name: "pipeline", ep: Endpoints{Endpoint: "https://es:9200?pipeline=p"},
			want: url.Values{"pipeline": {"p"}},
		},
		{
			name: "endpoints_alike", ep: Endpoints{Endpoints: []string{"https://a:9200?routing=abc&timeout=1m", "https://b:9200/?timeout=1m&routing=abc"}},
			want: url.Values{"routing": {"abc"}, "timeout": {"1m"}},
		},
		{
			name: "env", env: "https://a:9200?routing=abc, https://b:9200?routing=abc",
			want: url.Values{"routing": {"abc"}},
		},
		{name: "cloudid", ep: Endpoints{CloudID: "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMw=="}},
		{
			name: "endpoints_differ", ep: Endpoints{Endpoints: []string{"https://a:9200?routing=abc", "https://b:9200?routing=xyz"}},
			err: "`endpoints`[1] has the query parameters \"routing=xyz\" and `endpoints`[0] \"routing=abc\": every bulk request carries the same parameters",
		},
		{
			name: "endpoints_one_without", ep: Endpoints{Endpoints: []string{"https://a:9200", "https://b:9200?routing=abc"}},
			err: "`endpoints`[1] has the query parameters \"routing=abc\" and `endpoints`[0] \"\"",
		},
		{
			name: "env_differ", env: "https://a:9200?routing=abc,https://b:9200",
			err: "ELASTICSEARCH_URL[1] has the query parameters \"\" and ELASTICSEARCH_URL[0] \"routing=abc\"",
		},
		{
			name: "filter_path", ep: Endpoints{Endpoint: "https://es:9200?filter_path=items.*.status"},
			err: "`endpoint`: the query parameter filter_path cannot be set in the URL: the exporter sets it from `bulk_response_filter_path`",
		},
		{
			name: "include_source_on_error", ep: Endpoints{Endpoints: []string{"https://a:9200?include_source_on_error=true"}},
			err: "`endpoints`[0]: the query parameter include_source_on_error cannot be set in the URL: the exporter sets it from `include_source_on_error`",
		},
		{
			name: "require_data_stream", env: "https://a:9200?require_data_stream=true",
			err: "ELASTICSEARCH_URL[0]: the query parameter require_data_stream cannot be set in the URL: the exporter sets it on each document",
		},
		{
			name: "repeated", ep: Endpoints{Endpoint: "https://es:9200?routing=a&routing=b"},
			err: "`endpoint`: the query parameter routing is given 2 times; give it once",
		},
		{
			name: "no_name", ep: Endpoints{Endpoint: "https://es:9200?=abc"},
			err: "`endpoint`: the query string \"=abc\" has a parameter without a name",
		},
		{
			name: "bad_escape", ep: Endpoints{Endpoint: "https://es:9200?routing=%zz"},
			err: "`endpoint`: the query string \"routing=%zz\" does not parse (invalid URL escape \"%zz\")",
		},
		{
			name: "semicolon", ep: Endpoints{Endpoint: "https://es:9200?routing=a;refresh=true"},
			err: "`endpoint`: the query string \"routing=a;refresh=true\" does not parse (invalid semicolon separator in query)",
		},
		{
			name: "bad_url", ep: Endpoints{Endpoints: []string{"https://a:9200?routing=a", "ftp://b"}},
			err: "`endpoints`[1]: URL \"ftp://b\" must start with http:// or https://",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvURL, tt.env)
			got, err := tt.ep.QueryParams()
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
