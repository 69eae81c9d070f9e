// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.uber.org/zap/zapcore"
)

// Credentials sent over plain http://, and a server certificate that is not verified, are
// warned about once, when the client is built, naming the keys.
func TestInsecureSettingsAreWarned(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want []string // the snippets of each expected warning; none: no warning
	}{
		{
			name: "user and password over http", edit: func(c *Config) { c.User, c.Password = "elastic", "pw" },
			want: []string{"`user`/`password` are sent over plain http:// to http://es-1:9200"},
		},
		{
			name: "api_key over http", edit: func(c *Config) { c.APIKey = "id:key" },
			want: []string{"`api_key` is sent over plain http:// to http://es-1:9200"},
		},
		{
			name: "password in the URL over http", edit: func(c *Config) { c.Endpoints.Endpoint = "http://elastic:pw@es-1:9200" },
			want: []string{"the endpoint URL's user info is sent over plain http:// to http://elastic:xxxxx@es-1:9200"},
		},
		{
			name: "api_key and user/password over http: only api_key is sent",
			edit: func(c *Config) { c.APIKey, c.User, c.Password = "id:key", "elastic", "pw" },
			want: []string{"`api_key` is sent over plain http:// to http://es-1:9200:"},
		},
		{
			name: "user info and api_key over http: only the user info is sent",
			edit: func(c *Config) { c.Endpoints.Endpoint, c.APIKey = "http://elastic:pw@es-1:9200", "id:key" },
			want: []string{"the endpoint URL's user info is sent over plain http://"},
		},
		{
			name: "Authorization header replaces api_key",
			edit: func(c *Config) {
				c.APIKey = "id:key"
				c.HTTP.Headers = configopaque.MapList{{Name: "Authorization", Value: "Bearer t"}}
			},
			want: []string{"`headers::Authorization` is sent over plain http://"},
		},
		{name: "Authorization header over http", edit: func(c *Config) {
			c.HTTP.Headers = configopaque.MapList{{Name: "authorization", Value: "Bearer t"}}
		}, want: []string{"`headers::authorization` is sent over plain http://"}},
		{name: "two endpoints, one over http", edit: func(c *Config) {
			c.Endpoints = Endpoints{Endpoints: []string{"https://es-1:9200", "http://es-2:9200"}}
			c.APIKey = "id:key"
		}, want: []string{"`api_key` is sent over plain http:// to http://es-2:9200"}},
		{name: "api_key over https", edit: func(c *Config) {
			c.Endpoints.Endpoint = "https://es-1:9200"
			c.APIKey = "id:key"
		}},
		{name: "no credentials over http", edit: func(*Config) {}},
		{name: "insecure_skip_verify", edit: func(c *Config) {
			c.Endpoints.Endpoint = "https://es-1:9200"
			c.HTTP.TLS.InsecureSkipVerify = true
		}, want: []string{"`tls::insecure_skip_verify` is true"}},
		{name: "both", edit: func(c *Config) {
			c.User, c.Password = "elastic", "pw"
			c.HTTP.TLS.InsecureSkipVerify = true
		}, want: []string{"`user`/`password` are sent over plain http://", "`tls::insecure_skip_verify` is true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig("http://es-1:9200")
			tt.edit(&cfg)
			_, logs := newTestClient(t, cfg)
			warnings := logs.FilterLevelExact(zapcore.WarnLevel).All()
			if assert.Len(t, warnings, len(tt.want)) {
				for i, w := range tt.want {
					assert.Contains(t, warnings[i].Message, w)
					assert.NotContains(t, warnings[i].Message, "pw")
				}
			}
		})
	}
}
