// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// TestMalformedBulkResponses checks that answers a real Elasticsearch would not give become
// clear errors, and that no document is counted as indexed that was not.
func TestMalformedBulkResponses(t *testing.T) {
	tests := []struct {
		name          string
		answer        func(w http.ResponseWriter, n int)
		wantErr       string
		wantPermanent bool
	}{
		{
			name:    "not JSON",
			answer:  func(w http.ResponseWriter, _ int) { _, _ = io.WriteString(w, "<html>gateway says hello</html>") },
			wantErr: "documents not sent",
		},
		{
			name: "truncated",
			answer: func(w http.ResponseWriter, _ int) {
				_, _ = io.WriteString(w, `{"errors":false,"items":[{"create":{"_index":"x","sta`)
			},
			wantErr: "documents not sent",
		},
		{
			name:          "errors true and no items",
			answer:        func(w http.ResponseWriter, _ int) { _, _ = io.WriteString(w, `{"errors":true,"items":[]}`) },
			wantErr:       "bulk response has 0 items for 3 documents sent",
			wantPermanent: true,
		},
		{
			name: "fewer items than sent",
			answer: func(w http.ResponseWriter, n int) {
				_, _ = io.WriteString(w, `{"errors":false,"items":[`+strings.TrimSuffix(strings.Repeat(`{"create":{"_index":"x","status":201}},`, n-1), ",")+`]}`)
			},
			wantErr:       "bulk response has 2 items for 3 documents sent",
			wantPermanent: true,
		},
		{
			name: "redirect",
			answer: func(w http.ResponseWriter, _ int) {
				w.Header().Set("Location", "http://elsewhere.invalid/_bulk")
				w.WriteHeader(http.StatusFound)
			},
			wantErr:       "answered HTTP 302",
			wantPermanent: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakees.New(t)
			srv.Answer = func(w http.ResponseWriter, items []fakees.Item) bool {
				tt.answer(w, len(items))
				return true
			}
			set, tel := elasticsearchexporter.WithTelemetry(t)
			cfg := elasticsearchexporter.NewTestConfig(srv.URL)
			cfg.Retry.MaxRetries = 2
			exp := elasticsearchexporter.NewLogsExporter(t, cfg, set)
			err := exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(3))
			require.ErrorContains(t, err, tt.wantErr)
			assert.Equal(t, tt.wantPermanent, consumererror.IsPermanent(err))
			assert.Zero(t, countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", elasticsearchexporter.Fate("indexed")),
				"no document is counted as indexed")
			assert.Equal(t, int64(3), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", elasticsearchexporter.Fate("dropped"))+
				countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", elasticsearchexporter.Fate("rejected")),
				"every document is accounted for")
		})
	}
}

func TestTLSFailureIsPermanentAndSaysWhy(t *testing.T) {
	srv := fakees.NewTLS(t)
	cfg := elasticsearchexporter.NewTestConfig(srv.URL) // no CA: the test server's certificate is not trusted
	exp := elasticsearchexporter.NewLogsExporter(t, cfg, elasticsearchexporter.TestSettings())
	err := exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1))
	require.ErrorContains(t, err, "TLS certificate cannot be verified: the CA certificate it sent is \"O=Acme Co\", SHA-256 fingerprint ")
	assert.True(t, consumererror.IsPermanent(err))
}
