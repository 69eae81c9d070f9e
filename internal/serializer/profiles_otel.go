// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"path"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// The data streams of Elasticsearch's OTel profiling templates (9.6, x-pack otel-data): events
// match profiling-events*.otel-default; profiling-events-all is the one of all events, not
// downsampled.
const (
	ProfilingEventsOTel      = "profiling-events-all.otel-default"
	ProfilingStacktracesOTel = "profiling-stacktraces.otel-default"
	ProfilingStackframesOTel = "profiling-stackframes.otel-default"
	ProfilingExecutablesOTel = "profiling-executables.otel-default"
	ProfilingHostsOTel       = "profiling-hosts.otel-default"
)

// The attributes profile documents read.
const (
	attrBuildIDHTL = "process.executable.build_id.htlhash"
	attrFrameType  = "profile.frame.type"
	attrHostID     = "host.id"
)

// maxEventCount is the largest Stacktrace.count of one event: the field is a short. A sample
// whose count is larger is written as several events of the same time and stack.
const maxEventCount = math.MaxInt16

// profileState is AppendProfile's scratch, reused from one profile to the next.
type profileState struct {
	frames []profileFrame // the frames of the stack being written, leaf first
	attrs  []byte         // resource and profile attributes of the events, without the closing brace
	sep    bool           // attrs holds at least one attribute
	keys   int            // keys of attrs in e.seen[0]
	types  []byte         // run-length encoded frame types
	id     [48]byte       // the base64url id of the document being written
	stack  [24]byte       // the base64url id of the stack being written, which its events hold
	xx     xxhash.Digest
	repair Repair // of the resource and profile attributes, which every event holds
	ts     int64  // the profile's time, ns
	freq   int64  // Stacktrace.sampling_frequency, 0 for none
	lower  []byte // ecs mode: a host attribute's key or value, lowercased
	seed   uint64 // ecs mode: the downsampling hash of the profile's event fields
}

// profileFrame is one location of a stack: the file it is in and the address or line in it
// (together the frame id), and the frame type.
type profileFrame struct {
	file     [16]byte
	addr     uint64
	typ      byte
	loc      pprofile.Location
	exe      pprofile.Mapping // the mapping with a build id, for the executable document
	hasBuild bool
}

// frameTypes maps the values of profile.frame.type to the frame type markers of Universal
// Profiling (the eBPF profiler's support/ebpf/frametypes.h; 9 is its PHP JIT, which has no value
// of its own in the semantic conventions); any other value is 0, unknown.
var frameTypes = map[string]byte{
	"cpython": 1, "php": 2, "native": 3, "kernel": 4, "jvm": 5, "ruby": 6, "perl": 7, "v8js": 8, "dotnet": 10, "go": 11, "beam": 12,
}

// AppendProfile appends the otel-mode documents of profile p, whose references go into dict, to
// *buf, and hands each to sink as it is written: one event per sample and timestamp (split
// into events of at most 32767 samples each), and, each only when seen says it was not written
// within its lifetime, the sample's stack trace, its symbolized frames, the executables of its
// frames, and the host of the resource set last (when it has host.id). Stack traces, frames
// and executables have ids derived from their content as the eBPF profiler derives them;
// hosts from the encoded attributes. In the ecs mode it writes the Universal Profiling
// indices' documents instead (appendProfileECS). A profile that ValidateProfile rejects writes
// nothing, and Rejection returns the reason; so does a mode other than otel and ecs
// (RejectionUnsupported).
func (e *Encoder) AppendProfile(buf *[]byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, seen ProfilesSeen, sink ProfilesSink) {
	e.rejection, e.repair = "", RepairNone
	if e.mode != ModeOTel && e.mode != ModeECS {
		e.rejection = RejectionUnsupported
		return
	}
	if reason, _ := ValidateProfile(dict, p); reason != "" {
		e.rejection = reason
		return
	}
	if e.mode == ModeECS {
		e.appendProfileECS(buf, dict, p, seen, sink)
		return
	}
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

// samplingFrequency is the samples per second of a profile whose period is in nanoseconds, or
// 0 when the period says none.
func samplingFrequency(dict pprofile.ProfilesDictionary, p pprofile.Profile) int64 {
	if p.Period() <= 0 || dictString(dict, p.PeriodType().UnitStrindex()) != "nanoseconds" {
		return 0
	}
	return int64(math.Round(1e9 / float64(p.Period())))
}

// idString is a view of the id written last in st.id, valid until the next one is written.
func (st *profileState) idString(n int) string { return unsafe.String(&st.id[0], n) }

// putID writes b as unpadded base64url into st.id and returns its view.
func (st *profileState) putID(b []byte) string {
	n := base64.RawURLEncoding.EncodedLen(len(b))
	base64.RawURLEncoding.Encode(st.id[:n], b)
	return st.idString(n)
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

// profDone records the repair of the profile document written and returns the buffer: the
// writer's, else inherited (the attributes every event copies), else none.
func (e *Encoder) profDone(inherited Repair) []byte {
	switch {
	case e.w.deepValues > 0:
		e.repair = RepairDepthLimit
	case e.w.invalidUTF8 > 0:
		e.repair = RepairInvalidUTF8
	default:
		e.repair = inherited
	}
	out := e.w.buf
	e.w.buf = nil
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
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

// dictAttr returns the value of the attribute key among those of the dictionary at idx.
func dictAttr(dict pprofile.ProfilesDictionary, idx pcommon.Int32Slice, key string) (pcommon.Value, bool) {
	table := dict.AttributeTable()
	for _, i := range idx.All() {
		kv := table.At(int(i))
		if dictString(dict, kv.KeyStrindex()) == key {
			return kv.Value(), true
		}
	}
	return pcommon.Value{}, false
}

// profileFrames fills e.prof.frames with the frames of the sample's stack, leaf first.
func (e *Encoder) profileFrames(dict pprofile.ProfilesDictionary, s pprofile.Sample) {
	st := &e.prof
	st.frames = st.frames[:0]
	locs, maps := dict.LocationTable(), dict.MappingTable()
	for _, li := range dict.StackTable().At(int(s.StackIndex())).LocationIndices().All() {
		loc := locs.At(int(li))
		f := profileFrame{loc: loc}
		if v, ok := dictAttr(dict, loc.AttributeIndices(), attrFrameType); ok && v.Type() == pcommon.ValueTypeStr {
			f.typ = frameTypes[v.Str()]
		}
		if mi := loc.MappingIndex(); mi != 0 {
			m := maps.At(int(mi))
			if v, ok := dictAttr(dict, m.AttributeIndices(), attrBuildIDHTL); ok && v.Type() == pcommon.ValueTypeStr {
				f.hasBuild = parseFileID(&f.file, v.Str())
				f.exe = m
			}
		}
		if !f.hasBuild {
			e.syntheticFileID(dict, &f)
		}
		lines := loc.Lines()
		switch {
		case loc.Address() > 0:
			f.addr = loc.Address()
		case lines.Len() > 0:
			f.addr = uint64(lines.At(lines.Len() - 1).Line())
		}
		st.frames = append(st.frames, f)
	}
}

// parseFileID reads a build id of 32 hex digits or of 22 characters of unpadded base64url
// (16 bytes either way) into file, and reports whether it could.
func parseFileID(file *[16]byte, s string) bool {
	switch len(s) {
	case 32:
		_, err := hex.Decode(file[:], unsafe.Slice(unsafe.StringData(s), len(s)))
		return err == nil
	case 22:
		n, err := base64.RawURLEncoding.Decode(file[:], unsafe.Slice(unsafe.StringData(s), len(s)))
		return err == nil && n == 16
	}
	return false
}

// syntheticFileID derives the file of a frame without a build id from its lines, as the eBPF
// profiler's collector path does: XXH64 over each line's function name, file name, line and
// column (big-endian), the hash taken as both halves of the file id.
func (e *Encoder) syntheticFileID(dict pprofile.ProfilesDictionary, f *profileFrame) {
	xx := &e.prof.xx
	xx.Reset()
	funcs := dict.FunctionTable()
	var n [8]byte
	for _, line := range f.loc.Lines().All() {
		fn := funcs.At(int(line.FunctionIndex()))
		_, _ = xx.WriteString(dictString(dict, fn.NameStrindex()))
		_, _ = xx.WriteString(dictString(dict, fn.FilenameStrindex()))
		binary.BigEndian.PutUint64(n[:], uint64(line.Line()))
		_, _ = xx.Write(n[:])
		binary.BigEndian.PutUint64(n[:], uint64(line.Column()))
		_, _ = xx.Write(n[:])
	}
	h := xx.Sum64()
	binary.BigEndian.PutUint64(f.file[:8], h)
	binary.BigEndian.PutUint64(f.file[8:], h)
}

// FNV-1a, 128 bits (hash/fnv's, whose Hash escapes to the heap).
const (
	fnv128OffsetHi = 0x6c62272e07bb0142
	fnv128OffsetLo = 0x62b821756295c58d
	fnv128PrimeLo  = 0x13b // the prime is 2^88 + 0x13b
	fnv128PrimeHi  = 1 << (88 - 64)
)

type fnv128a struct{ hi, lo uint64 }

func (h *fnv128a) write(b []byte) {
	for _, c := range b {
		h.lo ^= uint64(c)
		// (hi·2^64 + lo) · (2^88 + 0x13b) mod 2^128
		carry, lo := bits.Mul64(h.lo, fnv128PrimeLo)
		hi := carry + h.hi*fnv128PrimeLo + h.lo<<(88-64)
		h.hi, h.lo = hi, lo
	}
}

// stacktraceID computes the id of the stack in e.prof.frames as the eBPF profiler does:
// FNV-1a 128 over each frame, leaf first, of its file id and its address or line in decimal,
// as 22 characters of base64url.
func (e *Encoder) stacktraceID() string {
	h := fnv128a{fnv128OffsetHi, fnv128OffsetLo}
	var num [20]byte
	for i := range e.prof.frames {
		f := &e.prof.frames[i]
		h.write(f.file[:])
		h.write(strconv.AppendUint(num[:0], f.addr, 10))
	}
	var sum [16]byte
	binary.BigEndian.PutUint64(sum[:8], h.hi)
	binary.BigEndian.PutUint64(sum[8:], h.lo)
	base64.RawURLEncoding.Encode(e.prof.stack[:], sum[:])
	return unsafe.String(&e.prof.stack[0], base64.RawURLEncoding.EncodedLen(len(sum)))
}

// frameID writes the 24 bytes of a frame id, the file id and the address or line big-endian.
func frameID(f *profileFrame) [24]byte {
	var b [24]byte
	copy(b[:16], f.file[:])
	binary.BigEndian.PutUint64(b[16:], f.addr)
	return b
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

// runLengthTypes appends the frame types root first as runs of at most 255: a byte of the
// run's length, then the type.
func runLengthTypes(dst []byte, frames []profileFrame) []byte {
	for i := len(frames) - 1; i >= 0; {
		t, n := frames[i].typ, 0
		for ; i >= 0 && frames[i].typ == t && n < 255; i-- {
			n++
		}
		dst = append(dst, byte(n), t)
	}
	return dst
}

// symbolized reports whether a location has a line whose function has a name or a file name.
func symbolized(dict pprofile.ProfilesDictionary, loc pprofile.Location) bool {
	funcs := dict.FunctionTable()
	for _, line := range loc.Lines().All() {
		fn := funcs.At(int(line.FunctionIndex()))
		if fn.NameStrindex() != 0 || fn.FilenameStrindex() != 0 {
			return true
		}
	}
	return false
}

// appendStackframe writes the stackframe document of a symbolized frame: one entry per line
// (inlined functions first, as the location lists them) of function name, file name and line.
func (e *Encoder) appendStackframe(buf *[]byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string, sink ProfilesSink) {
	e.begin(*buf)
	start := len(e.w.buf)
	funcs := dict.FunctionTable()
	lines := f.loc.Lines()
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"Stackframe.function.name":[`)
	for k := range lines.Len() {
		if k > 0 {
			e.w.byte(',')
		}
		e.w.str(dictString(dict, funcs.At(int(lines.At(k).FunctionIndex())).NameStrindex()))
	}
	e.w.raw(`],"Stackframe.file.name":[`)
	for k := range lines.Len() {
		if k > 0 {
			e.w.byte(',')
		}
		e.w.str(dictString(dict, funcs.At(int(lines.At(k).FunctionIndex())).FilenameStrindex()))
	}
	e.w.raw(`],"Stackframe.line.number":[`)
	for k := range lines.Len() {
		if k > 0 {
			e.w.byte(',')
		}
		e.w.int(lines.At(k).Line())
	}
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
	e.w.raw(`,"process.executable.build_id.htlhash":`)
	e.w.str(id)
	if name := dictString(dict, f.exe.FilenameStrindex()); name != "" {
		e.w.raw(`,"process.executable.name":`)
		e.w.str(path.Base(name))
	}
	e.w.byte('}')
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileExecutable, ProfilingExecutablesOTel, id, true)
}

// appendEvents writes the events of one sample: one per timestamp (its value the count when
// the values pair with the timestamps, else 1), or, without timestamps, one at the profile's
// time with the sum of the values (1 without values). A count of 0 writes no event: no
// sample was taken. stackID is a view of e.prof.stack.
func (e *Encoder) appendEvents(buf *[]byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, stackID string, sink ProfilesSink) {
	values, stamps := s.Values(), s.TimestampsUnixNano()
	if stamps.Len() == 0 {
		var total int64
		for _, v := range values.All() {
			total += v
		}
		if values.Len() == 0 {
			total = 1
		}
		e.appendEventsAt(buf, dict, s, stackID, e.prof.ts, total, sink)
		return
	}
	for i, ts := range stamps.All() {
		count := int64(1)
		if values.Len() > 0 { // ValidateProfile: as many as the timestamps
			count = values.At(i)
		}
		e.appendEventsAt(buf, dict, s, stackID, int64(ts), count, sink)
	}
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
	e.w.raw(`,"Stacktrace.id":`)
	e.w.str(stackID)
	e.w.raw(`,"Stacktrace.count":`)
	e.w.int(count)
	if st.freq > 0 {
		e.w.raw(`,"Stacktrace.sampling_frequency":`)
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
