// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// A push is admitted for its records times the encoded bytes per record of the signal's last
// push (with the request buffer for them; none before Connect), and that estimate is what
// sizes its batch buffer; before the first push of a signal, the initial estimate is used.
func TestAdmissionEstimatesFromEncodedBytes(t *testing.T) {
	p := newTestPipeline(t, testSettings())
	ctx := t.Context()

	a, err := p.admit(ctx, Logs, 100)
	require.NoError(t, err)
	assert.Equal(t, 100*initialBytesPerRecord[Logs], a.encoded)
	assert.Equal(t, a.encoded, a.held)

	p.holdInflight(&a, 50_000) // the push encoded 500 bytes per record
	assert.Equal(t, int64(50_000), a.encoded)
	assert.Equal(t, int64(50_000), a.held)
	p.budget.Release(a.held)

	b, err := p.admit(ctx, Logs, 300)
	require.NoError(t, err)
	assert.Equal(t, int64(150_000), b.encoded)
	p.budget.Release(b.held)

	c, err := p.admit(ctx, Traces, 10)
	require.NoError(t, err)
	assert.Equal(t, 10*initialBytesPerRecord[Traces], c.encoded, "each signal has its own estimate")
	p.budget.Release(c.held)
}
