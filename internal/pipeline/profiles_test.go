// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// profileTarget sends the otel mode's documents to the data streams of Elasticsearch's OTel
// profiling templates and the ecs mode's to the indices of Universal Profiling: each queue
// entry to its queue, each downsampled copy of an event to the index of its level.
func TestProfileTarget(t *testing.T) {
	type target struct {
		index      string
		dataStream bool
	}
	tests := []struct {
		doc       serializer.ProfileDocument
		otel, ecs target
	}{
		{serializer.ProfileDocument{Kind: serializer.ProfileEvent}, target{"profiling-events-all.otel-default", true}, target{"profiling-events-all", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileStacktrace}, target{"profiling-stacktraces.otel-default", true}, target{"profiling-stacktraces", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileStackframe}, target{"profiling-stackframes.otel-default", true}, target{"profiling-stackframes", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileExecutable}, target{"profiling-executables.otel-default", true}, target{"profiling-executables", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileHost}, target{"profiling-hosts.otel-default", true}, target{"profiling-hosts", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileSymbolizationQueue}, target{}, target{"profiling-sq-leafframes", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileSymbolizationQueue, Executable: true}, target{}, target{"profiling-sq-executables", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileEvent, Level: 1}, target{}, target{"profiling-events-5pow01", false}},
		{serializer.ProfileDocument{Kind: serializer.ProfileEvent, Level: 11}, target{}, target{"profiling-events-5pow11", false}},
	}
	for _, tt := range tests {
		if tt.otel.index != "" {
			var got target
			got.index, got.dataStream = profileTarget(tt.doc, false)
			assert.Equal(t, tt.otel, got, "otel %+v", tt.doc)
		}
		var got target
		got.index, got.dataStream = profileTarget(tt.doc, true)
		assert.Equal(t, tt.ecs, got, "ecs %+v", tt.doc)
	}
	require.Len(t, routing.ProfilingEventsDownsampledECS, serializer.ProfileDownsampledLevels)
	for level := uint8(1); level <= serializer.ProfileDownsampledLevels; level++ {
		index, _ := profileTarget(serializer.ProfileDocument{Kind: serializer.ProfileEvent, Level: level}, true)
		assert.Equal(t, routing.ProfilingEventsDownsampledECS[level-1], index)
	}
}

// walkedProfiles walks pd through a push state of p and returns the kinds of the batch's
// documents by index, and its items.
func walkedProfiles(t *testing.T, p *Pipeline, pd pprofile.Profiles) (map[string]int, []bulk.Item) {
	t.Helper()
	st, err := p.getState()
	require.NoError(t, err)
	t.Cleanup(func() { p.putState(st) })
	st.modes = p.newModes(t.Context(), signal.Profiles)
	walkProfiles(t.Context(), st, pd)
	require.Empty(t, st.firstRejection)
	counts := map[string]int{}
	var items []bulk.Item
	for i := range st.batch.Len() {
		it := st.batch.Item(i)
		counts[it.Index]++
		items = append(items, it)
	}
	return counts, items
}

// One cache of what was written serves both modes apart: the stack trace, frames and
// executable the otel mode wrote are still written by the ecs mode, which derives the same ids;
// the ecs mode's documents are recorded under their ids prefixed with "ecs/", and keep their
// ids as _id.
func TestProfilesModesSeenApart(t *testing.T) {
	p := newTestPipeline(t, testSettings())
	otel, _ := walkedProfiles(t, p, testProfiles(""))
	assert.Equal(t, map[string]int{
		"profiling-hosts.otel-default": 1, "profiling-stacktraces.otel-default": 1, "profiling-stackframes.otel-default": 1,
		"profiling-executables.otel-default": 1, "profiling-events-all.otel-default": 3,
	}, otel)
	ecs, items := walkedProfiles(t, p, testProfiles("ecs"))
	for index := range ecs {
		if strings.HasPrefix(index, "profiling-events-5pow") {
			delete(ecs, index) // the downsampled copies, drawn by hash
		}
	}
	assert.Equal(t, map[string]int{
		"profiling-hosts": 1, "profiling-stacktraces": 1, "profiling-stackframes": 1, "profiling-executables": 1,
		"profiling-sq-leafframes": 1, "profiling-sq-executables": 1, "profiling-events-all": 5,
	}, ecs)
	for _, it := range items {
		if it.DocumentID == "" {
			continue
		}
		assert.True(t, it.DerivedID, it.Index)
		assert.NotContains(t, it.DocumentID, "/", it.Index)
	}
	again, _ := walkedProfiles(t, p, testProfiles("ecs"))
	for index := range again {
		assert.Contains(t, index, "profiling-events", "the ecs mode's documents are recorded")
	}
}
