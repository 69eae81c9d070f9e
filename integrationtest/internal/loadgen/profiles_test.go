package loadgen

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// profileSink collects the profiling documents the exporter's encoder writes, and remembers
// the content-addressed ones as the exporter's cache does within its lifetime.
type profileSink struct {
	buf    *[]byte
	seen   map[string]bool
	counts map[serializer.ProfileDoc]int
	docs   map[serializer.ProfileDoc][]map[string]any
}

func newProfileSink(buf *[]byte) *profileSink {
	return &profileSink{
		buf: buf, seen: map[string]bool{}, counts: map[serializer.ProfileDoc]int{},
		docs: map[serializer.ProfileDoc][]map[string]any{},
	}
}

// encode appends the documents of profile p as the pipeline does: every event, and each
// content-addressed document not seen yet.
func (s *profileSink) encode(enc *serializer.Encoder, dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	enc.BeginProfile(dict, p)
	for {
		d, ok := enc.NextProfileDocument()
		if !ok {
			return
		}
		if d.Kind != serializer.ProfileEvent {
			key := d.Kind.String() + "/" + d.ID
			if s.seen[key] {
				continue
			}
			s.seen[key] = true
		}
		start := len(*s.buf)
		*s.buf = enc.AppendProfileDocument(*s.buf)
		var doc map[string]any
		if err := json.Unmarshal((*s.buf)[start:], &doc); err != nil {
			panic(err)
		}
		s.counts[d.Kind]++
		s.docs[d.Kind] = append(s.docs[d.Kind], doc)
	}
}

// encodeProfiles encodes every profile of the requests in the mode as the exporter does, one
// cache for all, and fails on a rejected profile.
func encodeProfiles(t *testing.T, mode serializer.Mode, requests []pprofile.Profiles) *profileSink {
	t.Helper()
	var enc serializer.Encoder
	enc.SetMode(mode)
	var buf []byte
	s := newProfileSink(&buf)
	for _, pd := range requests {
		rps := pd.ResourceProfiles()
		for i := range rps.Len() {
			enc.SetResource(rps.At(i).Resource(), rps.At(i).SchemaUrl())
			sps := rps.At(i).ScopeProfiles()
			for j := range sps.Len() {
				enc.SetScope(sps.At(j).Scope(), sps.At(j).SchemaUrl())
				ps := sps.At(j).Profiles()
				for k := range ps.Len() {
					reason, err := serializer.ValidateProfile(pd.Dictionary(), ps.At(k))
					require.NoError(t, err, reason)
					s.encode(&enc, pd.Dictionary(), ps.At(k))
					require.Empty(t, enc.Rejection().Reason, "mode %s", mode)
				}
			}
		}
	}
	return s
}

// receiveProfiles runs the generator against a fake receiver that decodes each request with
// pprofile's protobuf unmarshaler.
func receiveProfiles(t *testing.T, samples, batch int) (Result, []pprofile.Profiles) {
	t.Helper()
	var mu sync.Mutex
	var requests []pprofile.Profiles
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/v1development/profiles", r.URL.Path)
		assert.Equal(t, "application/x-protobuf", r.Header.Get("Content-Type"))
		b, _ := io.ReadAll(r.Body)
		pd, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(b)
		if !assert.NoError(t, err) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		requests = append(requests, pd)
		mu.Unlock()
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Endpoint, cfg.Profiles, cfg.Batch, cfg.RunID = srv.URL, samples, batch, "test"
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return res, requests
}

// TestProfileRequests checks what the requests hold: the samples in profiles of at most batch,
// each on-CPU with a period of 50 ms, on a stack of several frames whose mappings have build
// ids, the resource's host and run id; and that the exporter's encoder writes the documents
// ProfileDocumentsOf says, in the otel mode, and accepts every profile in the ecs mode.
func TestProfileRequests(t *testing.T) {
	for _, tc := range []struct{ samples, batch int }{{1, 500}, {3, 500}, {10, 4}, {200, 50}, {1001, 500}} {
		before := time.Now()
		res, requests := receiveProfiles(t, tc.samples, tc.batch)
		assert.Equal(t, tc.samples, res.Samples)
		assert.Len(t, requests, (tc.samples+tc.batch-1)/tc.batch)
		assert.Equal(t, len(requests), res.ProfileRequests)
		assert.Zero(t, res.Logs+res.Spans+res.DataPoints)

		samples := 0
		var last uint64
		for _, pd := range requests {
			require.Equal(t, 1, pd.ResourceProfiles().Len())
			rp := pd.ResourceProfiles().At(0)
			attrs := rp.Resource().Attributes().AsRaw()
			assert.Equal(t, ProfileHostID, attrs["host.id"])
			assert.Equal(t, "loadgen-host", attrs["host.name"])
			assert.Equal(t, "test", attrs[RunIDAttribute])
			assert.Equal(t, "loadgen", attrs["service.name"])
			assert.NotContains(t, attrs, "data_stream.dataset")
			require.Equal(t, 1, rp.ScopeProfiles().Len())
			assert.Equal(t, ScopeName, rp.ScopeProfiles().At(0).Scope().Name())
			require.Equal(t, 1, rp.ScopeProfiles().At(0).Profiles().Len())

			dict := pd.Dictionary()
			str := func(i int32) string { return dict.StringTable().At(int(i)) }
			p := rp.ScopeProfiles().At(0).Profiles().At(0)
			assert.Equal(t, "samples", str(p.SampleType().TypeStrindex()))
			assert.Equal(t, "count", str(p.SampleType().UnitStrindex()))
			assert.Equal(t, "cpu", str(p.PeriodType().TypeStrindex()))
			assert.Equal(t, "nanoseconds", str(p.PeriodType().UnitStrindex()))
			assert.Equal(t, int64(50_000_000), p.Period())
			assert.False(t, p.ProfileID().IsEmpty())
			assert.LessOrEqual(t, p.Samples().Len(), tc.batch)
			samples += p.Samples().Len()
			for _, s := range p.Samples().All() {
				require.Equal(t, 1, s.TimestampsUnixNano().Len())
				ts := s.TimestampsUnixNano().At(0)
				assert.Greater(t, ts, last, "timestamps grow, one period apart")
				if last != 0 {
					assert.Equal(t, uint64(ProfilePeriod), ts-last)
				}
				last = ts
				assert.GreaterOrEqual(t, ts, uint64(p.Time()))
				assert.Empty(t, s.Values().AsRaw(), "one timestamp is one sample")
				frames := dict.StackTable().At(int(s.StackIndex())).LocationIndices()
				assert.GreaterOrEqual(t, frames.Len(), 4)
				for _, li := range frames.All() {
					loc := dict.LocationTable().At(int(li))
					require.NotZero(t, loc.MappingIndex())
					m := dict.MappingTable().At(int(loc.MappingIndex()))
					mattrs, err := pprofile.FromAttributeIndices(dict.AttributeTable(), m, dict)
					require.NoError(t, err)
					build, ok := mattrs.Get("process.executable.build_id.htlhash")
					require.True(t, ok, "mapping %s has a build id", str(m.FilenameStrindex()))
					assert.Len(t, build.Str(), 32)
				}
			}
		}
		assert.Equal(t, tc.samples, samples)
		// The last sample is one period before the run's start.
		assert.Less(t, int64(last), before.Add(time.Second).UnixNano())

		want := ProfileDocumentsOf(tc.samples)
		got := encodeProfiles(t, serializer.ModeOTel, requests).counts
		assert.Equal(t, want, ProfileDocuments{
			Events: got[serializer.ProfileEvent], Stacktraces: got[serializer.ProfileStacktrace],
			Stackframes: got[serializer.ProfileStackframe], Executables: got[serializer.ProfileExecutable],
			Hosts: got[serializer.ProfileHost],
		}, "%d samples, batch %d", tc.samples, tc.batch)
		ecs := encodeProfiles(t, serializer.ModeECS, requests).counts
		assert.GreaterOrEqual(t, ecs[serializer.ProfileEvent], tc.samples, "ecs mode: an event per sample, and downsampled ones")
	}
}

// TestProfileDocumentsAll: from a full schedule on, every stack, frame and executable is
// written; the summary line gives the numbers.
func TestProfileDocumentsAll(t *testing.T) {
	assert.Equal(t, ProfileDocuments{Events: 200, Stacktraces: 5, Stackframes: 19, Executables: 3, Hosts: 1}, ProfileDocumentsOf(200))
	assert.Equal(t, ProfileDocuments{Events: 1, Stacktraces: 1, Stackframes: 6, Executables: 1, Hosts: 1}, ProfileDocumentsOf(1))
	assert.Equal(t, ProfileDocuments{}, ProfileDocumentsOf(0))
	// scripts/demo.sh reads these numbers from the summary line.
	assert.Contains(t, Result{Samples: 200, ProfileRequests: 1}.String(),
		" 200 profile samples (200 events, 5 stack traces, 19 stack frames, 3 executables, 1 hosts expected) in 1 requests ")
}

// TestProfileEventFields checks an otel-mode event of the generator's profile: its stack trace,
// count, sampling frequency and the resource attributes it carries.
func TestProfileEventFields(t *testing.T) {
	_, requests := receiveProfiles(t, 10, 500)
	s := encodeProfiles(t, serializer.ModeOTel, requests)
	require.Len(t, s.docs[serializer.ProfileEvent], 10)
	ev := s.docs[serializer.ProfileEvent][0]
	assert.InDelta(t, 1, ev["count"], 0)
	assert.InDelta(t, 20, ev["sampling_frequency"], 0)
	assert.NotEmpty(t, ev["stacktrace.id"])
	attrs := ev["resource"].(map[string]any)["attributes"].(map[string]any)
	assert.Equal(t, "test", attrs[RunIDAttribute])
	assert.Equal(t, ProfileHostID, attrs["host.id"])
	assert.Equal(t, ProfileThread, attrs["thread.name"])

	names := map[string]bool{}
	for _, d := range s.docs[serializer.ProfileExecutable] {
		names[d["resource"].(map[string]any)["attributes"].(map[string]any)["process.executable.name"].(string)] = true
	}
	assert.Equal(t, map[string]bool{"checkout": true, "libz.so.1.3": true, "libc.so.6": true}, names)
	host := s.docs[serializer.ProfileHost][0]["resource"].(map[string]any)["attributes"].(map[string]any)
	assert.Equal(t, "loadgen-host", host["host.name"])
	assert.Equal(t, "test", host[RunIDAttribute])
}
