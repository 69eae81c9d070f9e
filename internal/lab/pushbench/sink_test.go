// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pushbench

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := run(m)
	os.Exit(code)
}
