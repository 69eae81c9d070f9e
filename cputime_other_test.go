// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package elasticsearchexporter

import "time"

// processCPUTime is not available here.
func processCPUTime() (time.Duration, bool) { return 0, false }
