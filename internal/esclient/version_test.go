// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

func TestCheckServerLogsVersion(t *testing.T) {
	tests := []struct {
		version       string
		noRoot        bool
		warn          bool
		includeSource bool
	}{
		{version: "9.1.0", includeSource: true},
		{version: "9.5.4", noRoot: true, includeSource: true},
		{version: "8.16.0"},
		{version: "8.15.3", warn: true},
		{version: "7.17.0", warn: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s noRoot=%v", tt.version, tt.noRoot), func(t *testing.T) {
			srv := fakees.New(t)
			srv.Version = tt.version
			srv.NoRoot = tt.noRoot
			c, logs := newTestClient(t, testConfig(srv.URL))
			v, ok := c.CheckServer(context.Background())
			require.True(t, ok)
			assert.Equal(t, tt.includeSource, v.TakesIncludeSourceOnError())
			connected := logs.FilterMessage("Connected to Elasticsearch").All()
			require.Len(t, connected, 1)
			assert.Equal(t, tt.version, connected[0].ContextMap()["version"])
			old := logs.FilterMessageSnippet("is older than 8.16").All()
			assert.Equal(t, tt.warn, len(old) == 1)
		})
	}
}

func TestUnreadableVersionIsWarned(t *testing.T) {
	srv := fakees.New(t)
	srv.Version = ""
	c, logs := newTestClient(t, testConfig(srv.URL))
	_, ok := c.CheckServer(context.Background())
	assert.False(t, ok)
	assert.Equal(t, 1, logs.FilterMessageSnippet("version could not be read").Len())
}

func TestCheckServerWarnsOnceWhileTheServerIsDown(t *testing.T) {
	srv := fakees.New(t)
	url := srv.URL
	srv.Close()
	c, logs := newTestClient(t, testConfig(url))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, ok := c.CheckServer(ctx)
	assert.False(t, ok, "the check ends with its context")
	assert.Equal(t, 1, logs.FilterMessageSnippet("version check failed").Len(), "one warning, not one per attempt")
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{"9.1.0", Version{9, 1, 0}, true},
		{"8.18", Version{8, 18, 0}, true},
		{"9.0.0-SNAPSHOT", Version{9, 0, 0}, true},
		{"", Version{}, false},
		{"9", Version{}, false},
		{"9.x.0", Version{}, false},
	}
	for _, tt := range tests {
		v, ok := parseVersion(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		if ok {
			assert.Equal(t, tt.want, v, tt.in)
		}
	}
	assert.True(t, less(Version{8, 15, 3}, minOTelVersion))
	assert.False(t, less(Version{8, 16, 0}, minOTelVersion))
	assert.False(t, Version{8, 17, 9}.TakesIncludeSourceOnError())
	assert.True(t, Version{8, 18, 0}.TakesIncludeSourceOnError())
}

// An answer 403 to GET / (credentials without the monitor cluster privilege, such as an API
// key made for writing only) is one warning that names the missing privilege, does not blame
// the credentials, and does not claim that documents wait; 401 blames the credentials.
func TestVersionCheckSaysWhatIsMissing(t *testing.T) {
	tests := []struct {
		status    int
		want, not string
	}{
		{http.StatusForbidden, "the `monitor` cluster privilege", "check user/password"},
		{http.StatusUnauthorized, "credentials were refused", "monitor"},
		{http.StatusServiceUnavailable, "version check failed", "privilege"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, `{"error":{"type":"security_exception","reason":"denied"},"status":`+strconv.Itoa(tt.status)+`}`)
			}))
			t.Cleanup(srv.Close)
			c, logs := newTestClient(t, testConfig(srv.URL))
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, ok := c.CheckServer(ctx)
			assert.False(t, ok)
			warnings := logs.FilterLevelExact(zapcore.WarnLevel).All()
			require.Len(t, warnings, 1, "one warning, not one per attempt")
			line := fmt.Sprintf("%s %v", warnings[0].Message, warnings[0].ContextMap())
			assert.Contains(t, line, tt.want)
			assert.NotContains(t, line, tt.not)
			assert.NotContains(t, line, "sent once the server answers", "documents do not wait for the check")
			assert.Contains(t, line, "documents are sent meanwhile")
		})
	}
}

// The check is asked again at growing intervals (doubling from Config.VersionRetry up to
// maxVersionRetry), not at a fixed one without end.
func TestVersionCheckBacksOff(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(srv.URL)
	cfg.VersionRetry = 5 * time.Millisecond
	c, _ := newTestClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_, ok := c.CheckServer(ctx)
	assert.False(t, ok)
	// At 5, 10, 20, 40, 80, 160ms: 7 requests in 400ms, where a fixed 5ms made about 80.
	assert.LessOrEqual(t, asked.Load(), int64(8))
	assert.GreaterOrEqual(t, asked.Load(), int64(5))

	assert.Equal(t, 10*time.Millisecond, nextVersionRetry(5*time.Millisecond))
	assert.Equal(t, maxVersionRetry, nextVersionRetry(8*time.Minute))
	assert.Equal(t, maxVersionRetry, nextVersionRetry(maxVersionRetry))
}
