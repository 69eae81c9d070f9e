// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// privilegeUser is a file-realm user of scripts/es.sh (ensure_privilege_users), read from the
// node's env as ES_PRIV_<key>_USER and ES_PRIV_<key>_PASSWORD.
func privilegeUser(t *testing.T, key string) (user, password string) {
	t.Helper()
	user, err := estest.Var("ES_PRIV_" + key + "_USER")
	require.NoError(t, err)
	password, err = estest.Var("ES_PRIV_" + key + "_PASSWORD")
	require.NoError(t, err)
	if user == "" || password == "" {
		estest.SkipOrFail(t, "the node's env has no ES_PRIV_"+key+"_USER/_PASSWORD",
			"start the node with scripts/es.sh start, which creates the privilege users")
	}
	return user, password
}

// startupChecks reads otelcol.elasticsearch.startup_check: the value of each check recorded.
func (s *suite) startupChecks(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	m, err := s.tel.GetMetric("otelcol.elasticsearch.startup_check")
	if err != nil {
		return out
	}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		v, _ := dp.Attributes.Value("check")
		out[v.AsString()] = dp.Value
	}
	return out
}

// assertNoSecret fails when a log line, its fields included, holds the secret.
func (s *suite) assertNoSecret(t *testing.T, secret string) {
	t.Helper()
	for _, e := range s.logs.All() {
		line := fmt.Sprintf("%s %v", e.Message, e.ContextMap())
		assert.NotContains(t, line, secret, "a log line holds the password")
	}
}

// lackIndexLine is the start-up line for a user without the index privilege priv on the logs
// data streams.
func lackIndexLine(priv, user string) string {
	return "The credentials lack the index privilege `" + priv + "` on logs-*-*, which writing logs needs; " +
		"Elasticsearch answers 403 to the bulk requests that write there. Grant it with a role of user \"" + user + "\": " +
		`{"indices":[{"names":["logs-*-*"],"privileges":["auto_configure","create_doc"]}]}`
}

// lackMonitorLine is the start-up line for a user without the cluster privilege monitor.
func lackMonitorLine(user string) string {
	return "The credentials lack the cluster privilege `monitor`, which the version check (GET /) and node " +
		`discovery need; grant it with a role of user "` + user + `": {"cluster":["monitor"]}`
}

// lackLines are the messages of the start-up lines that name a missing privilege, in order.
func (s *suite) lackLines() []string {
	var lines []string
	for _, e := range s.logs.All() {
		if strings.HasPrefix(e.Message, "The credentials lack") {
			lines = append(lines, e.Message)
		}
	}
	return lines
}

// The privilege check asks the real node, for each file-realm user, which of the privileges
// the configuration writes with it holds, and names each one missing with its fix.
func TestStartupPrivilegeCheck(t *testing.T) {
	createDoc := func(user string) string { return lackIndexLine("create_doc", user) }
	monitor := lackMonitorLine
	tests := []struct {
		key     string
		lines   func(user string) []string
		failed  int64
		indexed bool
	}{
		{key: "ALL", lines: func(string) []string { return nil }, failed: 0, indexed: true},
		{key: "NOCREATEDOC", lines: func(u string) []string { return []string{createDoc(u)} }, failed: 1},
		{key: "NOMONITOR", lines: func(u string) []string { return []string{monitor(u)} }, failed: 1, indexed: true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			user, password := privilegeUser(t, tt.key)
			s := newSuite(t)
			cfg := s.config()
			cfg.Authentication.User, cfg.Authentication.Password, cfg.Authentication.APIKey = user, configopaque.String(password), ""
			cfg.Retry.AuthGracePeriod = 0 // no privileges being granted to wait for: fail at once
			exp := s.logsExporter(t, cfg)
			// The node is reached over TLS with these credentials; the version is read unless
			// monitor is missing (GET / is then answered 403 and asked again later).
			want := map[string]int64{"connect": 0, "tls": 0, "auth": 0, "privileges": tt.failed, "version": 0}
			if tt.key == "NOMONITOR" {
				delete(want, "version")
			}
			assert.Eventually(t, func() bool { return assert.ObjectsAreEqual(want, s.startupChecks(t)) },
				30*time.Second, 20*time.Millisecond)
			assert.Equal(t, want, s.startupChecks(t))

			lines := s.lackLines()
			for _, l := range lines {
				t.Log(l)
			}
			assert.Equal(t, tt.lines(user), lines)

			// What the check says is what the node does with the documents.
			err := exp.ConsumeLogs(context.Background(), s.logsData(1))
			if tt.indexed {
				require.NoError(t, err)
				assert.Equal(t, int64(1), s.docs(t, "indexed"))
			} else {
				require.Error(t, err)
				t.Log(err)
				assert.Contains(t, err.Error(), "bulk request answered HTTP 403")
				assert.Contains(t, err.Error(), "this action is granted by the index privileges [create_doc,")
				assert.Equal(t, int64(1), s.docs(t, "rejected"))
			}
			s.assertNoSecret(t, password)
		})
	}
}
