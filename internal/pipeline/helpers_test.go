// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
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

// testProfiles builds one on-CPU profile of two samples on one stack of two frames, leaf
// first: a native frame of libc with a build id, unsymbolized, and a symbolized Go frame; the
// resource has host.id. The scope's elastic.mapping.mode is mode ("" for none).
func testProfiles(mode string) pprofile.Profiles {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	for _, s := range []string{
		"", "samples", "count", "cpu", "nanoseconds", "/usr/lib/libc.so.6",
		"process.executable.build_id.htlhash", "main.work", "main.go",
	} {
		dict.StringTable().Append(s)
	}
	dict.AttributeTable().AppendEmpty()
	kv := dict.AttributeTable().AppendEmpty()
	kv.SetKeyStrindex(6)
	kv.Value().SetStr("600dcafe600dcafe600dcafe600dcafe")
	dict.MappingTable().AppendEmpty()
	m := dict.MappingTable().AppendEmpty()
	m.SetFilenameStrindex(5)
	m.AttributeIndices().Append(1)
	dict.FunctionTable().AppendEmpty()
	fn := dict.FunctionTable().AppendEmpty()
	fn.SetNameStrindex(7)
	fn.SetFilenameStrindex(8)
	dict.LocationTable().AppendEmpty()
	loc := dict.LocationTable().AppendEmpty()
	loc.SetMappingIndex(1)
	loc.SetAddress(0x1234)
	loc = dict.LocationTable().AppendEmpty()
	line := loc.Lines().AppendEmpty()
	line.SetFunctionIndex(1)
	line.SetLine(42)
	dict.StackTable().AppendEmpty()
	dict.StackTable().AppendEmpty().LocationIndices().Append(1, 2)

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("host.id", "h-1")
	sp := rp.ScopeProfiles().AppendEmpty()
	if mode != "" {
		sp.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
	}
	p := sp.Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(1)
	p.SampleType().SetUnitStrindex(2)
	p.PeriodType().SetTypeStrindex(3)
	p.PeriodType().SetUnitStrindex(4)
	p.SetPeriod(50_000_000)
	p.SetTime(pcommon.Timestamp(1_700_000_000_123_456_789))
	s := p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.TimestampsUnixNano().Append(1_700_000_000_000_000_001, 1_700_000_000_500_000_000)
	s = p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.Values().Append(3)
	return pd
}

// connectedState returns a push state of a pipeline of the default settings whose bulk indexer
// has dead letters on or off, for a push of sig; nothing is sent.
func connectedState(t *testing.T, sig signal.Kind, deadLetters bool) *pushState {
	t.Helper()
	return connectedStateWith(t, testSettings(), sig, deadLetters)
}

// connectedStateWith is connectedState for a pipeline of set.
func connectedStateWith(t *testing.T, set Settings, sig signal.Kind, deadLetters bool) *pushState {
	t.Helper()
	cfg := bulk.Config{Client: noClient{}, MaxBulkBytes: 1 << 20}
	if deadLetters {
		cfg.DeadLetterIndex = "dlq"
	}
	ix, err := bulk.New(cfg)
	require.NoError(t, err)
	p := newTestPipelineWith(t, set, ix)
	st, err := p.getState()
	require.NoError(t, err)
	t.Cleanup(func() { p.putState(st) })
	st.modes = p.newModes(t.Context(), sig)
	return st
}
