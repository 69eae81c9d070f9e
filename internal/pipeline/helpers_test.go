// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testSettings returns the pipeline settings of the exporter's default configuration.
func testSettings() Settings {
	return Settings{
		PrefixSeparator:  routing.DefaultPrefixSeparator,
		DateFormat:       routing.DefaultDateFormat,
		AllowedModes:     serializer.ModeNames(),
		NumConsumers:     10,
		MaxInflightBytes: 64 << 20,
	}
}

// newTestPipeline returns a pipeline of set, that never sends (no bulk indexer).
func newTestPipeline(t *testing.T, set Settings) *Pipeline {
	t.Helper()
	return newTestPipelineWith(t, set, nil)
}

// newTestPipelineWith returns a pipeline of set whose documents ix sends.
func newTestPipelineWith(t *testing.T, set Settings, ix *bulk.Indexer) *Pipeline {
	t.Helper()
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	p, err := New(set, ix, nil, bulk.NewByteBudget(set.MaxInflightBytes), tb, zap.NewNop())
	require.NoError(t, err)
	return p
}

// noClient is the transport of a bulk indexer whose tests send nothing.
type noClient struct{}

func (noClient) Perform(*http.Request) (*http.Response, error) {
	return nil, errors.New("no request is expected")
}

// connectedState returns a push state of a pipeline of the default settings whose bulk indexer
// has dead letters on or off, for a push of sig; nothing is sent.
func connectedState(t *testing.T, sig signal.Kind, deadLetters bool) *pushState {
	t.Helper()
	cfg := bulk.Config{Client: noClient{}, MaxBulkBytes: 1 << 20}
	if deadLetters {
		cfg.DeadLetterIndex = "dlq"
	}
	ix, err := bulk.New(cfg)
	require.NoError(t, err)
	p := newTestPipelineWith(t, testSettings(), ix)
	st, err := p.getState()
	require.NoError(t, err)
	t.Cleanup(func() { p.putState(st) })
	st.modes = p.newModes(t.Context(), sig)
	return st
}
