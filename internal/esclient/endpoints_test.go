// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCloudID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want string
		err  string
	}{
		{"with_name", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMyRkZWY0NTY=", "https://abc123.bar.cloud.es.io", ""},
		{"without_name", "YmFyLmNsb3VkLmVzLmlvJGFiYzEyMyRkZWY0NTY=", "https://abc123.bar.cloud.es.io", ""},
		{"unpadded", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMyRkZWY0NTY", "https://abc123.bar.cloud.es.io", ""},
		{"with_port", "foo:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvOjQ0MyRhYmMxMjMkZGVmNDU2", "https://abc123.us-central1.gcp.cloud.es.io:443", ""},
		{"without_kibana", "foo:YmFyLmNsb3VkLmVzLmlvJGFiYzEyMw==", "https://abc123.bar.cloud.es.io", ""}, // bar.cloud.es.io$abc123
		{"empty_host", "foo:JGFiYzEyMyRkZWY0NTY=", "", "is not host$es_uuid$kibana_uuid"},                // $abc123$def456
		{"empty_uuid", "foo:YmFyLmNsb3VkLmVzLmlvJCRkZWY0NTY=", "", "is not host$es_uuid$kibana_uuid"},    // bar.cloud.es.io$$def456
		{"bad_port", "foo:YmFyLmNsb3VkLmVzLmlvOnh5eiRhYmMxMjM=", "", "do not form a URL"},                // bar.cloud.es.io:xyz$abc123
		{"not_base64", "foo:%%%", "", "is not base64"},
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
