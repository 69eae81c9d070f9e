// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"

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
