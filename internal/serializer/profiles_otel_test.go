// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// profileDoc is one document a test sink received: where says which of its kind's indices it
// goes to (profileWhere).
type profileDoc struct {
	kind      ProfileDoc
	where, id string
	doc       string
	repair    Repair
}

// testSink drives the encoder's documents of a profile as the pipeline does: it appends every
// event and each content-addressed document its seen map has not had, and records them.
type testSink struct {
	enc  *Encoder
	buf  *[]byte
	docs []profileDoc
	seen map[string]bool
}

// encode begins profile p and appends its documents to s.buf; the encoder's Rejection says
// whether p was rejected.
func (s *testSink) encode(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	e := s.enc
	e.BeginProfile(dict, p)
	if e.Rejection().Reason != "" {
		return
	}
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return
		}
		if d.Kind != ProfileEvent {
			k := d.Kind.String() + "/" + d.ID
			if s.seen[k] {
				continue
			}
			s.seen[k] = true
		}
		start := len(*s.buf)
		*s.buf = e.AppendProfileDocument(*s.buf)
		s.docs = append(s.docs, profileDoc{d.Kind, profileWhere(d), strings.Clone(d.ID), string((*s.buf)[start:]), e.Repair()})
	}
}

// profileWhere names the index of its kind that a document goes to: for a symbolization queue
// entry, the queue (executables or leafframes); for an ecs-mode event's downsampled copy, the
// level (5pow01 for level 1); else "".
func profileWhere(d ProfileDocument) string {
	switch {
	case d.Kind == ProfileSymbolizationQueue && d.Executable:
		return "executables"
	case d.Kind == ProfileSymbolizationQueue:
		return "leafframes"
	case d.Level > 0:
		return fmt.Sprintf("5pow%02d", d.Level)
	}
	return ""
}

// testProfile builds a profile of two samples on one stack of two frames, leaf first: a
// native frame of libc with a build id, and a symbolized Go frame; the resource has host.id.
func testProfile() (pprofile.Profiles, pprofile.ProfilesDictionary, pprofile.Profile) {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	strs := dict.StringTable()
	for _, s := range []string{
		"", "samples", "count", "cpu", "nanoseconds", "/usr/lib/libc.so.6",
		"process.executable.build_id.htlhash", "profile.frame.type", "native", "go", "main.work", "main.go", "thread.name", "worker",
	} {
		strs.Append(s)
	}
	attrs := dict.AttributeTable()
	attrs.AppendEmpty() // 0: none
	kv := attrs.AppendEmpty()
	kv.SetKeyStrindex(6)
	kv.Value().SetStr("600dcafe600dcafe600dcafe600dcafe")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("native")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("go")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(12)
	kv.Value().SetStr("worker")
	dict.MappingTable().AppendEmpty()
	m := dict.MappingTable().AppendEmpty()
	m.SetFilenameStrindex(5)
	m.AttributeIndices().Append(1)
	dict.FunctionTable().AppendEmpty()
	fn := dict.FunctionTable().AppendEmpty()
	fn.SetNameStrindex(10)
	fn.SetFilenameStrindex(11)
	dict.LocationTable().AppendEmpty()
	loc := dict.LocationTable().AppendEmpty() // 1: native, libc
	loc.SetMappingIndex(1)
	loc.SetAddress(0x1234)
	loc.AttributeIndices().Append(2)
	loc = dict.LocationTable().AppendEmpty() // 2: go, symbolized
	loc.AttributeIndices().Append(3)
	line := loc.Lines().AppendEmpty()
	line.SetFunctionIndex(1)
	line.SetLine(42)
	dict.StackTable().AppendEmpty()
	dict.StackTable().AppendEmpty().LocationIndices().Append(1, 2)

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("host.id", "h-1")
	rp.Resource().Attributes().PutStr("service.name", "svc")
	p := rp.ScopeProfiles().AppendEmpty().Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(1)
	p.SampleType().SetUnitStrindex(2)
	p.PeriodType().SetTypeStrindex(3)
	p.PeriodType().SetUnitStrindex(4)
	p.SetPeriod(50_000_000) // 20 Hz
	p.SetTime(pcommon.Timestamp(1_700_000_000_123_456_789))
	s := p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.AttributeIndices().Append(4)
	s.TimestampsUnixNano().Append(1_700_000_000_000_000_001, 1_700_000_000_500_000_000)
	s = p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.Values().Append(3)
	return pd, dict, p
}

func encodeProfile(t *testing.T, e *Encoder, sink *testSink, pd pprofile.Profiles, p pprofile.Profile) {
	t.Helper()
	var buf []byte
	sink.enc, sink.buf = e, &buf
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	sink.encode(pd.Dictionary(), p)
	require.Empty(t, e.Rejection().Reason)
	for _, d := range sink.docs {
		require.True(t, json.Valid([]byte(d.doc)), d.doc)
	}
}

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
