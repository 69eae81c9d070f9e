// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// runChecker starts a TemplateChecker over c, stopped when the test ends.
func runChecker(t *testing.T, c *Client) *TemplateChecker {
	t.Helper()
	tc := NewTemplateChecker(c, c.logger)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { tc.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return tc
}

func TestWarnsOnceWhenNoTemplateMatches(t *testing.T) {
	srv := fakees.New(t)
	srv.HasTemplate = func(name string) bool { return name == "logs-generic.otel-default" }
	c, logs := newTestClient(t, testConfig(srv.URL))
	tc := runChecker(t, c)
	// As three pushes would: each observes a data stream when it changes.
	for range 3 {
		tc.Observe("logs-generic.otel-default")
		tc.Observe("logs-orphan.otel-default")
		tc.Observe("logs-generic.otel-default")
	}
	require.Eventually(t, func() bool {
		return logs.FilterMessageSnippet("No index template matches data stream").Len() > 0
	}, 10*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond) // let any further check finish
	warns := logs.FilterMessageSnippet("No index template matches data stream").All()
	require.Len(t, warns, 1, "one warning per data stream, not per push")
	assert.Equal(t, "logs-orphan.otel-default", warns[0].ContextMap()["data_stream"])
}

func TestTemplateCheckAnswers(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		message string // logged once for the data stream; empty: nothing
	}{
		{"data_stream_template", http.StatusOK, `{"template":{"mappings":{"_data_stream_timestamp":{"enabled":true}}}}`, ""},
		{"no_data_stream_section", http.StatusOK, `{"template":{"mappings":{}}}`, "has no data_stream section"},
		{"no_template", http.StatusOK, `{}`, "No index template matches data stream"},
		{"no_privilege", http.StatusForbidden, `{"error":{"type":"security_exception"}}`, "Index template check not possible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked sync.WaitGroup
			asked.Add(1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
				assert.Equal(t, "/_index_template/_simulate_index/logs-a.otel-default", r.URL.Path)
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
				asked.Done()
			}))
			t.Cleanup(srv.Close)
			c, logs := newTestClient(t, testConfig(srv.URL))
			tc := runChecker(t, c)
			tc.Observe("logs-a.otel-default")
			tc.Observe("logs-a.otel-default")
			asked.Wait()
			require.Eventually(t, func() bool { return tt.message == "" || logs.FilterMessageSnippet(tt.message).Len() == 1 },
				10*time.Second, 5*time.Millisecond)
			time.Sleep(20 * time.Millisecond) // a second check would answer by now
			all := logs.Filter(func(e observer.LoggedEntry) bool { return e.ContextMap()["data_stream"] != nil }).All()
			if tt.message == "" {
				assert.Empty(t, all)
				return
			}
			assert.Len(t, all, 1)
		})
	}
}

// Credentials without the manage_index_templates cluster privilege are told once, at Info,
// naming it, and no further data stream is asked about.
func TestTemplateCheckNotPermittedIsToldOnce(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error":{"type":"security_exception"}}`)
	}))
	t.Cleanup(srv.Close)
	c, logs := newTestClient(t, testConfig(srv.URL))
	tc := runChecker(t, c)
	tc.Observe("logs-a.otel-default")
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("`manage_index_templates`").Len() == 1 },
		10*time.Second, 5*time.Millisecond)
	tc.Observe("logs-b.otel-default")
	tc.Observe("logs-c.otel-default")
	time.Sleep(50 * time.Millisecond) // a further check would answer by now
	assert.Equal(t, int64(1), asked.Load())
	assert.Equal(t, 1, logs.FilterMessageSnippet("`manage_index_templates`").Len())
	assert.Equal(t, zapcore.InfoLevel, logs.FilterMessageSnippet("`manage_index_templates`").All()[0].Level)
}
