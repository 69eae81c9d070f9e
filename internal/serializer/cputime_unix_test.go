// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package serializer

import (
	"syscall"
	"time"
)

// processCPUTime returns the user and system CPU time this process has used (getrusage
// RUSAGE_SELF), which the metrics benchmarks report per op. It is the lab's cputime.Process,
// which this module cannot import: the lab is a module of its own.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
