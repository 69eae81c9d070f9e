// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
)

// The security answers below are those Elasticsearch 9.5.4 gives; the real node proves them in
// integrationtest/privileges_test.go.
func TestPrivilegeCheckNamesEachMissingPrivilege(t *testing.T) {
	srv, asked := privilegeServer(t, "9.5.4", http.StatusOK, `{"username":"writer","has_all_requested":false,`+
		`"cluster":{"monitor":false},"index":{"logs-*-*":{"auto_configure":true,"create_doc":false},`+
		`"otel-dead-letters":{"auto_configure":true,"create_doc":true}},"application":{}}`)
	cfg := testConfig(srv.URL)
	checks := &checkLog{}
	cfg.Checks = checks.record
	cfg.Writes = []Write{{Pattern: "logs-*-*", For: "logs"}, {Pattern: "logs-*-*", For: "span events"}, {Pattern: "otel-dead-letters", For: "dead letters"}}
	c, logs := newTestClient(t, cfg)
	_, ok := c.CheckServer(context.Background())
	require.True(t, ok)

	var req map[string]any
	require.NoError(t, json.Unmarshal(*asked, &req))
	assert.Equal(t, map[string]any{
		"cluster": []any{"monitor"},
		"index":   []any{map[string]any{"names": []any{"logs-*-*", "otel-dead-letters"}, "privileges": []any{"auto_configure", "create_doc"}}},
	}, req)

	var lines []string
	for _, e := range logs.FilterLevelExact(zapcore.WarnLevel).All() {
		lines = append(lines, e.Message)
	}
	assert.Equal(t, []string{
		"The credentials lack the cluster privilege `monitor`, which the version check (GET /) and node discovery need; " +
			`grant it with a role of user "writer": {"cluster":["monitor"]}`,
		"The credentials lack the index privilege `create_doc` on logs-*-*, which writing logs and span events needs; " +
			`Elasticsearch answers 403 to the bulk requests that write there. Grant it with a role of user "writer": ` +
			`{"indices":[{"names":["logs-*-*"],"privileges":["auto_configure","create_doc"]}]}`,
	}, lines)
	assert.Equal(t, map[Check]bool{CheckConnect: false, CheckAuth: false, CheckPrivileges: true, CheckVersion: false}, checks.get())
}

func TestPrivilegeCheckPassesSilently(t *testing.T) {
	srv, _ := privilegeServer(t, "9.5.4", http.StatusOK, `{"username":"writer","has_all_requested":true,`+
		`"cluster":{"monitor":true},"index":{"logs-*-*":{"auto_configure":true,"create_doc":true}}}`)
	cfg := testConfig(srv.URL)
	checks := &checkLog{}
	cfg.Checks = checks.record
	cfg.Writes = []Write{{Pattern: "logs-*-*", For: "logs"}}
	c, logs := newTestClient(t, cfg)
	_, ok := c.CheckServer(context.Background())
	require.True(t, ok)
	assert.Equal(t, 0, logs.FilterLevelExact(zapcore.WarnLevel).Len())
	assert.False(t, checks.get()[CheckPrivileges])
}

// A server that cannot answer the question (security disabled answers 500, a proxy 404) is said
// once at Debug, and the check is not recorded: it was not made.
func TestPrivilegeCheckNotPossibleIsDebug(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusNotFound, http.StatusForbidden} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv, _ := privilegeServer(t, "9.5.4", status, `{"error":{"type":"exception","reason":"Security must be explicitly enabled"}}`)
			cfg := testConfig(srv.URL)
			checks := &checkLog{}
			cfg.Checks = checks.record
			cfg.Writes = []Write{{Pattern: "logs-*-*", For: "logs"}}
			c, logs := newTestClient(t, cfg)
			_, ok := c.CheckServer(context.Background())
			require.True(t, ok)
			assert.Equal(t, 0, logs.FilterLevelExact(zapcore.WarnLevel).Len())
			assert.Equal(t, 1, logs.FilterMessageSnippet("Privilege check not possible").FilterLevelExact(zapcore.DebugLevel).Len())
			_, recorded := checks.get()[CheckPrivileges]
			assert.False(t, recorded)
		})
	}
}

func TestVersionTooOldForTheConfiguredModes(t *testing.T) {
	tests := []struct {
		version           string
		otel, otelMetrics bool
		want              string // a part of the one warning, or "" for none
	}{
		{version: "8.15.3", otel: true, want: "is older than 8.16"},
		{version: "8.15.3"},
		{version: "8.17.5", otel: true, otelMetrics: true, want: "is older than 8.17.6"},
		{version: "8.17.5", otel: true},
		{version: "8.17.6", otel: true, otelMetrics: true},
		{version: "8.18.0", otel: true, otelMetrics: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s otel=%v metrics=%v", tt.version, tt.otel, tt.otelMetrics), func(t *testing.T) {
			srv, _ := privilegeServer(t, tt.version, http.StatusNotFound, "")
			cfg := testConfig(srv.URL)
			cfg.OTelMode, cfg.OTelMetrics = tt.otel, tt.otelMetrics
			checks := &checkLog{}
			cfg.Checks = checks.record
			c, logs := newTestClient(t, cfg)
			_, ok := c.CheckServer(context.Background())
			require.True(t, ok)
			warnings := logs.FilterLevelExact(zapcore.WarnLevel).All()
			if tt.want == "" {
				assert.Empty(t, warnings)
			} else if assert.Len(t, warnings, 1) {
				assert.Contains(t, warnings[0].Message, tt.want)
				assert.Contains(t, warnings[0].Message, "Upgrade Elasticsearch")
			}
			assert.Equal(t, tt.want != "", checks.get()[CheckVersion])
		})
	}
}

// An answer 401 fails the auth check and passes connect; no answer fails connect.
func TestReachChecks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	for name, url := range map[string]string{"401": srv.URL, "no answer": "http://127.0.0.1:1"} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(url)
			checks := &checkLog{}
			cfg.Checks = checks.record
			c, _ := newTestClient(t, cfg)
			ctx, cancel := context.WithCancel(context.Background())
			c.checks = func(ch Check, failed bool) { checks.record(ch, failed); cancel() }
			_, ok := c.CheckServer(ctx)
			assert.False(t, ok)
			if name == "401" {
				assert.Equal(t, map[Check]bool{CheckConnect: false, CheckAuth: true}, checks.get())
			} else {
				assert.Equal(t, map[Check]bool{CheckConnect: true}, checks.get())
			}
		})
	}
}
