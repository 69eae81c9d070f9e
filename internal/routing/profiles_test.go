// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfilingIndicesMatchPattern: the exporter checks its write privileges on
// ProfilingIndices, so every index a profile can be written to must match it.
func TestProfilingIndicesMatchPattern(t *testing.T) {
	names := []string{
		ProfilingEventsOTel, ProfilingStacktracesOTel, ProfilingStackframesOTel, ProfilingExecutablesOTel, ProfilingHostsOTel,
		ProfilingEventsECS, ProfilingStacktracesECS, ProfilingStackframesECS, ProfilingExecutablesECS, ProfilingHostsECS,
		ProfilingSQExecutablesECS, ProfilingSQLeafFramesECS,
	}
	names = append(names, ProfilingEventsDownsampledECS[:]...)
	for _, name := range names {
		ok, err := path.Match(ProfilingIndices, name)
		require.NoError(t, err)
		assert.Truef(t, ok, "%s does not match %s", name, ProfilingIndices)
	}
}
