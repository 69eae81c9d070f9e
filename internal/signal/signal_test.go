// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package signal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNames(t *testing.T) {
	tests := []struct {
		kind           Kind
		name, noun     string
		hasDataStreams bool
	}{
		{Logs, "logs", "log", true},
		{Metrics, "metrics", "metric", true},
		{Traces, "traces", "span", true},
		{Profiles, "profiles", "profile", false},
		{Count, "unknown", "unknown", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.name, tt.kind.String())
		assert.Equal(t, tt.noun, tt.kind.Noun())
		assert.Equal(t, tt.hasDataStreams, tt.kind.HasDataStreams(), tt.name)
	}
}
