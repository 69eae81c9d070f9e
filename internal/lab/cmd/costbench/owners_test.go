// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import "testing"

// TestOwnersNameExistingFunctions fails for an owner of the profile splits, or a push function of
// the split's "under push", that names a function of this repository that no longer exists: its
// samples would fall to another part.
func TestOwnersNameExistingFunctions(t *testing.T) {
	funcs := moduleFuncs{}
	all := append(append([]owner{}, owners...), requestOwners...)
	for _, f := range underPush {
		all = append(all, owner{prefix: f})
	}
	for _, o := range all {
		funcs.assertExists(t, o.prefix, "owner")
	}
}
