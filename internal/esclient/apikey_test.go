// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension/extensionauth"
)

// The key of the create API key example in Elasticsearch's reference.
const (
	keyID      = "VuaCfGcBCdbkQm-e5aOx"
	keySecret  = "ui2lp2axTNmsyakw9tvNnw" //nolint:gosec // the published example of Elasticsearch's reference, not a credential
	keyEncoded = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
	// keyResponse is the create API key response, as Kibana's Dev Tools prints it.
	keyResponse = `{
  "id": "VuaCfGcBCdbkQm-e5aOx",
  "name": "my-api-key",
  "expiration": 1544068612110,
  "api_key": "ui2lp2axTNmsyakw9tvNnw",
  "encoded": "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
}`
)

// apiKeyForms are the forms of one key that users paste, each with what EncodeAPIKey makes of it.
var apiKeyFormsTests = []struct {
	name, key, want string
}{
	{"encoded", keyEncoded, keyEncoded},
	{"encoded_unpadded", "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw", keyEncoded},
	{"encoded_url_safe", "YWI6Yz4_", "YWI6Yz4/"}, // ab:c>?
	{"encoded_trailing_newline", keyEncoded + "\n", keyEncoded},
	{"id_and_key", keyID + ":" + keySecret, keyEncoded},
	{"id_and_key_spaces_around", "  " + keyID + ":" + keySecret + " ", keyEncoded},
	{"json_response", keyResponse, keyEncoded},
	{"json_without_encoded", `{"id":"` + keyID + `","name":"n","api_key":"` + keySecret + `"}`, keyEncoded},
	{"json_only_encoded", `{"encoded":"` + keyEncoded + `"}`, keyEncoded},
	{"empty", "", ""},
}

func TestEncodeAPIKey(t *testing.T) {
	for _, tt := range apiKeyFormsTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeAPIKey(tt.key)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Values that are no API key are refused with the reason and the forms expected, and the
// message never holds the value, nor the secret part of it.
func TestEncodeAPIKeyRefuses(t *testing.T) {
	tests := []struct {
		name, key, err string
	}{
		{"scheme_prefix", "ApiKey " + keyEncoded, "the value starts with `ApiKey `: give the key without it"},
		{"inner_space", keyID + ": " + keySecret, "the value holds whitespace"},
		{"inner_newline", keyEncoded[:20] + "\n" + keyEncoded[20:], "the value holds whitespace"},
		{"base64_without_colon", "bm8tY29sb24taGVyZQ==", "the value is base64, but it does not decode to `id:api_key`"}, // no-colon-here
		{"bearer_token", "dXNlcjpwYXNz.eyJzdWIiOiIxIn0.c2ln", "the value is neither base64 nor `id:api_key`"},
		{"empty_id", ":" + keySecret, "the id or the api_key around the `:` of `id:api_key` is empty"},
		{"empty_key", keyID + ":", "the id or the api_key around the `:` of `id:api_key` is empty"},
		{"encoded_empty_key", "YWJjOg==", "the id or the api_key around the `:` of `id:api_key` is empty"}, // abc:
		{"json_broken", `{"id": "` + keyID + `", "api_key": "` + keySecret, "the value starts with `{` but is not a JSON object"},
		{"json_without_fields", `{"name":"my-api-key","expiration":1544068612110}`, "the JSON has no `encoded`, and no `id` and `api_key`"},
		{"json_id_only", `{"id":"` + keyID + `"}`, "the JSON has only one of `id` and `api_key`"},
		{"json_number_field", `{"api_key": 12}`, "the value starts with `{` but is not a JSON object with string fields"},
		{"json_encoded_not_key", `{"encoded":"bm8tY29sb24taGVyZQ=="}`, "the JSON's `encoded`: the value is base64, but it does not decode"},
		{"json_mixed_keys", `{"id":"other","api_key":"` + keySecret + `","encoded":"` + keyEncoded + `"}`, "the JSON's `encoded` is not base64 of its `id:api_key`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EncodeAPIKey(tt.key)
			require.ErrorContains(t, err, tt.err)
			require.ErrorContains(t, err, "expected the `encoded` value of the create API key response (base64 of `id:api_key`), `id:api_key`, or that whole JSON response")
			for _, secret := range []string{keySecret, keyEncoded[:20], keyEncoded[20:40], "bm8tY29sb24taGVyZQ", "c2ln"} {
				assert.NotContains(t, err.Error(), secret)
			}
		})
	}
}

// What reaches the server, byte for byte, for each form: one Authorization header,
// "APIKey " (elastic-transport's spelling; Elasticsearch reads the scheme in any case) and the
// standard padded base64 of id:api_key.
func TestAPIKeyFormsOnTheWire(t *testing.T) {
	for _, tt := range apiKeyFormsTests {
		if tt.key == "" {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			got := authorizationSent(t, func(c *Config) { c.APIKey = tt.key }, testHost{})
			assert.Equal(t, []string{"APIKey " + tt.want}, got)
		})
	}
}

// A key in none of the forms is sent as it is (space around it dropped), as contrib sends it:
// the exporter's start-up line says so.
func TestAPIKeyInNoFormIsSentAsGiven(t *testing.T) {
	for _, key := range []string{"AvFsEiPs==", "ApiKey " + keyEncoded, `{"name": "my-api-key"}`} {
		t.Run(key, func(t *testing.T) {
			got := authorizationSent(t, func(c *Config) { c.APIKey = key + "\n" }, testHost{})
			assert.Equal(t, []string{"APIKey " + key}, got)
		})
	}
}

// headers::Authorization beside api_key or user/password: confighttp sets the headers on each
// request after the client set the Authorization header from the credentials, so the header's
// value is the only one sent.
func TestAuthorizationHeaderReplacesCredentials(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"api_key":       func(c *Config) { c.APIKey = keyEncoded },
		"user_password": func(c *Config) { c.User, c.Password = "elastic", "s3cret" },
	} {
		t.Run(name, func(t *testing.T) {
			got := authorizationSent(t, func(c *Config) {
				edit(c)
				c.HTTP.Headers = configopaque.MapList{{Name: "authorization", Value: "Bearer from-headers"}}
			}, testHost{})
			assert.Equal(t, []string{"Bearer from-headers"}, got)
		})
	}
}

// An authenticator extension beside api_key gets each request with the Authorization header
// set from api_key: one that sets the Authorization header replaces it, one that sets another
// header sends its header beside the ApiKey one.
func TestAuthenticatorBesideAPIKey(t *testing.T) {
	for _, tt := range []struct {
		header    string
		wantAuth  []string
		wantOther []string
	}{
		{"Authorization", []string{"Bearer from-extension"}, nil},
		{"X-Other-Token", []string{"APIKey " + keyEncoded}, []string{"Bearer from-extension"}},
	} {
		t.Run(tt.header, func(t *testing.T) {
			id := component.MustNewID("headerauth")
			host := authHost{id: headerAuth{header: tt.header, value: "Bearer from-extension"}}
			var other []string
			got := authorizationSentWith(t, func(c *Config) {
				c.APIKey = keyEncoded
				c.HTTP.Auth = configoptional.Some(configauth.Config{AuthenticatorID: id})
			}, host, func(h http.Header) { other = h.Values("X-Other-Token") })
			assert.Equal(t, tt.wantAuth, got)
			assert.Equal(t, tt.wantOther, other)
		})
	}
}

var _ extensionauth.HTTPClient = headerAuth{}
