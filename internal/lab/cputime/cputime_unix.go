// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time the calling process has used so far, all
// threads (getrusage RUSAGE_SELF); ok is false when the system does not tell.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
