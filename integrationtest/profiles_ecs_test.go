// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
)

// ecsProfilingIndices are the Universal Profiling indices the ecs mode writes.
func ecsProfilingIndices() []string {
	out := []string{
		routing.ProfilingEventsECS, routing.ProfilingStacktracesECS, routing.ProfilingStackframesECS,
		routing.ProfilingExecutablesECS, routing.ProfilingHostsECS,
		routing.ProfilingSQLeafFramesECS, routing.ProfilingSQExecutablesECS,
	}
	return append(out, routing.ProfilingEventsDownsampledECS[:]...)
}

// TestProfilesECSIndexed writes profiles in the ecs mode through the exporter into the node,
// which has no Universal Profiling templates: each index is created with the mapping the node
// derives from the first document. Every document is indexed, nothing lands in _ignored, a
// second push writes only events, and the same profile from a restarted exporter (its record of
// written documents empty) is a counted duplicate for every content-addressed document.
func TestProfilesECSIndexed(t *testing.T) {
	s := newSuite(t)
	indices := ecsProfilingIndices()
	all := strings.Join(indices, ",")
	// The names are fixed (no run id): start from none of them, and leave none behind.
	drop := func() { _, _, _ = s.es.Do(http.MethodDelete, "/"+all+"?ignore_unavailable=true", nil) }
	drop()
	t.Cleanup(drop)

	cfg := s.config()
	cfg.Mapping.AllowedModes = []string{"ecs"}
	exp := s.profilesExporter(t, cfg)
	require.NoError(t, exp.ConsumeProfiles(context.Background(), fixtureProfiles(t, 8)))
	require.NoError(t, exp.ConsumeProfiles(context.Background(), fixtureProfiles(t, 8)))
	require.NoError(t, exp.Shutdown(context.Background()))
	indexed := s.docs(t, "indexed")

	restarted := s.profilesExporter(t, cfg)
	t.Cleanup(func() { require.NoError(t, restarted.Shutdown(context.Background())) })
	require.NoError(t, restarted.ConsumeProfiles(context.Background(), fixtureProfiles(t, 8)))

	s.es.Refresh(t, all)
	counts := map[string]int{}
	var total int
	for _, index := range indices {
		counts[index] = s.es.Count(t, index)
		total += counts[index]
	}
	t.Logf("documents per index: %v", counts)
	once := map[string]int{ // fixtureProfiles(t, 8): 4 stacks, 5 symbolized frames, 2 executables
		routing.ProfilingStacktracesECS:   profileStacks,
		routing.ProfilingStackframesECS:   profileStacks + 1,
		routing.ProfilingExecutablesECS:   2,
		routing.ProfilingHostsECS:         1,
		routing.ProfilingSQLeafFramesECS:  profileStacks,
		routing.ProfilingSQExecutablesECS: 2,
	}
	for index, n := range once {
		assert.Equal(t, n, counts[index], index)
	}
	assert.Equal(t, 3*8, counts[routing.ProfilingEventsECS], "8 samples, 3 pushes")
	for i := 1; i < len(routing.ProfilingEventsDownsampledECS); i++ {
		assert.LessOrEqual(t, counts[routing.ProfilingEventsDownsampledECS[i]], counts[routing.ProfilingEventsDownsampledECS[i-1]])
	}
	// Every document the exporter counted as indexed is in the node; the restarted exporter's
	// content-addressed documents were there already.
	assert.Equal(t, int64(total), s.docs(t, "indexed"))
	assert.Equal(t, int64(18), s.docsWithError(t, "duplicate", "version_conflict_engine_exception"))
	assert.Greater(t, s.docs(t, "indexed"), indexed)
	assert.Zero(t, s.docs(t, "rejected"))
	assert.Zero(t, ignoredDocs(t, s.es, indices...), "_ignored is empty")

	// The mapping the node derived: dates from RFC 3339 strings, longs from epoch seconds
	// and counts, text with a keyword subfield from other strings.
	s.assertFieldTypes(t, []mappedField{
		{routing.ProfilingEventsECS, "@timestamp", "date"},
		{routing.ProfilingEventsECS, "Stacktrace.count", "long"},
		{routing.ProfilingEventsECS, "Stacktrace.id", "text"},
		{routing.ProfilingExecutablesECS, "@timestamp", "long"},
		{routing.ProfilingHostsECS, "@timestamp", "long"},
		{routing.ProfilingStackframesECS, "Stackframe.line.number", "long"},
		{routing.ProfilingSQLeafFramesECS, "Symbolization.time.next", "date"},
	})
}
