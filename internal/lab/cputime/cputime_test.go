// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package cputime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcessGrows checks that the process has used CPU time by now and that work on the CPU
// adds to it: the loop ends once a reading is later than the first.
func TestProcessGrows(t *testing.T) {
	start, ok := Process()
	require.True(t, ok)
	assert.Positive(t, start)
	x := uint64(1)
	for {
		for range 1 << 16 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, ok := Process()
		require.True(t, ok)
		if now > start {
			break
		}
	}
	assert.NotZero(t, x)
}
