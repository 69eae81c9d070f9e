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
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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
			cfg := testConfig(srv.URL)
			cfg.OTelMode = true
			c, logs := newTestClient(t, cfg)
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

// While the server does not answer, the check warns once and asks again on its schedule; once
// the server answers, it logs the version and returns it. The schedule is the real one, in a
// synctest bubble.
func TestVersionCheckSucceedsOnceServerAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes := &fakeNodes{}
		nodes.setDown(nodeA, true)
		c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA))
		type result struct {
			v  Version
			ok bool
		}
		done := make(chan result, 1)
		go func() {
			v, ok := c.CheckServer(context.Background())
			done <- result{v, ok}
		}()
		time.Sleep(time.Hour) // attempts at 0, 30 s, 90 s, 210 s, 450 s, 930 s, 1530 s, 2130 s, 2730 s, 3330 s
		synctest.Wait()
		assert.Equal(t, 10, nodes.count(nodeA), "attempts in the first hour")
		assert.Equal(t, 1, logs.FilterMessageSnippet("version check failed").Len(), "one warning, not one per attempt")
		assert.Zero(t, logs.FilterMessage("Connected to Elasticsearch").Len())

		nodes.mu.Lock()
		nodes.handler = func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Elastic-Product", "Elasticsearch")
			_, _ = io.WriteString(w, `{"cluster_name":"c","version":{"number":"9.1.0"}}`)
		}
		nodes.mu.Unlock()
		nodes.setDown(nodeA, false)
		time.Sleep(10 * time.Minute) // the next attempt, at 3930 s
		synctest.Wait()
		r := <-done
		assert.True(t, r.ok)
		assert.Equal(t, Version{9, 1, 0}, r.v)
		assert.Equal(t, 1, logs.FilterMessage("Connected to Elasticsearch").Len())
		assert.Equal(t, 1, logs.FilterMessageSnippet("version check failed").Len())
	})
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

// The check is asked again at growing intervals, doubling from 30 seconds up to 10 minutes,
// not at a fixed one without end. The schedule is the real one, in a synctest bubble.
func TestVersionCheckBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []time.Time
		nodes := &fakeNodes{handler: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == privilegesPath {
				w.WriteHeader(http.StatusNotFound) // asked once, after the first 403
				return
			}
			mu.Lock()
			asked = append(asked, time.Now())
			mu.Unlock()
			w.WriteHeader(http.StatusForbidden)
		}}
		c, _ := newTestClient(t, fakeNodesConfig(nodes, nodeA))
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		start := time.Now()
		_, ok := c.CheckServer(ctx)
		assert.False(t, ok, "the check ends with its context")
		assert.Equal(t, start.Add(time.Hour), time.Now())

		mu.Lock()
		defer mu.Unlock()
		var waits []time.Duration
		for i := 1; i < len(asked); i++ {
			waits = append(waits, asked[i].Sub(asked[i-1]))
		}
		assert.Equal(t, start, asked[0], "the first check is at once")
		assert.Equal(t, []time.Duration{
			30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute,
			10 * time.Minute, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute,
		}, waits)
	})
	assert.Equal(t, 10*time.Millisecond, nextVersionRetry(5*time.Millisecond))
	assert.Equal(t, maxVersionRetry, nextVersionRetry(8*time.Minute))
	assert.Equal(t, maxVersionRetry, nextVersionRetry(maxVersionRetry))
}

// A huge body on a failed GET / (an error page, a proxy's answer) is quoted in the warning
// cut to MaxReason, for each kind of failure; a 404 is asked again on /_nodes/_local, whose
// answer is quoted the same way.
func TestVersionCheckWarningQuotesAtMostMaxReason(t *testing.T) {
	const bodySize = 20 << 20
	for _, status := range []int{http.StatusInternalServerError, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				body := strings.Repeat("x", bodySize)
				var paths []string
				var mu sync.Mutex
				nodes := &fakeNodes{handler: func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == privilegesPath {
						w.WriteHeader(http.StatusNotFound) // asked once, after a 403
						return
					}
					mu.Lock()
					paths = append(paths, r.URL.Path)
					mu.Unlock()
					w.WriteHeader(status)
					_, _ = io.WriteString(w, body)
				}}
				c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA))
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan bool, 1)
				go func() {
					_, ok := c.CheckServer(ctx)
					done <- ok
				}()
				synctest.Wait() // the first check has failed and waits for the next
				cancel()
				assert.False(t, <-done)

				warnings := logs.FilterLevelExact(zapcore.WarnLevel).All()
				require.Len(t, warnings, 1)
				msg, _ := warnings[0].ContextMap()["error"].(string)
				path := "/"
				if status == http.StatusNotFound {
					path = "/_nodes/_local"
				}
				mu.Lock()
				assert.Equal(t, path, paths[len(paths)-1])
				mu.Unlock()
				prefix, quoted, found := strings.Cut(msg, ": x")
				require.True(t, found, "the body is quoted: %.200s", msg)
				quoted = "x" + quoted
				assert.True(t, strings.HasPrefix(prefix, "GET "+path+": HTTP "+strconv.Itoa(status)), prefix)
				assert.LessOrEqual(t, len(quoted), MaxReason, "the body's part of the warning")
				assert.True(t, strings.HasSuffix(quoted, TruncatedMarker))
				assert.Equal(t, strings.Repeat("x", len(quoted)-len(TruncatedMarker)), strings.TrimSuffix(quoted, TruncatedMarker))
				assert.Less(t, len(warnings[0].Message)+len(msg), MaxReason+600, "the whole warning")
			})
		})
	}
}

// A version check that an endpoint does not answer is asked of the next at once: with one of
// two endpoints down, the server is found without a warning nor a wait, and the node down is
// named once by the node watch.
func TestVersionCheckAsksNextEndpoint(t *testing.T) {
	nodes := &fakeNodes{handler: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		_, _ = io.WriteString(w, `{"cluster_name":"c","version":{"number":"9.1.0"}}`)
	}}
	nodes.setDown(nodeA, true)
	c, logs := newTestClient(t, fakeNodesConfig(nodes, nodeA, nodeB))
	v, ok := c.CheckServer(context.Background())
	require.True(t, ok)
	assert.Equal(t, Version{9, 1, 0}, v)
	assert.Equal(t, 1, nodes.count(nodeA))
	assert.Zero(t, logs.FilterMessageSnippet("version check failed").Len())
	down := logs.FilterMessageSnippet("Elasticsearch node does not answer").All()
	require.Len(t, down, 1)
	assert.Equal(t, "http://"+nodeA, down[0].ContextMap()["node"])
}
