// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// Each form of API key that users paste reaches the real node as the key it is. With a node
// that can create API keys, a created key authenticates in each form. The test node cannot
// (its .security index cannot be created, docs/real-elasticsearch.md): there, the node's 401
// names the id it read from the header, which shows that it decoded the header the exporter
// sent as that key's id:api_key; the same pair sent unencoded, as contrib sends an id:api_key
// value, is answered "Illegal base64 character".
func TestAPIKeyFormsOnTheNode(t *testing.T) {
	es := estest.FromEnv(t)
	if es.User == "" {
		t.Skip("the node is configured with an API key, not a user that can create one")
	}
	status, body, err := es.Do(http.MethodPost, "/_security/api_key", map[string]any{"name": "apikey-forms"})
	require.NoError(t, err)
	var key struct {
		ID      string `json:"id"`
		APIKey  string `json:"api_key"`
		Encoded string `json:"encoded"`
	}
	created := status == http.StatusOK
	if created {
		require.NoError(t, json.Unmarshal(body, &key))
	} else {
		// The archive's answer, as docs/real-elasticsearch.md says.
		require.Equal(t, http.StatusBadRequest, status, string(body))
		require.Contains(t, string(body), "Unknown filter type [pattern_capture]")
		key.ID, key.APIKey = "VuaCfGcBCdbkQm-e5aOx", "ui2lp2axTNmsyakw9tvNnw" // Elasticsearch's reference example
		key.Encoded = base64.StdEncoding.EncodeToString([]byte(key.ID + ":" + key.APIKey))
		body = []byte(`{"id":"` + key.ID + `","name":"apikey-forms","api_key":"` + key.APIKey + `","encoded":"` + key.Encoded + `"}`)
	}
	forms := map[string]string{
		"encoded":    key.Encoded,
		"id_and_key": key.ID + ":" + key.APIKey,
		"json":       string(body),
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			status, answer := getWithAPIKey(t, es, form)
			if created {
				assert.Equal(t, http.StatusOK, status, answer)
				assert.Contains(t, answer, `"authentication_type":"api_key"`)
				return
			}
			assert.Equal(t, http.StatusUnauthorized, status)
			assert.Contains(t, answer, "apikey authentication for id "+key.ID+" encountered a failure")
		})
	}
	// headers::Authorization beside api_key: the header's value is what the node gets.
	t.Run("headers_authorization_beside", func(t *testing.T) {
		basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(es.User+":"+es.Password))
		status, answer := getWithAPIKey(t, es, "nobody:nothing", func(c *confighttp.ClientConfig) {
			c.Headers = configopaque.MapList{{Name: "Authorization", Value: configopaque.String(basic)}}
		})
		assert.Equal(t, http.StatusOK, status, answer)
		assert.Contains(t, answer, `"username":"`+es.User+`"`)
		assert.Contains(t, answer, `"authentication_type":"realm"`)
	})
	t.Run("unencoded_pair", func(t *testing.T) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, es.Endpoint+"/", http.NoBody)
		require.NoError(t, err)
		req.Header.Set("Authorization", "APIKey "+key.ID+":"+key.APIKey)
		resp, err := es.HTTP.Do(req)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Contains(t, string(answer), "API key: Illegal base64 character 2d") // the '-' of the id
	})
}

// getWithAPIKey asks the node who it authenticated (GET /_security/_authenticate) through the exporter's client, authenticated with key,
// and with the HTTP client settings edited by edits.
func getWithAPIKey(t *testing.T, es *estest.Client, key string, edits ...func(*confighttp.ClientConfig)) (int, string) {
	t.Helper()
	httpCfg := confighttp.NewDefaultClientConfig()
	httpCfg.TLS.CAFile = es.CACert
	for _, edit := range edits {
		edit(&httpCfg)
	}
	c, err := esclient.New(context.Background(), esclient.Config{
		HTTP:      httpCfg,
		Endpoints: esclient.Endpoints{Endpoint: es.Endpoint},
		APIKey:    key,
	}, componenttest.NewNopHost(), componenttest.NewNopTelemetrySettings(), component.NewDefaultBuildInfo())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close(context.Background())) })
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/_security/_authenticate", http.NoBody)
	require.NoError(t, err)
	resp, err := c.Perform(req)
	require.NoError(t, err)
	answer, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, string(answer)
}
