// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// A signal's name is the one the serializer's modes know, and the one its messages use.
func TestSignalNames(t *testing.T) {
	for _, tt := range []struct {
		signal     Signal
		name, noun string
	}{
		{Logs, "logs", "log"},
		{Metrics, "metrics", "metric"},
		{Traces, "traces", "span"},
		{Profiles, "profiles", "profile"},
	} {
		assert.Equal(t, tt.name, tt.signal.String())
		assert.Equal(t, tt.noun, tt.signal.Noun())
		assert.True(t, serializer.ModeOTel.Supports(tt.signal.String()), "otel writes every signal: %s", tt.signal)
	}
}

// A bad static index or date format fails when the pipeline is built, naming the key.
func TestNewRefusesBadRouting(t *testing.T) {
	set := testSettings()
	set.TracesIndex = "Bad*Index"
	_, err := New(set, nil, nil, nil)
	assert.ErrorContains(t, err, "`traces_index`")
}
