// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// A node at rest settles after one sample: the wait is one second, not settleMax.
func TestSettleReturnsOnceTheNodeRests(t *testing.T) {
	idle := exec.Command("sleep", "30")
	require.NoError(t, idle.Start())
	t.Cleanup(func() {
		_ = idle.Process.Kill()
		_ = idle.Wait()
	})
	n := &esNode{pid: idle.Process.Pid}
	waited, err := n.settle(0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, waited, settleSample)
	require.Less(t, waited, settleMax/2)
}

// A node that has gone away is an error, not a wait.
func TestSettleFailsForAGoneNode(t *testing.T) {
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	_, err := (&esNode{pid: gone.Process.Pid}).settle(0)
	require.Error(t, err)
}
