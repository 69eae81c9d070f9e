// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// Secrets of the credential tests, each set in one place.
const (
	urlPassword    = "url-Pa55"
	configPassword = "cfg-Pa55"
	apiKeyID       = "key-id"
	apiKeySecret   = "key-Secr3t"
	headerSecret   = "hdr-T0ken"
)

// The start-up lines about credentials name what each request carries: a fake Elasticsearch
// records the Authorization header of the bulk request, and the warnings logged at creation
// must name the same credentials. The elastic-transport client takes an endpoint URL's user
// info before `api_key` and `user`/`password` (with an empty password when the URL has
// none), and a `headers` Authorization replaces whatever the client set.
func TestStartupCredentialLinesMatchWhatIsSent(t *testing.T) {
	apiKey := base64.StdEncoding.EncodeToString([]byte(apiKeyID + ":" + apiKeySecret))
	basic := func(user, password string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	}
	userInfoLine := func(others, sent string) string {
		return "the endpoint URL carries user info and " + others + " is set too: each request carries " + sent +
			" (`Authorization: Basic …`), not " + others + ", as in contrib (the elastic-transport client takes a URL's user info first); " +
			"remove the user info from the URL, or " + others
	}
	tests := []struct {
		name       string
		userInfo   string // user[:password], or empty
		edit       func(*Config)
		wantHeader string
		wantLines  []string
		// wantPlain is what the line about credentials over plain http:// names.
		wantPlain string
	}{
		{
			name: "user info and api_key", userInfo: "urluser:" + urlPassword,
			edit:       func(c *Config) { c.Authentication.APIKey = configopaque.String(apiKey) },
			wantHeader: basic("urluser", urlPassword),
			wantPlain:  "the endpoint URL's user info is sent over plain http://",
			wantLines:  []string{userInfoLine("`api_key`", `user "urluser" and the URL's password`)},
		},
		{
			name: "user info and user/password", userInfo: "urluser:" + urlPassword,
			edit: func(c *Config) {
				c.Authentication.User, c.Authentication.Password = "cfguser", configPassword
			},
			wantHeader: basic("urluser", urlPassword),
			wantPlain:  "the endpoint URL's user info is sent over plain http://",
			wantLines:  []string{userInfoLine("`user`/`password`", `user "urluser" and the URL's password`)},
		},
		{
			name: "user info, api_key and user/password", userInfo: "urluser:" + urlPassword,
			edit: func(c *Config) {
				c.Authentication.APIKey = configopaque.String(apiKey)
				c.Authentication.User, c.Authentication.Password = "cfguser", configPassword
			},
			wantHeader: basic("urluser", urlPassword),
			wantPlain:  "the endpoint URL's user info is sent over plain http://",
			wantLines:  []string{userInfoLine("`api_key` and `user`/`password`", `user "urluser" and the URL's password`)},
		},
		{
			name: "user info without a password and api_key", userInfo: "urluser",
			edit:       func(c *Config) { c.Authentication.APIKey = configopaque.String(apiKey) },
			wantHeader: basic("urluser", ""),
			wantPlain:  "the endpoint URL's user info is sent over plain http://",
			wantLines:  []string{userInfoLine("`api_key`", `user "urluser" with an empty password (the URL has none)`)},
		},
		{
			name: "user info, api_key and an Authorization header", userInfo: "urluser:" + urlPassword,
			edit: func(c *Config) {
				c.Authentication.APIKey = configopaque.String(apiKey)
				c.Headers = configopaque.MapList{{Name: "Authorization", Value: configopaque.String("Bearer " + headerSecret)}}
			},
			wantHeader: "Bearer " + headerSecret,
			wantPlain:  "`headers::Authorization` is sent over plain http://",
			wantLines: []string{
				userInfoLine("`api_key`", `user "urluser" and the URL's password`),
				"`headers::Authorization` and the endpoint URL's user info are both set: the `headers::Authorization` value is sent, as in contrib " +
					"(confighttp sets the header on each request after the client set it from the endpoint URL's user info, and replaces it); " +
					"remove the endpoint URL's user info",
			},
		},
		{
			name: "api_key and user/password, no user info",
			edit: func(c *Config) {
				c.Authentication.APIKey = configopaque.String(apiKey)
				c.Authentication.User, c.Authentication.Password = "cfguser", configPassword
			},
			wantHeader: "APIKey " + apiKey,
			wantPlain:  "`api_key` is sent over plain http://",
			wantLines:  []string{"`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			url := srv.URL
			if tt.userInfo != "" {
				url = strings.Replace(url, "http://", "http://"+tt.userInfo+"@", 1)
			}
			cfg := newTestConfig(url, tt.edit)
			set, logs := observed()
			exp := newLogsExporter(t, cfg, set)
			require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
			require.NotNil(t, srv.LastRequest())
			assert.Equal(t, tt.wantHeader, srv.LastRequest().Header.Get("Authorization"))

			var got, plain []string
			for _, e := range logs.FilterLevelExact(zapcore.WarnLevel).All() {
				switch {
				case strings.Contains(e.Message, "sent over plain http://"):
					plain = append(plain, e.Message)
				case strings.Contains(e.Message, "user info") || strings.Contains(e.Message, "api_key") || strings.Contains(e.Message, "Authorization"):
					got = append(got, e.Message)
				}
			}
			assert.Equal(t, tt.wantLines, got)
			require.Len(t, plain, 1)
			assert.True(t, strings.HasPrefix(plain[0], tt.wantPlain), plain[0])
		})
	}
}

// No log line, error or telemetry attribute of a run shows a secret or an endpoint URL's user
// info, with credentials everywhere they can be set at once (the URL's user info, `user` and
// `password`, `api_key`, an Authorization header under `headers`), a server that answers 401
// (the hint that names the credentials sent) and then accepts, body logging and discovery on.
func TestCredentialsEverywhereAreNeverShown(t *testing.T) {
	apiKey := base64.StdEncoding.EncodeToString([]byte(apiKeyID + ":" + apiKeySecret))
	secrets := []string{urlPassword, "urluser:" + urlPassword, configPassword, apiKeySecret, apiKey, headerSecret}

	for _, withHeader := range []bool{false, true} {
		t.Run(fmt.Sprintf("header=%v", withHeader), func(t *testing.T) {
			srv := fakees.New(t)
			refuse := true
			srv.OnRequest = func(*http.Request, []fakees.Item) int {
				if refuse {
					return http.StatusUnauthorized
				}
				return 0
			}
			cfg := newTestConfig(strings.Replace(srv.URL, "http://", "http://urluser:"+urlPassword+"@", 1), func(c *Config) {
				c.Authentication.APIKey = configopaque.String(apiKey)
				c.Authentication.User, c.Authentication.Password = "cfguser", configPassword
				if withHeader {
					c.Headers = configopaque.MapList{{Name: "Authorization", Value: configopaque.String("Bearer " + headerSecret)}}
				}
				c.Discovery.OnStart = true
				c.Telemetry.LogRequestBody, c.Telemetry.LogResponseBody = true, true
				c.Retry.MaxRetries = 1
			})
			core, logs := observer.New(zapcore.DebugLevel)
			set, tel := withTelemetry(t)
			set.Logger = zap.New(core)
			exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
			require.NoError(t, err)
			require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
			errs := []error{exp.ConsumeLogs(context.Background(), testLogs(2))}
			refuse = false
			errs = append(errs, exp.ConsumeLogs(context.Background(), testLogs(2)))
			require.NoError(t, exp.Shutdown(context.Background()))

			require.NotEmpty(t, logs.All())
			var rm metricdata.ResourceMetrics
			require.NoError(t, tel.Reader.Collect(context.Background(), &rm))
			telemetry := fmt.Sprintf("%+v", rm)
			spans := fmt.Sprintf("%+v", tel.SpanRecorder.Ended())
			for _, secret := range secrets {
				for _, err := range errs {
					if err != nil {
						assert.NotContains(t, err.Error(), secret)
					}
				}
				for _, entry := range logs.All() {
					line := fmt.Sprintf("%s %v", entry.Message, entry.ContextMap())
					assert.NotContains(t, line, secret)
				}
				assert.NotContains(t, telemetry, secret)
				assert.NotContains(t, spans, secret)
			}
		})
	}
}

// With two endpoints, one whose URL has user info and one without, each carries its own
// credentials, and the start-up line says which.
func TestUserInfoOnOneEndpointOfTwo(t *testing.T) {
	apiKey := base64.StdEncoding.EncodeToString([]byte(apiKeyID + ":" + apiKeySecret))
	withInfo, without := fakees.New(t), fakees.New(t)
	cfg := newTestConfig("", func(c *Config) {
		c.Endpoints = []string{strings.Replace(withInfo.URL, "http://", "http://urluser:"+urlPassword+"@", 1), without.URL}
		c.Authentication.APIKey = configopaque.String(apiKey)
	})
	set, logs := observed()
	exp := newLogsExporter(t, cfg, set)
	for range 4 {
		require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(1)))
	}
	require.NotNil(t, withInfo.LastRequest())
	require.NotNil(t, without.LastRequest())
	assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("urluser:"+urlPassword)), withInfo.LastRequest().Header.Get("Authorization"))
	assert.Equal(t, "APIKey "+apiKey, without.LastRequest().Header.Get("Authorization"))
	assert.Equal(t, 1, logs.FilterMessage("the endpoint URL carries user info and `api_key` is set too: "+
		"each request to the 1 endpoint(s) whose URL has user info carries user \"urluser\" and the URL's password (`Authorization: Basic …`), "+
		"not `api_key` (which only requests to a node whose URL has no user info, such as one that discovery finds, carry), "+
		"as in contrib (the elastic-transport client takes a URL's user info first); remove the user info from the URL, or `api_key`").Len())
}
