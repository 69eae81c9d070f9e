// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatatest"
)

// A profiles pipeline writes each profile's documents to the profiling data streams, with
// require_data_stream; the content-addressed ones once: a second push of the same profile
// writes only its events.
func TestProfilesPushes(t *testing.T) {
	srv := fakees.New(t)
	exp := newProfilesExporter(t, newTestConfig(srv.URL), testSettings())
	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	assert.Equal(t, profileDocsFirst, countByIndex(srv.Accepted()))
	for _, it := range srv.Accepted() {
		op, meta := it.Op()
		assert.Equal(t, "create", op)
		assert.Equal(t, true, meta["require_data_stream"], it.Index())
		if !strings.HasPrefix(it.Index(), "profiling-events") {
			assert.NotEmpty(t, it.ID(), "content-addressed documents have ids: %s", it.Index())
		}
	}

	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	second := countByIndex(srv.Accepted())
	assert.Equal(t, 16, second["profiling-events-all.otel-default"])
	second["profiling-events-all.otel-default"] = 8
	assert.Equal(t, profileDocsFirst, second, "nothing but events is written again")
	assert.Empty(t, srv.Conflicts())
}

// A push that does not store all its documents forgets the ones it recorded as written: the
// next profile that refers to them writes them again, and one that was stored is a counted
// duplicate (409), not a second document.
func TestProfilesFailedPushWritesAgain(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.Retry.MaxRetries = 0
	set, tel := withTelemetry(t)
	exp := newProfilesExporter(t, cfg, set)
	srv.SetFaults(fakees.Faults{
		ItemStatusRate: 1, ItemStatus: http.StatusBadRequest, ItemErrorType: "mapper_parsing_exception",
		ItemFilter: func(it fakees.Item) bool { return it.Index() == "profiling-stacktraces.otel-default" },
	})
	// Documents that Elasticsearch rejects are counted and logged; the push does not fail.
	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	first := countByIndex(srv.Accepted())
	assert.Zero(t, first["profiling-stacktraces.otel-default"])

	srv.SetFaults(fakees.Faults{})
	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	got := countByIndex(srv.Accepted())
	assert.Equal(t, profileStacks, got["profiling-stacktraces.otel-default"], "the stack traces are written again")
	assert.Equal(t, 1, got["profiling-hosts.otel-default"], "the host, stored before, is a duplicate")
	assert.Equal(t, profileStacks+1+2+1, srv.Stats().Conflicts, "frames, executables and host were stored")

	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars(), metricdatatest.IgnoreValue()}
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(Fate("indexed"), attribute.Int("http.response.status_code", 201))},
		{Attributes: attribute.NewSet(Fate("duplicate"), attribute.Int("http.response.status_code", 409), attribute.String("error.type", "version_conflict_engine_exception"))},
		{Attributes: attribute.NewSet(Fate("rejected"), attribute.Int("http.response.status_code", 400), attribute.String("error.type", "mapper_parsing_exception"))},
	}, opts...)
}

// A malformed profile is rejected alone, counted as one record with its reason; the other
// profiles of the push are written.
func TestProfilesMalformedRejectedAlone(t *testing.T) {
	srv := fakees.New(t)
	set, tel := withTelemetry(t)
	exp := newProfilesExporter(t, newTestConfig(srv.URL), set)
	pd := pprofile.NewProfiles()
	testProfiles(t, 8).CopyTo(pd)
	profiles := pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles()
	bad := profiles.AppendEmpty()
	profiles.At(0).CopyTo(bad)
	bad.Samples().At(3).SetStackIndex(99)
	require.NoError(t, exp.ConsumeProfiles(context.Background(), pd))
	assert.Equal(t, profileDocsFirst, countByIndex(srv.Accepted()))

	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
		{Value: int64(len(srv.Accepted())), Attributes: attribute.NewSet(Fate("indexed"), attribute.Int("http.response.status_code", 201))},
		{Value: 1, Attributes: attribute.NewSet(Fate("rejected"), attribute.String("error.type", "invalid_profile_reference"))},
	}, opts...)
}

// A mode without profile documents rejects the scope's profiles, as for the other signals.
func TestProfilesUnsupportedMode(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.Mapping.AllowedModes = []string{"otel", "raw"}
	exp := newProfilesExporter(t, cfg, testSettings())
	pd := pprofile.NewProfiles()
	testProfiles(t, 2).CopyTo(pd)
	pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Scope().Attributes().PutStr("elastic.mapping.mode", "raw")
	err := exp.ConsumeProfiles(context.Background(), pd)
	require.ErrorContains(t, err, "mapping mode raw does not support profiles")
	assert.Empty(t, srv.Accepted())
}

// A component with only a profiles pipeline asks the privilege check about the profiling
// indices and data streams, and about nothing else.
func TestProfilesPrivilegesAsked(t *testing.T) {
	cfg := newTestConfig("http://127.0.0.1:1")
	set := testSettings()
	f := NewFactory().(xexporter.Factory)
	exp, err := f.CreateProfiles(context.Background(), set, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exp.Shutdown(context.Background())) })
	sharedExporters.mu.Lock()
	shared := sharedExporters.entries[sharedKey{id: set.ID, cfg: cfg}]
	sharedExporters.mu.Unlock()
	require.NotNil(t, shared)
	assert.Equal(t, []esclient.Write{{Pattern: "profiling-*", For: "profiles"}}, shared.exp.writes())
}
