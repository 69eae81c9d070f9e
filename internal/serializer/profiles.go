// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// ProfileDoc is the kind of a profiling document. One profile becomes events (one per stack
// trace and time) and the content-addressed documents the events refer to: stack traces,
// stack frames, executables and hosts, each of which the caller writes once within its lifetime
// (see NextProfileDocument).
type ProfileDoc uint8

// The kinds of profiling documents.
const (
	ProfileEvent ProfileDoc = iota + 1
	ProfileStacktrace
	ProfileStackframe
	ProfileExecutable
	ProfileHost
	// ProfileSymbolizationQueue: ecs mode's queues of frames and executables that need
	// symbolization, where the Universal Profiling indices have them.
	ProfileSymbolizationQueue
)

// String is the kind's name in telemetry and log lines.
func (k ProfileDoc) String() string {
	switch k {
	case ProfileEvent:
		return "event"
	case ProfileStacktrace:
		return "stacktrace"
	case ProfileStackframe:
		return "stackframe"
	case ProfileExecutable:
		return "executable"
	case ProfileHost:
		return "host"
	case ProfileSymbolizationQueue:
		return "symbolization_queue"
	}
	return "unknown"
}

// dictString is the string at index i of the dictionary's string table, "" when the table is
// empty (ValidateProfile lets index 0 through then, the empty string of the format).
func dictString(dict pprofile.ProfilesDictionary, i int32) string {
	t := dict.StringTable()
	if i < 0 || int(i) >= t.Len() {
		return ""
	}
	return t.At(int(i))
}

// contentID is the id of a document derived from the bytes b of its content: XXH64 of b with
// two seeds, 16 bytes as unpadded base64url, a view of st.id.
func (st *profileState) contentID(b []byte) string {
	var sum [16]byte
	st.xx.ResetWithSeed(0)
	_, _ = st.xx.Write(b)
	binary.BigEndian.PutUint64(sum[:8], st.xx.Sum64())
	st.xx.ResetWithSeed(0x9e3779b97f4a7c15)
	_, _ = st.xx.Write(b)
	binary.BigEndian.PutUint64(sum[8:], st.xx.Sum64())
	return st.putID(sum[:])
}

// The attributes profile documents read.
const (
	attrBuildIDHTL = "process.executable.build_id.htlhash"
	attrFrameType  = "profile.frame.type"
	attrHostID     = "host.id"
)

// profileState is the scratch of the profile being written, reused from one profile to the
// next.
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
	freq   int64  // the events' sampling frequency, 0 for none
	lower  []byte // ecs mode: a host attribute's key or value, lowercased
	seed   uint64 // ecs mode: the downsampling hash of the profile's event fields
	cur    profileCursor
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

// profDone records the repair of the profile document written and returns the buffer.
func (e *Encoder) profDone(inherited Repair) []byte {
	e.repair = e.w.profRepair(inherited)
	out := e.w.buf
	e.w.buf = nil
	return out
}

// profRepair is the repair of the profile document written: the writer's, else inherited (the
// attributes every event copies), else none.
func (w *writer) profRepair(inherited Repair) Repair {
	switch {
	case w.deepValues > 0:
		return RepairDepthLimit
	case w.invalidUTF8 > 0:
		return RepairInvalidUTF8
	}
	return inherited
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
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
	return e.prof.stackID()
}

// stackID is a view of the id of the stack being written, which stacktraceID wrote.
func (st *profileState) stackID() string {
	return unsafe.String(&st.stack[0], base64.RawURLEncoding.EncodedLen(16))
}

// frameID writes the 24 bytes of a frame id, the file id and the address or line big-endian.
func frameID(f *profileFrame) [24]byte {
	var b [24]byte
	copy(b[:16], f.file[:])
	binary.BigEndian.PutUint64(b[16:], f.addr)
	return b
}

// writeFrameIDs writes the ids of the frames of e.prof.frames, root first, as base64url.
func (e *Encoder) writeFrameIDs() {
	st := &e.prof
	for i := len(st.frames) - 1; i >= 0; i-- {
		id := frameID(&st.frames[i])
		e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, id[:]))
	}
}

// writeFrameTypes writes the types of the frames of e.prof.frames, root first, run-length
// encoded, as base64url.
func (e *Encoder) writeFrameTypes() {
	st := &e.prof
	st.types = runLengthTypes(st.types[:0], st.frames)
	e.w.set(base64.RawURLEncoding.AppendEncode(e.w.buf, st.types))
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

// frameLinePart is the member of a frame's lines that writeFrameLines writes.
type frameLinePart uint8

const (
	frameFunctionName frameLinePart = iota
	frameFileName
	frameLineNumber
)

// writeFrameLines writes part of each line of a stack frame, comma-separated, inside the array
// the caller opened: the stackframe documents of both modes are three such arrays, in their
// own order and under their own names.
func (e *Encoder) writeFrameLines(dict pprofile.ProfilesDictionary, lines pprofile.LineSlice, part frameLinePart) {
	funcs := dict.FunctionTable()
	for k := range lines.Len() {
		if k > 0 {
			e.w.byte(',')
		}
		line := lines.At(k)
		switch part {
		case frameFunctionName:
			e.w.str(dictString(dict, funcs.At(int(line.FunctionIndex())).NameStrindex()))
		case frameFileName:
			e.w.str(dictString(dict, funcs.At(int(line.FunctionIndex())).FilenameStrindex()))
		case frameLineNumber:
			e.w.int(line.Line())
		}
	}
}
