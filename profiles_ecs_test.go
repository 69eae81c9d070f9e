// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatatest"
)

// The documents of testProfiles(t, 8), testdata/fixtures/profiles.json in the ecs mode, besides the downsampled events: its
// 8 samples (one each) as 8 events, and once its host, 4 stack traces, 5 symbolized frames, 2
// executables, the 4 unsymbolized leaf frames and their 2 executables in the queues.
var profileDocsFirstECS = map[string]int{
	"profiling-events-all":     8,
	"profiling-hosts":          1,
	"profiling-stacktraces":    profileStacks,
	"profiling-stackframes":    profileStacks + 1,
	"profiling-executables":    2,
	"profiling-sq-leafframes":  profileStacks,
	"profiling-sq-executables": 2,
}

// In the ecs mode a profiles pipeline writes the Universal Profiling indices, with create and
// without require_data_stream; the content-addressed documents once: a second push of the same
// profile writes only its events, and draws the same downsampled events again.
func TestProfilesECSPushes(t *testing.T) {
	srv := fakees.New(t)
	exp := newProfilesExporter(t, newTestConfig(srv.URL, ecsOnly), testSettings())
	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	first, downsampled := splitDownsampled(t, srv.Accepted())
	assert.Equal(t, profileDocsFirstECS, first)
	assert.LessOrEqual(t, downsampled, 8*11)
	for _, it := range srv.Accepted() {
		op, meta := it.Op()
		assert.Equal(t, "create", op)
		assert.NotContains(t, meta, "require_data_stream", it.Index())
		if strings.HasPrefix(it.Index(), "profiling-events") {
			assert.Empty(t, it.ID())
		} else {
			assert.NotEmpty(t, it.ID(), "content-addressed documents have ids: %s", it.Index())
		}
		var doc map[string]any
		require.NoError(t, json.Unmarshal(it.Document, &doc))
		assert.Equal(t, "1.12.0", doc["ecs.version"], it.Index())
	}

	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	second, downsampledAgain := splitDownsampled(t, srv.Accepted())
	assert.Equal(t, 16, second["profiling-events-all"])
	second["profiling-events-all"] = 8
	assert.Equal(t, profileDocsFirstECS, second, "nothing but events is written again")
	assert.Equal(t, 2*downsampled, downsampledAgain)
	assert.Empty(t, srv.Conflicts())
}

// One record of what was written serves both modes apart: a profile the otel mode wrote still
// writes its stack traces, frames, executables and host into the Universal Profiling indices.
func TestProfilesECSAfterOTel(t *testing.T) {
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	cfg.Mapping.AllowedModes = []string{"otel", "ecs"}
	exp := newProfilesExporter(t, cfg, testSettings())
	require.NoError(t, exp.ConsumeProfiles(context.Background(), testProfiles(t, 8)))
	pd := pprofile.NewProfiles()
	testProfiles(t, 8).CopyTo(pd)
	pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Scope().Attributes().PutStr("elastic.mapping.mode", "ecs")
	require.NoError(t, exp.ConsumeProfiles(context.Background(), pd))
	counts, _ := splitDownsampled(t, srv.Accepted())
	want := maps.Clone(profileDocsFirst)
	maps.Copy(want, profileDocsFirstECS)
	assert.Equal(t, want, counts)
}

// In the ecs mode a malformed profile, one that is not of on-CPU samples and one of more
// samples than the mode writes as events are each rejected alone, counted as one record with
// their reason and logged; the other profiles of the push are written.
func TestProfilesECSRejectedAlone(t *testing.T) {
	for _, tc := range []struct {
		reason string
		spoil  func(dict pprofile.ProfilesDictionary, p pprofile.Profile)
	}{
		{"invalid_profile_reference", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) {
			p.Samples().At(3).SetStackIndex(99)
		}},
		{"unsupported_by_mode", func(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
			dict.StringTable().Append("wall")
			p.PeriodType().SetTypeStrindex(int32(dict.StringTable().Len() - 1))
		}},
		{"profile_too_large", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) {
			p.Samples().At(3).TimestampsUnixNano().RemoveIf(func(uint64) bool { return true })
			p.Samples().At(3).Values().Append(1 << 16) // with the other 7 samples, 7 too many
		}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			srv := fakees.New(t)
			set, tel := withTelemetry(t)
			core, logs := observer.New(zap.WarnLevel)
			set.Logger = zap.New(core)
			exp := newProfilesExporter(t, newTestConfig(srv.URL, ecsOnly), set)
			pd := pprofile.NewProfiles()
			testProfiles(t, 8).CopyTo(pd)
			profiles := pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles()
			bad := profiles.AppendEmpty()
			profiles.At(0).CopyTo(bad)
			tc.spoil(pd.Dictionary(), bad)
			require.NoError(t, exp.ConsumeProfiles(context.Background(), pd))
			counts, _ := splitDownsampled(t, srv.Accepted())
			assert.Equal(t, profileDocsFirstECS, counts)

			opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
			metadatatest.AssertEqualElasticsearchDocsFate(t, tel, []metricdata.DataPoint[int64]{
				{Value: int64(len(srv.Accepted())), Attributes: attribute.NewSet(Fate("indexed"), attribute.Int("http.response.status_code", 201))},
				{Value: 1, Attributes: attribute.NewSet(Fate("rejected"), attribute.String("error.type", tc.reason))},
			}, opts...)
			var logged bool
			for _, e := range logs.All() {
				logged = logged || strings.Contains(e.Message+" "+errorField(e), tc.reason)
			}
			assert.True(t, logged, "the rejection is logged with its reason: %v", logs.All())
		})
	}
}
