// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.uber.org/zap/zapcore"
)

// A server that answers 401: the version check's warning says which credentials were sent (a
// user's name, an API key's id, the Authorization header of `headers`, or none), never the
// secret, and what to check.
func TestVersionCheck401NamesTheCredentials(t *testing.T) {
	const secret = "s3cret-part"
	tests := []struct {
		name     string
		userInfo string
		edit     func(*Config)
		want     []string
	}{
		{
			name: "user", edit: func(c *Config) { c.User, c.Password = "writer", secret },
			want: []string{`sent: user "writer" (` + "`user`/`password`)", "check `user` and `password`"},
		},
		{
			name: "api_key id:key", edit: func(c *Config) { c.APIKey = "VuaCfGcBCdbkQm-e5aOx:" + secret },
			want: []string{`sent: API key id "VuaCfGcBCdbkQm-e5aOx" (` + "`api_key`)", "check `api_key`"},
		},
		{
			name: "api_key encoded", edit: func(c *Config) {
				c.APIKey = base64.StdEncoding.EncodeToString([]byte("VuaCfGcBCdbkQm-e5aOx:" + secret))
			},
			want: []string{`sent: API key id "VuaCfGcBCdbkQm-e5aOx"`},
		},
		{
			name: "URL user info", userInfo: "urluser:" + secret + "@", edit: func(*Config) {},
			want: []string{`sent: user "urluser" from the endpoint URL`, "check the user and password in the endpoint URL"},
		},
		{name: "headers", edit: func(c *Config) {
			c.User, c.Password = "writer", secret
			c.HTTP.Headers = configopaque.MapList{{Name: "authorization", Value: "Bearer " + secret}}
		}, want: []string{"sent: the Authorization header of `headers`", "check the Authorization header under `headers`"}},
		{
			name: "none", edit: func(*Config) {},
			want: []string{"sent: none; set `user` and `password`, or `api_key`, or `auth::authenticator`"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":{"type":"security_exception","reason":"unable to authenticate"},"status":401}`)
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig(strings.Replace(srv.URL, "http://", "http://"+tt.userInfo, 1))
			tt.edit(&cfg)
			c, logs := newTestClient(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, ok := c.CheckServer(ctx)
			assert.False(t, ok)
			warnings := logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("version check").All()
			require.Len(t, warnings, 1)
			assert.Equal(t, "Elasticsearch version check failed with HTTP 401; documents are sent meanwhile, and the check is "+
				"repeated at growing intervals, up to every 10m0s", warnings[0].Message)
			line := fmt.Sprintf("%s %v", warnings[0].Message, warnings[0].ContextMap())
			t.Log(line)
			assert.Contains(t, line, "GET /: HTTP 401, the credentials were refused; ")
			for _, w := range tt.want {
				assert.Contains(t, line, w)
			}
			assert.Contains(t, line, "unable to authenticate", "the server's answer is quoted")
			assert.NotContains(t, line, secret)
		})
	}
}

// With an authenticator extension, the hint names its ID, and what the client set before it.
func TestUnauthorizedHintNamesTheExtension(t *testing.T) {
	cfg := testConfig("http://es:9200")
	cfg.HTTP.Auth = configoptional.Some(configauth.Config{AuthenticatorID: component.MustNewIDWithName("bearertokenauth", "es")})
	assert.Equal(t, `the credentials were refused; sent: what the authenticator extension "bearertokenauth/es" sets `+
		"(`auth::authenticator`); check the credentials of the extension \"bearertokenauth/es\"", unauthorizedHint(cfg, nil))
	cfg.APIKey = "abc:def"
	assert.Equal(t, `the credentials were refused; sent: what the authenticator extension "bearertokenauth/es" sets `+
		"(`auth::authenticator`), over API key id \"abc\" (`api_key`); check the credentials of the extension \"bearertokenauth/es\"",
		unauthorizedHint(cfg, nil))
}
