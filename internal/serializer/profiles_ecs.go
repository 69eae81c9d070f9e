// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
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

// profileSampleTotal returns the samples of a valid profile p: the sum of the counts of its
// samples at each of their times (sampleAt; each at most maxSampleCount, so the sum cannot
// overflow).
func profileSampleTotal(p pprofile.Profile) int64 {
	var total int64
	samples := p.Samples()
	for i := range samples.Len() {
		s := samples.At(i)
		for j := range sampleTimes(s) {
			_, count := sampleAt(s, j, 0)
			total += count
		}
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

// hostECS writes the host document of a resource with host.id into e.prof.cur.host: the time
// in seconds, ecs.version, host.id, and every other attribute of the resource and of the
// profile (the first of a repeated key wins) as a string, key and value lowercased, leaving out
// empty values; its id is derived from that content.
func (e *Encoder) hostECS(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	c := &e.prof.cur
	c.hasHost = false
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
	saved := e.w
	e.w = writer{buf: c.host[:0]}
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
	e.w.byte('}')
	c.keepHost(e.w.buf, id, e.w.profRepair(RepairNone))
	e.w = saved
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

// stackMetasECS appends to dst the content-addressed documents of the stack in e.prof.frames:
// its stack trace, then, root first, the stackframe of each symbolized frame, the
// symbolization queue entry of the leaf frame when it is unsymbolized, the executable of each
// frame with a build id and a file name, and the symbolization queue entry of the executable
// of each unsymbolized frame with a build id.
func (e *Encoder) stackMetasECS(dst []profileMeta) []profileMeta {
	st := &e.prof
	dict := st.cur.dict
	dst = append(dst, profileMeta{kind: ProfileStacktrace, frame: -1})
	for i := len(st.frames) - 1; i >= 0; i-- {
		f := &st.frames[i]
		sym := symbolized(dict, f.loc)
		if sym {
			dst = append(dst, profileMeta{kind: ProfileStackframe, frame: i})
		} else if i == 0 {
			dst = append(dst, profileMeta{kind: ProfileSymbolizationQueue, frame: i})
		}
		if f.hasBuild {
			if dictString(dict, f.exe.FilenameStrindex()) != "" {
				dst = append(dst, profileMeta{kind: ProfileExecutable, frame: i})
			}
			if !sym {
				dst = append(dst, profileMeta{kind: ProfileSymbolizationQueue, frame: i, exe: true})
			}
		}
	}
	return dst
}

// appendStacktraceECS writes the stack trace document of e.prof.frames: the ids of its frames
// and their types, root first.
func (e *Encoder) appendStacktraceECS(dst []byte) []byte {
	e.begin(dst)
	e.w.raw(`{` + ecsVersionField + `,"Stacktrace.frame.ids":"`)
	e.writeFrameIDs()
	e.w.raw(`","Stacktrace.frame.types":"`)
	e.writeFrameTypes()
	e.w.raw(`"}`)
	return e.profDone(RepairNone)
}

// appendStackframeECS writes the stackframe document of a symbolized frame: one entry per line
// of file name, function name and line number.
func (e *Encoder) appendStackframeECS(dst []byte, dict pprofile.ProfilesDictionary, f *profileFrame) []byte {
	e.begin(dst)
	lines := f.loc.Lines()
	e.w.raw(`{` + ecsVersionField + `,"Stackframe.file.name":[`)
	e.writeFrameLines(dict, lines, frameFileName)
	e.w.raw(`],"Stackframe.function.name":[`)
	e.writeFrameLines(dict, lines, frameFunctionName)
	e.w.raw(`],"Stackframe.line.number":[`)
	e.writeFrameLines(dict, lines, frameLineNumber)
	e.w.raw(`]}`)
	return e.profDone(RepairNone)
}

// appendExecutableECS writes the executable document of a frame's mapping: the start of the
// week of the profile's time in seconds, its build id and its file name (the caller checks it has one).
func (e *Encoder) appendExecutableECS(dst []byte, dict pprofile.ProfilesDictionary, f *profileFrame, id string) []byte {
	name := dictString(dict, f.exe.FilenameStrindex())
	e.begin(dst)
	e.w.raw(`{"@timestamp":`)
	// Weeks start on Monday 00:00 UTC, as time.Truncate cuts them; the Unix epoch is a Thursday.
	const week, monday = 7 * 24 * 3600, 4 * 24 * 3600
	e.w.int(floorDiv(floorDiv(e.prof.ts, 1e9)-monday, week)*week + monday)
	e.w.raw(`,` + ecsVersionField + `,"Executable.build.id":`)
	e.w.str(id)
	e.w.raw(`,"Executable.file.name":`)
	e.w.str(name)
	e.w.byte('}')
	return e.profDone(RepairNone)
}

// appendQueueEntry writes a symbolization queue entry of id: the id as the one element of
// field, created and due at the profile's time, with no retries.
func (e *Encoder) appendQueueEntry(dst []byte, field, id string) []byte {
	e.begin(dst)
	e.w.raw(`{` + ecsVersionField + `,`)
	e.w.raw(field)
	e.w.raw(`:[`)
	e.w.str(id)
	e.w.raw(`],"Time.created":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"Symbolization.time.next":`)
	e.w.rfc3339Nano(e.prof.ts)
	e.w.raw(`,"Symbolization.retries":0}`)
	return e.profDone(RepairNone)
}

// appendEventECS writes an event of count 1 of the sample being written, at the cursor's time,
// and keeps where it is in the buffer for its downsampled copies.
func (e *Encoder) appendEventECS(dst []byte) []byte {
	st := &e.prof
	c := &st.cur
	e.begin(dst)
	c.evStart = len(dst)
	e.w.raw(`{"@timestamp":`)
	e.w.rfc3339Nano(c.at)
	e.w.raw(`,"Stacktrace.id":`)
	e.w.str(st.stackID())
	e.w.raw(`,"process.thread.name":`)
	e.writeValueString(c.thread, c.hasThread)
	e.w.bytes(st.attrs)
	out := e.profDone(st.repair)
	c.evEnd, c.evRepair, c.evWritten = len(out), e.repair, true
	return out
}

// ecsDownsampleLevels is the number of downsampled indices an event of hash h goes into: each
// base-5 digit of h, lowest first, that is 0 (probability 1/5) takes it one index further, so
// that the Nth index holds an event with probability 5^-N, as Universal Profiling's
// downsampling of each event independently does.
func ecsDownsampleLevels(h uint64) int {
	n := 0
	for n < ProfileDownsampledLevels && h%5 == 0 {
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
