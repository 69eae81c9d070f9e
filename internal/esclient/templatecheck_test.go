// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

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
	checksDone(t, tc)
	warns := logs.FilterMessageSnippet("No index template matches data stream").
		Filter(func(e observer.LoggedEntry) bool { return e.ContextMap()["data_stream"] != lastName }).All()
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
			var asked atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
				if r.URL.Path == "/_index_template/_simulate_index/"+lastName {
					return // asked by checksDone after the checks under test
				}
				asked.Add(1)
				assert.Equal(t, "/_index_template/_simulate_index/logs-a.otel-default", r.URL.Path)
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			c, logs := newTestClient(t, testConfig(srv.URL))
			tc := runChecker(t, c)
			tc.Observe("logs-a.otel-default")
			tc.Observe("logs-a.otel-default")
			checksDone(t, tc)
			assert.Equal(t, int64(1), asked.Load(), "a data stream is checked once")
			all := logs.Filter(func(e observer.LoggedEntry) bool {
				ds := e.ContextMap()["data_stream"]
				return ds != nil && ds != lastName
			}).All()
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
	checksDone(t, tc)
	assert.Equal(t, int64(1), asked.Load())
	assert.Equal(t, 1, logs.FilterMessageSnippet("`manage_index_templates`").Len())
	assert.Equal(t, zapcore.InfoLevel, logs.FilterMessageSnippet("`manage_index_templates`").All()[0].Level)
}

// Next returns the check's result after each data stream answered: passed while every data
// stream had a template with a data_stream section, failed from the first that had none on.
// A data stream that could not be checked gives no result.
func TestTemplateCheckReturnsResults(t *testing.T) {
	srv := fakees.New(t)
	srv.HasTemplate = func(name string) bool { return name != "logs-orphan.otel-default" }
	c, _ := newTestClient(t, testConfig(srv.URL))
	tc := NewTemplateChecker(c, c.logger)
	ctx := t.Context()
	next := func(name string) bool {
		t.Helper()
		tc.Observe(name)
		failed, ok := tc.Next(ctx)
		require.True(t, ok)
		return failed
	}
	assert.False(t, next("logs-a.otel-default"))
	assert.True(t, next("logs-orphan.otel-default"))
	assert.True(t, next("logs-b.otel-default"), "the check stays failed")

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, ok := tc.Next(done)
	assert.False(t, ok, "no result once the context has ended")
}
