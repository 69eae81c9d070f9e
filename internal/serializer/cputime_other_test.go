// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package serializer

import "time"

// processCPUTime returns 0: the CPU time of the process is read on Unix systems only.
func processCPUTime() time.Duration { return 0 }
