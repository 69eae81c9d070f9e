// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// ecsVersionField is the ecs.version every Universal Profiling document holds.
const ecsVersionField = `"ecs.version":"1.12.0"`

// The resource attributes that ecs-mode events hold, and their fields.
var ecsEventFields = [...]struct{ attr, field string }{
	{"k8s.pod.name", "orchestrator.resource.name"},
	{"container.id", "container.id"},
	{"container.name", "container.name"},
	{"k8s.namespace.name", "k8s.namespace.name"},
	{"service.name", "service.name"},
	{"host.name", "host.name"},
}

const (
	attrThreadName     = "thread.name"
	attrExecutableName = "process.executable.name"
)

// maxECSEvents bounds the samples of one profile in the ecs mode: each is an event document
// of profiling-events-all (Universal Profiling counts event documents, not Stacktrace.count),
// and about one in four more is a downsampled copy, so one profile writes at most about 82000
// events, some 27 MB. A profile with more is rejected whole (RejectProfileTooLarge) rather
// than written in part. The eBPF profiler's profiles (20 samples a second per core, reported
// every few seconds) stay far below it.
const maxECSEvents = 1 << 16

// appendProfileECS writes the ecs-mode documents of a valid profile: the host, then per sample
// its stack trace, frames, executables and symbolization queue entries that seen has not had,
// and its events, each also written into the downsampled indices it is drawn for. Universal
// Profiling holds on-CPU samples only: a profile of another type writes nothing, and
// Rejection returns RejectUnsupported; one of more than maxECSEvents samples writes nothing
// either, and Rejection returns RejectProfileTooLarge.
func (e *Encoder) appendProfileECS(buf *[]byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, seen ProfilesSeen, sink ProfilesSink) {
	if !onCPUProfile(dict, p) {
		e.rejection = RejectUnsupported
		return
	}
	if profileSampleTotal(p) > maxECSEvents {
		e.rejection = RejectProfileTooLarge
		return
	}
	st := &e.prof
	st.ts = int64(p.Time())
	st.freq = max(samplingFrequency(dict, p), 1)
	e.appendHostECS(buf, dict, p, seen, sink)
	e.ecsEventFields(dict, p)
	samples := p.Samples()
	for i := range samples.Len() {
		s := samples.At(i)
		e.profileFrames(dict, s)
		id := e.stacktraceID()
		e.appendStackMetaECS(buf, dict, id, seen, sink)
		e.appendEventsECS(buf, dict, s, i, id, sink)
	}
}

// profileSampleTotal returns the samples of a valid profile p: the sum of the counts
// sampleCounts gives each of its samples (each at most maxSampleCount, so the sum cannot
// overflow).
func profileSampleTotal(p pprofile.Profile) int64 {
	var total int64
	samples := p.Samples()
	for i := range samples.Len() {
		sampleCounts(samples.At(i), 0, func(_ int, _, count int64) { total += count })
	}
	return total
}

// onCPUProfile reports whether p samples the CPU: sample type samples/count, period type
// cpu/nanoseconds (in any case), the eBPF profiler's.
func onCPUProfile(dict pprofile.ProfilesDictionary, p pprofile.Profile) bool {
	is := func(i int32, want string) bool { return strings.EqualFold(dictString(dict, i), want) }
	return is(p.SampleType().TypeStrindex(), "samples") && is(p.SampleType().UnitStrindex(), "count") &&
		is(p.PeriodType().TypeStrindex(), "cpu") && is(p.PeriodType().UnitStrindex(), "nanoseconds")
}

// seenECS asks seen about an ecs-mode document under its id prefixed with "ecs/": the two modes
// derive the same ids for stack traces, frames and executables, and a profile of one mode does
// not write the other's documents.
func (st *profileState) seenECS(seen ProfilesSeen, kind ProfileDoc, id string) bool {
	n := copy(st.key[:], "ecs/")
	n += copy(st.key[n:], id)
	return seen.Seen(kind, unsafe.String(&st.key[0], n))
}

// profileAttr returns the value of key among the profile's attributes, else the resource's.
func (e *Encoder) profileAttr(dict pprofile.ProfilesDictionary, p pprofile.Profile, key string) (pcommon.Value, bool) {
	if v, ok := dictAttr(dict, p.AttributeIndices(), key); ok {
		return v, true
	}
	return e.resourceAttrs.Get(key)
}

// ecsEventFields encodes the fields every event of p holds after its time, stack trace id and
// thread name, into e.prof.attrs, and derives the profile's downsampling seed from them.
func (e *Encoder) ecsEventFields(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	st := &e.prof
	saved := e.w
	e.w = writer{buf: st.attrs[:0]}
	e.w.raw(`,` + ecsVersionField + `,"host.id":`)
	e.writeAttrString(dict, p, attrHostID)
	for _, f := range ecsEventFields {
		if v, ok := e.profileAttr(dict, p, f.attr); ok && v.AsString() != "" {
			e.w.byte(',')
			e.w.str(f.field)
			e.w.byte(':')
			e.writeAttrString(dict, p, f.attr)
		}
	}
	e.w.raw(`,"process.executable.name":`)
	e.writeAttrString(dict, p, attrExecutableName)
	e.w.raw(`,"Stacktrace.sampling_frequency":`)
	e.w.int(st.freq)
	e.w.raw(`,"Stacktrace.count":1,"profiling.project.id":2}`)
	st.attrs = e.w.buf
	st.repair = RepairNone
	if e.w.invalidUTF8 > 0 {
		st.repair = RepairInvalidUTF8
	}
	st.seed = xxhash.Sum64(st.attrs)
	e.w = saved
}

// writeAttrString writes the profile's or the resource's attribute key as a JSON string, ""
// when neither has it.
func (e *Encoder) writeAttrString(dict pprofile.ProfilesDictionary, p pprofile.Profile, key string) {
	v, ok := e.profileAttr(dict, p, key)
	e.writeValueString(v, ok)
}

// writeValueString writes v as a JSON string (pdata's AsString form), "" for none. Only values
// that are neither strings nor integers nor booleans allocate.
func (e *Encoder) writeValueString(v pcommon.Value, ok bool) {
	switch {
	case !ok:
		e.w.raw(`""`)
	case v.Type() == pcommon.ValueTypeStr:
		e.w.str(v.Str())
	case v.Type() == pcommon.ValueTypeInt:
		e.w.byte('"')
		e.w.int(v.Int())
		e.w.byte('"')
	case v.Type() == pcommon.ValueTypeBool:
		e.w.byte('"')
		e.w.bool(v.Bool())
		e.w.byte('"')
	default:
		e.w.str(v.AsString())
	}
}

// appendHostECS writes the host document of a resource with host.id: the time in seconds,
// ecs.version, host.id, and every other attribute of the resource and of the profile (the
// first of a repeated key wins) as a string, key and value lowercased, leaving out empty
// values; its id is derived from that content.
func (e *Encoder) appendHostECS(buf *[]byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, seen ProfilesSeen, sink ProfilesSink) {
	hostID, ok := e.profileAttr(dict, p, attrHostID)
	if !ok || hostID.AsString() == "" {
		return
	}
	for len(e.seen) == 0 {
		e.seen = append(e.seen, keySet{})
	}
	set := &e.seen[0]
	set.reset()
	set.add(attrHostID)
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.int(floorDiv(e.prof.ts, 1e9))
	e.w.raw(`,` + ecsVersionField + `,"host.id":`)
	contentStart := len(e.w.buf)
	e.writeLowerString(hostID)
	for _, i := range p.AttributeIndices().All() {
		kv := dict.AttributeTable().At(int(i))
		e.writeHostAttr(set, dictString(dict, kv.KeyStrindex()), kv.Value())
	}
	for k, v := range e.resourceAttrs.All() {
		e.writeHostAttr(set, k, v)
	}
	id := e.prof.contentID(e.w.buf[contentStart:])
	if e.prof.seenECS(seen, ProfileHost, id) {
		*buf = e.w.buf[:start]
		e.w.buf = nil
		return
	}
	e.w.byte('}')
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileHost, ProfilingHostsECS, id, false)
}

// writeHostAttr writes one attribute of the host document unless it is a control attribute,
// its key lowercased was written already, or its value is empty.
func (e *Encoder) writeHostAttr(set *keySet, k string, v pcommon.Value) {
	if controlattr.Is(k) || v.Type() == pcommon.ValueTypeEmpty || (v.Type() == pcommon.ValueTypeStr && v.Str() == "") {
		return
	}
	st := &e.prof
	st.lower = appendLower(st.lower[:0], k)
	if string(st.lower) != k {
		k = string(st.lower) // allocates, only for a key that is not lowercase
	}
	if !set.add(k) {
		return
	}
	e.w.byte(',')
	e.w.str(k)
	e.w.byte(':')
	e.writeLowerString(v)
}

// writeLowerString writes v as a lowercased JSON string.
func (e *Encoder) writeLowerString(v pcommon.Value) {
	st := &e.prof
	switch v.Type() {
	case pcommon.ValueTypeStr:
		st.lower = appendLower(st.lower[:0], v.Str())
	case pcommon.ValueTypeInt:
		st.lower = strconv.AppendInt(st.lower[:0], v.Int(), 10)
	case pcommon.ValueTypeBool:
		st.lower = strconv.AppendBool(st.lower[:0], v.Bool())
	default:
		st.lower = appendLower(st.lower[:0], v.AsString())
	}
	e.w.str(unsafe.String(unsafe.SliceData(st.lower), len(st.lower)))
}

// appendLower appends s lowercased as strings.ToLower does, keeping bytes of invalid UTF-8 as
// they are (the writer repairs them).
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, c)
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += size
	}
	return dst
}

// appendStackMetaECS writes the stack trace of e.prof.frames, the frames' stackframe and
// executable documents, and the symbolization queue entries of its unsymbolized leaf frame and
// of the executables of its unsymbolized frames, each that seen has not had. stackID is a view
// of e.prof.stack.
func (e *Encoder) appendStackMetaECS(buf *[]byte, dict pprofile.ProfilesDictionary, stackID string, seen ProfilesSeen, sink ProfilesSink) {
	st := &e.prof
	if !e.prof.seenECS(seen, ProfileStacktrace, stackID) {
		e.begin(*buf)
		start := len(e.w.buf)
		e.w.raw(`{` + ecsVersionField + `,"Stacktrace.frame.ids":"`)
		for i := len(st.frames) - 1; i >= 0; i-- { // root first
			id := frameID(&st.frames[i])
			e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, id[:]))
		}
		e.w.raw(`","Stacktrace.frame.types":"`)
		st.types = runLengthTypes(st.types[:0], st.frames)
		e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, st.types))
		e.w.raw(`"}`)
		*buf = e.profDone(RepairNone)
		sink.AddProfileDocument(start, ProfileStacktrace, ProfilingStacktracesECS, stackID, false)
	}
	for i := len(st.frames) - 1; i >= 0; i-- {
		f := &st.frames[i]
		sym := symbolized(dict, f.loc)
		if sym {
			fid := frameID(f)
			if id := st.putID(fid[:]); !e.prof.seenECS(seen, ProfileStackframe, id) {
				e.appendStackframeECS(buf, dict, f, id, sink)
			}
		} else if i == 0 {
			fid := frameID(f)
			if id := st.putID(fid[:]); !e.prof.seenECS(seen, ProfileSymbolizationQueue, id) {
				e.appendQueueEntry(buf, ProfilingSQLeafFramesECS, `"Stacktrace.frame.id"`, id, sink)
			}
		}
		if f.hasBuild {
			if id := st.putID(f.file[:]); dictString(dict, f.exe.FilenameStrindex()) != "" && !e.prof.seenECS(seen, ProfileExecutable, id) {
				e.appendExecutableECS(buf, dict, f, id, sink)
			}
			if !sym {
				if id := st.putID(f.file[:]); !e.prof.seenECS(seen, ProfileSymbolizationQueue, id) {
					e.appendQueueEntry(buf, ProfilingSQExecutablesECS, `"Executable.file.id"`, id, sink)
				}
			}
		}
	}
}

// appendStackframeECS writes the stackframe document of a symbolized frame: one entry per line
// of file name, function name and line number.
func (e *Encoder) appendStackframeECS(buf *[]byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string, sink ProfilesSink) {
	e.begin(*buf)
	start := len(e.w.buf)
	lines := f.loc.Lines()
	e.w.raw(`{` + ecsVersionField + `,"Stackframe.file.name":[`)
	e.writeFrameLines(dict, lines, frameFileName)
	e.w.raw(`],"Stackframe.function.name":[`)
	e.writeFrameLines(dict, lines, frameFunctionName)
	e.w.raw(`],"Stackframe.line.number":[`)
	e.writeFrameLines(dict, lines, frameLineNumber)
	e.w.raw(`]}`)
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileStackframe, ProfilingStackframesECS, id, false)
}

// appendExecutableECS writes the executable document of a frame's mapping: the start of the
// week of the profile's time in seconds, its build id and its file name (the caller checks it has one).
func (e *Encoder) appendExecutableECS(buf *[]byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string, sink ProfilesSink) {
	name := dictString(dict, f.exe.FilenameStrindex())
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	// Weeks start on Monday 00:00 UTC, as time.Truncate cuts them; the Unix epoch is a Thursday.
	const week, monday = 7 * 24 * 3600, 4 * 24 * 3600
	e.w.int(floorDiv(floorDiv(e.prof.ts, 1e9)-monday, week)*week + monday)
	e.w.raw(`,` + ecsVersionField + `,"Executable.build.id":`)
	e.w.str(id)
	e.w.raw(`,"Executable.file.name":`)
	e.w.str(name)
	e.w.byte('}')
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileExecutable, ProfilingExecutablesECS, id, false)
}

// appendQueueEntry writes a symbolization queue entry of id into index: the id as the one
// element of field, created and due at the profile's time, with no retries.
func (e *Encoder) appendQueueEntry(buf *[]byte, index, field, id string, sink ProfilesSink) {
	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{` + ecsVersionField + `,`)
	e.w.raw(field)
	e.w.raw(`:[`)
	e.w.str(id)
	e.w.raw(`],"Time.created":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"Symbolization.time.next":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"Symbolization.retries":0}`)
	*buf = e.profDone(RepairNone)
	sink.AddProfileDocument(start, ProfileSymbolizationQueue, index, id, false)
}

// appendEventsECS writes the events of sample number i: at each of its times (sampleCounts) as
// many events of count 1 as samples were taken, each also into the downsampled indices
// ecsDownsampleLevels draws for it.
func (e *Encoder) appendEventsECS(buf *[]byte, dict pprofile.ProfilesDictionary, s pprofile.Sample, i int, stackID string, sink ProfilesSink) {
	thread, hasThread := dictAttr(dict, s.AttributeIndices(), attrThreadName)
	key := mix64(e.prof.seed ^ xxhash.Sum64String(stackID) ^ uint64(i)<<40)
	sampleCounts(s, e.prof.ts, func(j int, ts, count int64) {
		e.appendEventsECSAt(buf, stackID, thread, hasThread, ts, count, mix64(key^uint64(j)), sink)
	})
}

// appendEventsECSAt writes count events of one time; key is the downsampling hash of the
// sample and time, mixed with the event's number.
func (e *Encoder) appendEventsECSAt(buf *[]byte, stackID string, thread pcommon.Value, hasThread bool, ts, count int64, key uint64, sink ProfilesSink) {
	st := &e.prof
	for n := range count {
		e.begin(*buf)
		start := len(e.w.buf)
		e.w.raw(`{"@timestamp":`)
		e.w.rfc3339Nano(ts)
		e.w.raw(`,"Stacktrace.id":`)
		e.w.str(stackID)
		e.w.raw(`,"process.thread.name":`)
		e.writeValueString(thread, hasThread)
		e.w.bytes(st.attrs)
		*buf = e.profDone(st.repair)
		repair := e.repair
		sink.AddProfileDocument(start, ProfileEvent, ProfilingEventsECS, "", false)
		end := len(*buf)
		for level := range ecsDownsampleLevels(mix64(key ^ uint64(ts) ^ uint64(n)<<20)) {
			e.begin(*buf)
			copyStart := len(e.w.buf)
			e.w.bytes((*buf)[start:end]) // the same event: the buffer only grows
			*buf = e.profDone(repair)
			sink.AddProfileDocument(copyStart, ProfileEvent, ProfilingEventsDownsampledECS[level], "", false)
		}
	}
}

// ecsDownsampleLevels is the number of downsampled indices an event of hash h goes into: each
// base-5 digit of h, lowest first, that is 0 (probability 1/5) takes it one index further, so
// that the Nth index holds an event with probability 5^-N, as Universal Profiling's
// downsampling of each event independently does.
func ecsDownsampleLevels(h uint64) int {
	n := 0
	for n < len(ProfilingEventsDownsampledECS) && h%5 == 0 {
		h /= 5
		n++
	}
	return n
}

// mix64 is SplitMix64's finalizer: every bit of x affects every bit of the result.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
