// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/base64"
	"math"
	"path"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// maxEventCount is the largest count of one event: the field is a short. A sample
// whose count is larger is written as several events of the same time and stack.
const maxEventCount = math.MaxInt16

// appendProfileOTel writes the otel-mode documents of a valid profile (see AppendProfile).
func (e *Encoder) appendProfileOTel(buf *[]byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, seen ProfilesSeen, sink ProfilesSink) {
	st := &e.prof
	st.ts = int64(p.Time())
	st.freq = samplingFrequency(dict, p)
	e.appendHost(buf, seen, sink)
	e.profileAttrs(dict, p)
	samples := p.Samples()
	for i := range samples.Len() {
		s := samples.At(i)
		e.profileFrames(dict, s)
		id := e.stacktraceID()
		e.appendStackMeta(buf, dict, id, seen, sink)
		e.appendEvents(buf, dict, s, id, sink)
	}
}

// appendHost writes the host document of the resource: its attributes, with an id derived
// from them, when it has a host.id and seen has not had the id.
func (e *Encoder) appendHost(buf *[]byte, seen ProfilesSeen, sink ProfilesSink) {
	if v, ok := e.resourceAttrs.Get(attrHostID); !ok || v.AsString() == "" {
		return
	}
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.int(floorDiv(e.prof.ts, 1e9))
	e.w.raw(`,"resource":{"attributes":`)
	attrsStart := len(e.w.buf)
	e.writeAttributes(e.resourceAttrs, "")
	id := e.prof.contentID(e.w.buf[attrsStart:])
	if seen.Seen(ProfileHost, id) {
		*buf = e.w.buf[:start]
		e.w.buf = nil
		return
	}
	e.w.raw(`}}`)
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileHost, ProfilingHostsOTel, id, true)
}

// profileAttrs encodes the attributes every event of p holds: the resource's, then the
// profile's (a key the resource has is left out), as an object left open for the sample's.
func (e *Encoder) profileAttrs(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	st := &e.prof
	saved := e.w
	e.w = writer{buf: st.attrs[:0]}
	e.writeAttributes(e.resourceAttrs, "")
	e.w.buf = e.w.buf[:len(e.w.buf)-1] // reopen the object
	st.sep = len(e.w.buf) > 1
	e.writeDictAttrs(dict, p.AttributeIndices())
	st.keys = len(e.seen[0].keys)
	st.attrs = e.w.buf
	st.repair = RepairNone
	switch {
	case e.w.deepValues > 0:
		st.repair = RepairDepthLimit
	case e.w.invalidUTF8 > 0:
		st.repair = RepairInvalidUTF8
	}
	e.w = saved
}

// writeDictAttrs writes the attributes of the dictionary at idx into the open object of
// resource.attributes, leaving out control attributes and keys already written (e.seen[0]).
func (e *Encoder) writeDictAttrs(dict pprofile.ProfilesDictionary, idx pcommon.Int32Slice) {
	table := dict.AttributeTable()
	for _, i := range idx.All() {
		kv := table.At(int(i))
		k := dictString(dict, kv.KeyStrindex())
		if controlattr.Is(k) {
			continue
		}
		if !utf8.ValidString(k) {
			k = repairUTF8(k)
			e.w.invalidUTF8++
		}
		if !e.seen[0].add(k) {
			continue
		}
		if e.prof.sep {
			e.w.byte(',')
		}
		e.prof.sep = true
		e.w.str(k)
		e.w.byte(':')
		e.writeValue(kv.Value(), 1)
	}
}

// appendStackMeta writes the stack trace of e.prof.frames and the frames' stackframe and
// executable documents that seen has not had. stackID is a view of e.prof.stack.
func (e *Encoder) appendStackMeta(buf *[]byte, dict pprofile.ProfilesDictionary, stackID string, seen ProfilesSeen, sink ProfilesSink) {
	st := &e.prof
	if !seen.Seen(ProfileStacktrace, stackID) {
		e.begin(*buf)
		start := len(e.w.buf)
		e.w.raw(`{"@timestamp":`)
		e.w.rfc3339Nano(st.ts)
		e.w.raw(`,"frame.ids":"`)
		for i := len(st.frames) - 1; i >= 0; i-- { // root first
			id := frameID(&st.frames[i])
			e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, id[:]))
		}
		e.w.raw(`","frame.types":"`)
		st.types = runLengthTypes(st.types[:0], st.frames)
		e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, st.types))
		e.w.raw(`"}`)
		*buf = e.profDone(RepairNone)
		sink.AddProfileDocument(start, ProfileStacktrace, ProfilingStacktracesOTel, stackID, true)
	}
	for i := len(st.frames) - 1; i >= 0; i-- {
		f := &st.frames[i]
		if symbolized(dict, f.loc) {
			fid := frameID(f)
			if id := st.putID(fid[:]); !seen.Seen(ProfileStackframe, id) {
				e.appendStackframe(buf, dict, f, id, sink)
			}
		}
		if f.hasBuild {
			if id := st.putID(f.file[:]); !seen.Seen(ProfileExecutable, id) {
				e.appendExecutable(buf, dict, f, id, sink)
			}
		}
	}
}

// appendStackframe writes the stackframe document of a symbolized frame: one entry per line
// (inlined functions first, as the location lists them) of function name, file name and line.
func (e *Encoder) appendStackframe(buf *[]byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string, sink ProfilesSink) {
	e.begin(*buf)
	start := len(e.w.buf)
	lines := f.loc.Lines()
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"function.name":[`)
	e.writeFrameLines(dict, lines, frameFunctionName)
	e.w.raw(`],"function.filename":[`)
	e.writeFrameLines(dict, lines, frameFileName)
	e.w.raw(`],"line.number":[`)
	e.writeFrameLines(dict, lines, frameLineNumber)
	e.w.raw(`]}`)
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileStackframe, ProfilingStackframesOTel, id, true)
}

// appendExecutable writes the executable document of a frame's mapping: its build id and the
// base name of its file.
func (e *Encoder) appendExecutable(buf *[]byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string, sink ProfilesSink) {
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.int(floorDiv(e.prof.ts, 1e9))
	e.w.raw(`,"resource":{"attributes":{"process.executable.build_id.htlhash":`)
	e.w.str(id)
	if name := dictString(dict, f.exe.FilenameStrindex()); name != "" {
		e.w.raw(`,"process.executable.name":`)
		e.w.str(path.Base(name))
	}
	e.w.raw(`}}}`)
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileExecutable, ProfilingExecutablesOTel, id, true)
}

// appendEvents writes the events of one sample at each of its times (sampleCounts), split into
// events of at most maxEventCount. stackID is a view of e.prof.stack.
func (e *Encoder) appendEvents(buf *[]byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, stackID string, sink ProfilesSink) {
	sampleCounts(s, e.prof.ts, func(_ int, ts, count int64) {
		e.appendEventsAt(buf, dict, s, stackID, ts, count, sink)
	})
}

// appendEventsAt writes count samples of one time as events of at most maxEventCount each.
func (e *Encoder) appendEventsAt(buf *[]byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, stackID string, ts, count int64, sink ProfilesSink) {
	for count > 0 {
		n := min(count, maxEventCount)
		count -= n
		e.appendEvent(buf, dict, s, stackID, ts, n, sink)
	}
}

func (e *Encoder) appendEvent(buf *[]byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, stackID string, ts, count int64, sink ProfilesSink) {
	st := &e.prof
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(ts)
	e.w.raw(`,"stacktrace.id":`)
	e.w.str(stackID)
	e.w.raw(`,"count":`)
	e.w.int(count)
	if st.freq > 0 {
		e.w.raw(`,"sampling_frequency":`)
		e.w.int(st.freq)
	}
	e.w.raw(`,"resource":{"attributes":`)
	e.w.bytes(st.attrs)
	sep := st.sep
	e.writeSampleAttrs(dict, s.AttributeIndices())
	st.sep = sep
	e.w.raw(`}}}`)
	*buf = e.profDone(st.repair)
	sink.AddProfileDocument(start, ProfileEvent, ProfilingEventsOTel, "", true)
}

// writeSampleAttrs writes the sample's attributes after the profile's, and forgets their keys
// afterwards so that the next event starts from the profile's.
func (e *Encoder) writeSampleAttrs(dict pprofile.ProfilesDictionary, idx pcommon.Int32Slice) {
	if idx.Len() == 0 {
		return
	}
	e.writeDictAttrs(dict, idx)
	set := &e.seen[0]
	for len(set.keys) > e.prof.keys {
		set.remove(set.keys[len(set.keys)-1])
	}
}
