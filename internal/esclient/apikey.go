// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
)

// APIKeyForms names the forms EncodeAPIKey reads, for the errors that refuse an api_key.
const APIKeyForms = "expected the `encoded` value of the create API key response (base64 of `id:api_key`), " +
	"`id:api_key`, or that whole JSON response"

// EncodeAPIKey returns what follows `ApiKey ` in the Authorization header for an Elasticsearch API
// key given in one of the forms users paste: the `encoded` value of the create API key response
// (base64 of "id:api_key"; padding may be missing, the URL-safe alphabet is taken too, and the
// standard padded form is returned), "id:api_key" (base64-encoded here), or that whole JSON
// response (its `encoded`, else its `id` and `api_key`). Space around the key is dropped. An
// empty key returns "". Its errors say which forms are expected and never quote the key.
func EncodeAPIKey(key string) (string, error) {
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return "", nil
	case strings.HasPrefix(key, "{"):
		return encodeAPIKeyJSON(key)
	case strings.IndexFunc(key, unicode.IsSpace) >= 0:
		if scheme, _, _ := strings.Cut(key, " "); strings.EqualFold(scheme, "ApiKey") {
			return "", errors.New("the value starts with `ApiKey `: give the key without it, the exporter adds it; " + APIKeyForms)
		}
		return "", errors.New("the value holds whitespace, which no API key form does; " + APIKeyForms)
	case strings.Contains(key, ":"):
		if err := checkIDAndKey(key); err != nil {
			return "", err
		}
		return base64.StdEncoding.EncodeToString([]byte(key)), nil
	}
	decoded, ok := decodeBase64(key)
	if !ok {
		return "", errors.New("the value is neither base64 nor `id:api_key`; " + APIKeyForms)
	}
	if !strings.Contains(decoded, ":") {
		return "", errors.New("the value is base64, but it does not decode to `id:api_key` as an encoded API key does; " + APIKeyForms)
	}
	if err := checkIDAndKey(decoded); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString([]byte(decoded)), nil
}

// checkIDAndKey checks that pair, which holds a ':', has an id and a key around its first ':',
// where Elasticsearch splits it.
func checkIDAndKey(pair string) error {
	id, key, _ := strings.Cut(pair, ":")
	if id == "" || key == "" {
		return errors.New("the id or the api_key around the `:` of `id:api_key` is empty; " + APIKeyForms)
	}
	return nil
}

// decodeBase64 decodes s from standard or URL-safe base64, with its padding, part of it, or none.
func decodeBase64(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// encodeAPIKeyJSON reads the create API key response: its `encoded`, else `id` and `api_key`.
// When both are there, they must be the same key.
func encodeAPIKeyJSON(s string) (string, error) {
	var resp struct {
		ID      string `json:"id"`
		APIKey  string `json:"api_key"`
		Encoded string `json:"encoded"`
	}
	// The decoder's error is not returned: it may quote part of the key.
	if json.Unmarshal([]byte(s), &resp) != nil {
		return "", errors.New("the value starts with `{` but is not a JSON object with string fields; " + APIKeyForms)
	}
	pair := ""
	if resp.ID != "" || resp.APIKey != "" {
		pair = resp.ID + ":" + resp.APIKey
		if err := checkIDAndKey(pair); err != nil {
			return "", errors.New("the JSON has only one of `id` and `api_key`; " + APIKeyForms)
		}
	}
	switch {
	case resp.Encoded != "":
		if strings.HasPrefix(strings.TrimSpace(resp.Encoded), "{") {
			return "", errors.New("the JSON's `encoded` is JSON; " + APIKeyForms)
		}
		encoded, err := EncodeAPIKey(resp.Encoded)
		if err != nil {
			return "", errors.New("the JSON's `encoded`: " + err.Error())
		}
		if pair != "" && encoded != base64.StdEncoding.EncodeToString([]byte(pair)) {
			return "", errors.New("the JSON's `encoded` is not base64 of its `id:api_key`: they are parts of different keys; " + APIKeyForms)
		}
		return encoded, nil
	case pair != "":
		return base64.StdEncoding.EncodeToString([]byte(pair)), nil
	}
	return "", errors.New("the JSON has no `encoded`, and no `id` and `api_key`; " + APIKeyForms)
}
