// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
