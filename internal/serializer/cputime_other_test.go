// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package serializer

import "time"

// processCPUTime reports that the CPU time of the process is unknown here.
func processCPUTime() (time.Duration, bool) { return 0, false }
