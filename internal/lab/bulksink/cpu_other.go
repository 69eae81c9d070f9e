// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package bulksink

// processCPUNanos is not available here.
func processCPUNanos() int64 { return 0 }
