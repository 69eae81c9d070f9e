// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import "slices"

// NumModes is the number of mapping modes; their values are 0 to NumModes-1, so that a
// [NumModes]T array holds one T per mode.
const NumModes = int(ModeBodyMap) + 1

// ModeNames returns the name of every mapping mode, in the order of their values, which is the
// order in which the configuration reference lists them. The caller owns the slice.
func ModeNames() []string { return slices.Clone(modeNames[:]) }
