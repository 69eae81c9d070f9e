// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
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

// hostOTel writes the host document of the resource into e.prof.cur.host, with an id derived
// from its attributes, when it has a host.id.
func (e *Encoder) hostOTel() {
	c := &e.prof.cur
	c.hasHost = false
	if v, ok := e.resourceAttrs.Get(attrHostID); !ok || v.AsString() == "" {
		return
	}
	saved := e.w
	e.w = writer{buf: c.host[:0]}
	e.w.raw(`{"@timestamp":`)
	e.w.int(floorDiv(e.prof.ts, 1e9))
	e.w.raw(`,"resource":{"attributes":`)
	attrsStart := len(e.w.buf)
	e.writeAttributes(e.resourceAttrs, "")
	id := e.prof.contentID(e.w.buf[attrsStart:])
	e.w.raw(`}}`)
	c.keepHost(e.w.buf, id, e.w.profRepair(RepairNone))
	e.w = saved
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

// stackMetas appends to dst the content-addressed documents of the stack in e.prof.frames:
// its stack trace, then, root first, the stackframe of each symbolized frame and the
// executable of each frame with a build id.
func (e *Encoder) stackMetas(dst []profileMeta) []profileMeta {
	st := &e.prof
	dst = append(dst, profileMeta{kind: ProfileStacktrace, frame: -1})
	for i := len(st.frames) - 1; i >= 0; i-- {
		f := &st.frames[i]
		if symbolized(st.cur.dict, f.loc) {
			dst = append(dst, profileMeta{kind: ProfileStackframe, frame: i})
		}
		if f.hasBuild {
			dst = append(dst, profileMeta{kind: ProfileExecutable, frame: i})
		}
	}
	return dst
}

// appendStacktrace writes the stack trace document of e.prof.frames: the ids of its frames and
// their types, root first.
func (e *Encoder) appendStacktrace(dst []byte) []byte {
	st := &e.prof
	e.begin(dst)
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(st.ts)
	e.w.raw(`,"frame.ids":"`)
	e.writeFrameIDs()
	e.w.raw(`","frame.types":"`)
	e.writeFrameTypes()
	e.w.raw(`"}`)
	return e.profDone(RepairNone)
}

// appendStackframe writes the stackframe document of a symbolized frame: one entry per line
// (inlined functions first, as the location lists them) of function name, file name and line.
func (e *Encoder) appendStackframe(dst []byte, dict pprofile.ProfilesDictionary, f *profileFrame) []byte {
	e.begin(dst)
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
	return e.profDone(RepairNone)
}

// appendExecutable writes the executable document of a frame's mapping: its build id and the
// base name of its file.
func (e *Encoder) appendExecutable(dst []byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string) []byte {
	e.begin(dst)
	e.w.raw(`{"@timestamp":`)
	e.w.int(floorDiv(e.prof.ts, 1e9))
	e.w.raw(`,"resource":{"attributes":{"process.executable.build_id.htlhash":`)
	e.w.str(id)
	if name := dictString(dict, f.exe.FilenameStrindex()); name != "" {
		e.w.raw(`,"process.executable.name":`)
		e.w.str(path.Base(name))
	}
	e.w.raw(`}}}`)
	return e.profDone(RepairNone)
}

// appendEvent writes an event of count samples of sample s at ts (at most maxEventCount: the
// cursor splits larger counts).
func (e *Encoder) appendEvent(dst []byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, ts, count int64) []byte {
	st := &e.prof
	e.begin(dst)
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(ts)
	e.w.raw(`,"stacktrace.id":`)
	e.w.str(st.stackID())
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
	return e.profDone(st.repair)
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
