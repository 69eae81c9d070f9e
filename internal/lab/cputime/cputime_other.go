// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package cputime

import "time"

// Process returns false: the CPU time of the process is read on Unix systems only.
func Process() (d time.Duration, ok bool) { return 0, false }
