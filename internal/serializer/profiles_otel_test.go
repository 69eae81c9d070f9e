// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

func TestAppendProfileDocuments(t *testing.T) {
	pd, _, p := testProfile()
	var e Encoder
	sink := &testSink{seen: map[string]bool{}}
	encodeProfile(t, &e, sink, pd, p)
	var got []string
	for _, d := range sink.docs {
		got = append(got, d.kind.String()+" "+d.where+" "+d.id+" "+d.doc)
	}
	want := []string{
		`host  BhJIoC_iWRaMoeCtVQgR6Q {"@timestamp":1700000000,"resource":{"attributes":{"host.id":"h-1","service.name":"svc"}}}`,
		`stacktrace  TJbFxeZBUHs9aoM4AWx6bw {"@timestamp":"2023-11-14T22:13:20.123456789Z","frame.ids":"bNawjUx5R0Zs1rCNTHlHRgAAAAAAAAAqYA3K_mANyv5gDcr-YA3K_gAAAAAAABI0","frame.types":"AQsBAw"}`,
		`stackframe  bNawjUx5R0Zs1rCNTHlHRgAAAAAAAAAq {"@timestamp":"2023-11-14T22:13:20.123456789Z","function.name":["main.work"],"function.filename":["main.go"],"line.number":[42]}`,
		`executable  YA3K_mANyv5gDcr-YA3K_g {"@timestamp":1700000000,"resource":{"attributes":{"process.executable.build_id.htlhash":"YA3K_mANyv5gDcr-YA3K_g","process.executable.name":"libc.so.6"}}}`,
		`event   {"@timestamp":"2023-11-14T22:13:20.000000001Z","stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","count":1,"sampling_frequency":20,"resource":{"attributes":{"host.id":"h-1","service.name":"svc","thread.name":"worker"}}}`,
		`event   {"@timestamp":"2023-11-14T22:13:20.500000000Z","stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","count":1,"sampling_frequency":20,"resource":{"attributes":{"host.id":"h-1","service.name":"svc","thread.name":"worker"}}}`,
		`event   {"@timestamp":"2023-11-14T22:13:20.123456789Z","stacktrace.id":"TJbFxeZBUHs9aoM4AWx6bw","count":3,"sampling_frequency":20,"resource":{"attributes":{"host.id":"h-1","service.name":"svc"}}}`,
	}
	assert.Equal(t, want, got)
}

// TestSyntheticFileID checks the file id of a frame without a build id against XXH64 of its
// line's function name, file name, line and column, big-endian, taken twice: the frame id of
// the symbolized frame above is that file id and its line, 42.
func TestSyntheticFileID(t *testing.T) {
	h := xxhash.Sum64([]byte("main.workmain.go\x00\x00\x00\x00\x00\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x00"))
	var id [24]byte
	binary.BigEndian.PutUint64(id[:8], h)
	binary.BigEndian.PutUint64(id[8:16], h)
	binary.BigEndian.PutUint64(id[16:], 42)
	assert.Equal(t, "bNawjUx5R0Zs1rCNTHlHRgAAAAAAAAAq", base64.RawURLEncoding.EncodeToString(id[:]))
}

// TestAppendProfilePairedValues: values paired with timestamps are the counts of their
// events, and a count of 0 writes no event.
func TestAppendProfilePairedValues(t *testing.T) {
	pd, _, p := testProfile()
	p.Samples().At(0).Values().Append(2, 0)
	var e Encoder
	sink := &testSink{seen: map[string]bool{}}
	encodeProfile(t, &e, sink, pd, p)
	var events []string
	for _, d := range sink.docs {
		if d.kind == ProfileEvent {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(d.doc), &m))
			events = append(events, m["@timestamp"].(string)+" "+strconv.Itoa(int(m["count"].(float64))))
		}
	}
	assert.Equal(t, []string{"2023-11-14T22:13:20.000000001Z 2", "2023-11-14T22:13:20.123456789Z 3"}, events)
}

// TestStacktraceID checks the stack trace id against hash/fnv's FNV-1a 128 over the frames,
// leaf first, of file id and decimal address or line.
func TestStacktraceID(t *testing.T) {
	_, dict, p := testProfile()
	var e Encoder
	e.profileFrames(dict, p.Samples().At(0))
	require.Len(t, e.prof.frames, 2)
	h := fnv.New128a()
	for _, f := range e.prof.frames {
		_, _ = h.Write(f.file[:])
		_, _ = h.Write(strconv.AppendUint(nil, f.addr, 10))
	}
	want := strings.Clone(e.prof.putID(h.Sum(nil)))
	assert.Equal(t, want, e.stacktraceID())
}

func TestAppendProfileDedup(t *testing.T) {
	pd, _, p := testProfile()
	var e Encoder
	sink := &testSink{seen: map[string]bool{}}
	encodeProfile(t, &e, sink, pd, p)
	first := len(sink.docs)
	encodeProfile(t, &e, sink, pd, p)
	second := sink.docs[first:]
	require.Len(t, second, 3)
	for _, d := range second {
		assert.Equal(t, ProfileEvent, d.kind)
	}
}

func TestValidateProfileRejections(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(pprofile.ProfilesDictionary, pprofile.Profile)
		reason string
	}{
		{"no samples", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) {
			p.Samples().RemoveIf(func(pprofile.Sample) bool { return true })
		}, RejectProfileEmpty},
		{"empty stack", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(0).SetStackIndex(0) }, RejectProfileEmpty},
		{"stack index", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(0).SetStackIndex(9) }, RejectProfileIndex},
		{"negative stack index", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(0).SetStackIndex(-1) }, RejectProfileIndex},
		{"sample attribute", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) {
			p.Samples().At(0).AttributeIndices().Append(99)
		}, RejectProfileIndex},
		{"profile attribute", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.AttributeIndices().Append(-2) }, RejectProfileIndex},
		{"link index", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(0).SetLinkIndex(3) }, RejectProfileIndex},
		{"sample type string", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.SampleType().SetTypeStrindex(500) }, RejectProfileIndex},
		{"location index", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.StackTable().At(1).LocationIndices().Append(17)
		}, RejectProfileIndex},
		{"mapping index", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) { d.LocationTable().At(1).SetMappingIndex(5) }, RejectProfileIndex},
		{"mapping filename", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.MappingTable().At(1).SetFilenameStrindex(300)
		}, RejectProfileIndex},
		{"mapping attribute", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.MappingTable().At(1).AttributeIndices().Append(50)
		}, RejectProfileIndex},
		{"location attribute", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.LocationTable().At(2).AttributeIndices().Append(50)
		}, RejectProfileIndex},
		{"function index", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.LocationTable().At(2).Lines().At(0).SetFunctionIndex(7)
		}, RejectProfileIndex},
		{"function string", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.FunctionTable().At(1).SetSystemNameStrindex(70)
		}, RejectProfileIndex},
		{"attribute key string", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) { d.AttributeTable().At(4).SetKeyStrindex(-1) }, RejectProfileIndex},
		{"values unpaired", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(0).Values().Append(1) }, RejectProfileValue},
		{"negative value", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) { p.Samples().At(1).Values().SetAt(0, -1) }, RejectProfileValue},
		{"values too many", func(_ pprofile.ProfilesDictionary, p pprofile.Profile) {
			p.Samples().At(1).Values().Append(maxSampleCount)
		}, RejectProfileValue},
		{"line number", func(d pprofile.ProfilesDictionary, _ pprofile.Profile) {
			d.LocationTable().At(2).Lines().At(0).SetLine(1 << 31)
		}, RejectProfileValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pd, dict, p := testProfile()
			tt.mutate(dict, p)
			reason, err := ValidateProfile(dict, p)
			assert.Equal(t, tt.reason, reason)
			require.Error(t, err)
			for _, mode := range []Mode{ModeOTel, ModeECS} {
				var e Encoder
				e.SetMode(mode)
				var buf []byte
				sink := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
				e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
				sink.encode(dict, p)
				assert.Equal(t, tt.reason, e.Rejection().Reason, mode)
				assert.Empty(t, buf, mode)
				assert.Empty(t, sink.docs, mode)
			}
		})
	}
	_, dict, p := testProfile()
	reason, err := ValidateProfile(dict, p)
	assert.Empty(t, reason)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = ValidateProfile(dict, p) }))
}

func TestAppendProfileSplitsCounts(t *testing.T) {
	pd, _, p := testProfile()
	p.Samples().At(1).Values().SetAt(0, 2*maxEventCount+5)
	var e Encoder
	sink := &testSink{seen: map[string]bool{}}
	encodeProfile(t, &e, sink, pd, p)
	var counts []int
	for _, d := range sink.docs[len(sink.docs)-3:] {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(d.doc), &m))
		counts = append(counts, int(m["count"].(float64)))
	}
	assert.Equal(t, []int{maxEventCount, maxEventCount, 5}, counts)
}

func TestAppendProfileOtherModes(t *testing.T) {
	pd, dict, p := testProfile()
	var e Encoder
	e.SetMode(ModeNone)
	var buf []byte
	sink := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	sink.encode(dict, p)
	assert.Equal(t, RejectUnsupported, e.Rejection().Reason)
	assert.Empty(t, buf)
}
