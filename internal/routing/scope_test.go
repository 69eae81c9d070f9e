// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func TestScanRecord(t *testing.T) {
	tests := []struct {
		record map[string]any
		want   RecordKeys
	}{
		{record: nil, want: 0},
		{record: map[string]any{"service.name": "a", "data_stream": "x", "elasticsearch": "y", "event.dataset": "z"}, want: 0},
		{record: map[string]any{"data_stream.dataset.x": "a", "elasticsearch.indexes": "b", "d": 1, "e": 2}, want: 0},
		{record: map[string]any{controlattr.DataStreamType: "logs"}, want: RecordRoutes},
		{record: map[string]any{controlattr.DataStreamDataset: ""}, want: RecordRoutes},
		{record: map[string]any{controlattr.DataStreamNamespace: 1}, want: RecordRoutes},
		{record: map[string]any{controlattr.Index: "i", "a": "b"}, want: RecordRoutes},
		{record: map[string]any{controlattr.DocumentID: "id"}, want: RecordDocumentID},
		{record: map[string]any{controlattr.IngestPipeline: "p"}, want: RecordPipeline},
		{record: map[string]any{controlattr.DocumentPipeline: "p"}, want: RecordPipeline},
		{record: map[string]any{controlattr.MappingHints: []any{"_doc_count"}}, want: RecordMappingHints},
		{
			record: map[string]any{controlattr.Index: "i", controlattr.DocumentID: "id", controlattr.DocumentPipeline: "p", controlattr.MappingHints: "h"},
			want:   RecordRoutes | RecordDocumentID | RecordPipeline | RecordMappingHints,
		},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ScanRecord(attrs(t, tt.record)), "%v", tt.record)
	}
}

func TestRouteRecordWithoutScope(t *testing.T) {
	r, err := NewRouter(Settings{})
	require.NoError(t, err)
	_, err = r.RouteRecord(0, pcommon.NewMap(), 0)
	require.ErrorIs(t, err, errNoScope)
}

// TestRouteRecordScopeAndMode checks that a new scope and a new mode are taken into account.
func TestRouteRecordScopeAndMode(t *testing.T) {
	r, err := NewRouter(Settings{})
	require.NoError(t, err)
	empty := pcommon.NewMap()
	resource := attrs(t, map[string]any{controlattr.DataStreamDataset: "app", controlattr.DocumentID: "id-1"})

	r.SetScope(signal.Logs, empty, resource, "")
	got, err := r.RouteRecord(0, empty, 0)
	require.NoError(t, err)
	assert.Equal(t, dataStream("logs", "app.otel", "default"), got)
	assert.Empty(t, r.DocumentID(0, empty), "an id on the resource is not the records' id")

	r.SetMode(false, false)
	got, err = r.RouteRecord(0, empty, 0)
	require.NoError(t, err)
	assert.Equal(t, dataStream("logs", "app", "default"), got)

	// The same maps with new contents: SetScope forgets what was resolved.
	resource.PutStr(controlattr.DataStreamDataset, "other")
	resource.PutStr(controlattr.DocumentID, "id-2")
	r.SetScope(signal.Metrics, empty, resource, "")
	got, err = r.RouteRecord(0, empty, 0)
	require.NoError(t, err)
	assert.Equal(t, dataStream("metrics", "other", "default"), got)
	record := attrs(t, map[string]any{controlattr.DocumentID: "id-3"})
	assert.Equal(t, "id-3", r.DocumentID(ScanRecord(record), record))
}

// TestRouteRecordLogstashPeriods checks that the date of every record is its own, across the
// boundaries of the date format's period.
func TestRouteRecordLogstashPeriods(t *testing.T) {
	start := time.Date(2024, 12, 31, 22, 58, 58, 0, time.UTC)
	steps := []time.Duration{0, time.Nanosecond, time.Second, time.Minute, time.Hour, -time.Hour, 25 * time.Hour, -48 * time.Hour}
	for _, format := range []string{"", "%Y.%m.%d", "%Y-%j", "%a-%b", "%Y.%m.%d.%H", "%H%M", "%S", "%y%m%d%H%M%S", "%I%p", "%U.%W.%V.%u"} {
		settings := Settings{LogstashFormat: true, DateFormat: format}
		full, err := NewRouter(settings)
		require.NoError(t, err)
		scoped, err := NewRouter(settings)
		require.NoError(t, err)
		empty := pcommon.NewMap()
		scoped.SetScope(signal.Logs, empty, empty, "")
		at := start
		for range 3 {
			for _, step := range steps {
				at = at.Add(step)
				ts := pcommon.NewTimestampFromTime(at)
				want, err := full.Route(signal.Logs, empty, empty, empty, "", ts)
				require.NoError(t, err)
				got, err := scoped.RouteRecord(0, empty, ts)
				require.NoError(t, err)
				require.Equal(t, want, got, "format %q at %v", format, at)
			}
		}
		// Beyond time.Time's int64 range.
		for _, ts := range []pcommon.Timestamp{1<<63 + 5, 1<<64 - 1, 0} {
			want, err := full.Route(signal.Logs, empty, empty, empty, "", ts)
			require.NoError(t, err)
			got, err := scoped.RouteRecord(0, empty, ts)
			require.NoError(t, err)
			require.Equal(t, want, got, "format %q at %d", format, ts)
		}
	}
}

func TestDatePeriod(t *testing.T) {
	for format, want := range map[string]time.Duration{
		"%Y.%m.%d": 24 * time.Hour, "%a.%A.%b.%B.%j.%y": 24 * time.Hour, "%%%y": 24 * time.Hour,
		"%H": time.Hour, "%I": time.Hour, "%p": time.Hour, "%d-%M-%H": time.Minute, "%M%S": time.Second,
		"%F.%U.%W.%V.%u.%w.%C.%Z%z": 24 * time.Hour,
	} {
		verbs, err := parseDateFormat(format)
		require.NoError(t, err)
		assert.Equal(t, uint64(want), datePeriod(verbs), format)
	}
}

func TestRouteRecordAllocs(t *testing.T) {
	r, err := NewRouter(Settings{})
	require.NoError(t, err)
	record := attrs(t, map[string]any{"http.method": "GET", "http.status_code": 200})
	resource := attrs(t, map[string]any{"service.name": "checkout", controlattr.DocumentID: "id"})
	r.SetScope(signal.Logs, pcommon.NewMap(), resource, "example.com/receiver/fooreceiver")
	allocs := testing.AllocsPerRun(100, func() {
		keys := ScanRecord(record)
		if _, err := r.RouteRecord(keys, record, 0); err != nil {
			t.Fatal(err)
		}
		_ = r.DocumentID(keys, record)
		_ = r.Pipeline(keys, record)
	})
	assert.Zero(t, allocs)
}

// FuzzRouteRecord checks that the scoped route of any record equals its full route: the
// routing attributes are spread over the record, the scope and the resource as the fuzzer
// chooses, with logstash_format and a static index toggled by bits of flags.
func FuzzRouteRecord(f *testing.F) {
	f.Add("nginx", "default", "", "", "", uint16(0), uint64(0))
	f.Add("ÄBC-x:y", "Prod-1", "example.com/receiver/fooreceiver", "", "id", uint16(0x0123), uint64(1701511810000000001))
	f.Add("a\xffb", "\xe2\x82", "go.opentelemetry.io/collector/service", "my-index", "", uint16(0x0fff), uint64(1<<63+7))
	f.Add("", "", "example.com/receiver/receiver", "Bad*Index", "p", uint16(0x3a5c), uint64(86399999999999))
	f.Fuzz(func(t *testing.T, dataset, namespace, scopeName, index, id string, flags uint16, ts uint64) {
		levels := [3]pcommon.Map{pcommon.NewMap(), pcommon.NewMap(), pcommon.NewMap()}
		// Two bits per attribute give its level; 3 leaves it out.
		put := func(shift uint, key, value string) {
			if l := flags >> shift & 3; l < 3 {
				levels[l].PutStr(key, value)
			}
		}
		put(0, controlattr.DataStreamDataset, dataset)
		put(2, controlattr.DataStreamNamespace, namespace)
		put(4, controlattr.Index, index)
		put(6, controlattr.DocumentID, id)
		put(8, controlattr.DocumentPipeline, id)
		put(10, controlattr.DataStreamType, namespace)
		levels[0].PutStr("http.method", "GET")
		levels[1].PutStr(EncodingFormatAttribute, dataset)
		settings := Settings{LogstashFormat: flags&(1<<12) != 0}
		if flags&(1<<13) != 0 {
			settings.StaticIndex = "static"
		}
		if flags&(1<<14) != 0 {
			settings.DateFormat = "%Y%m%d%H"
		}
		typ := [...]signal.Kind{signal.Logs, signal.Metrics}[flags>>15&1]
		requireScopedRoute(t, settings, typ, levels[0], levels[1], levels[2], scopeName, pcommon.Timestamp(ts))
	})
}
