// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// A profile becomes many documents, and the caller decides which of them are written and
// where: BeginProfile checks the profile and readies it, NextProfileDocument names its next
// document (the kind, the id derived from its content, the downsampled level of an ecs-mode
// event), and AppendProfileDocument appends the document named last. A content-addressed
// document that the caller does not append (one it wrote already) is skipped; the next one is
// named from the same profile. The documents come in this order: the host of the resource (when
// it has host.id), then per sample its stack trace, the stackframe, executable and (ecs mode)
// symbolization queue documents of its frames, root first, and its events.

// ProfileDocument is a document of the profile being written, as NextProfileDocument names it.
type ProfileDocument struct {
	// ID is the document's id, derived from its content as the eBPF profiler derives the ids of
	// stack traces, frames and executables, and from the encoded attributes for a host; "" for
	// an event, which has none. It is a view valid until the next NextProfileDocument.
	ID string
	// Kind is what the document is.
	Kind ProfileDoc
	// Executable tells of a symbolization queue entry (ecs mode) that it queues the executable
	// of a frame; otherwise it queues an unsymbolized leaf frame.
	Executable bool
	// Level is, for an event of the ecs mode, 0 for the event and N for its copy in the Nth
	// downsampled index, which holds about one event in 5^N; at most
	// ProfileDownsampledLevels. (The fields are small so that the document is returned in
	// registers: it is named once per document, most of which are skipped.)
	Level uint8
}

// ProfileDownsampledLevels is the number of downsampled event indices of the ecs mode.
const ProfileDownsampledLevels = 11

// profileStep is where the cursor is in the documents of the profile.
type profileStep uint8

const (
	profileStepDone   profileStep = iota // no more documents
	profileStepHost                      // the host document is next
	profileStepSample                    // the next sample is to be read
	profileStepMeta                      // the content-addressed documents of the sample's stack
	profileStepEvents                    // the events of the sample
)

// profileMeta is a content-addressed document of the stack being written: its kind, the frame
// it is of (-1 for the stack trace), and, for a symbolization queue entry, whether it queues
// the frame's executable.
type profileMeta struct {
	kind  ProfileDoc
	frame int
	exe   bool
}

// profileCursor is where the documents of the profile that BeginProfile readied are.
type profileCursor struct {
	dict pprofile.ProfilesDictionary
	p    pprofile.Profile
	ecs  bool
	step profileStep
	doc  ProfileDocument // named last
	meta profileMeta     // of doc, when it is content-addressed

	// The host document, written by BeginProfile (its id is derived from it).
	host       []byte
	hostID     [24]byte
	hostIDLen  int
	hostRepair Repair
	hasHost    bool

	sample int // the sample being written
	s      pprofile.Sample
	metas  []profileMeta // the content-addressed documents of its stack
	next   int           // the next of metas

	// The events of the sample: at its time number time (of times), the time at and the
	// samples left to write then; the otel mode's event named last holds count samples.
	time, times int
	at, left    int64
	count       int64
	// The ecs mode: the event named last is number n-1 of its time, to be copied into levels
	// downsampled indices, of which level are named; key and timeKey are the downsampling
	// hashes of the sample and of its time; thread is the sample's thread.name.
	n             int64
	level, levels uint8
	key, timeKey  uint64
	thread        pcommon.Value
	hasThread     bool
	// The ecs-mode event appended last, at [evStart, evEnd) of the buffer, which its
	// downsampled copies copy, and its repair; evWritten when it was appended.
	evStart, evEnd int
	evRepair       Repair
	evWritten      bool
}

// BeginProfile readies the documents of profile p, whose references go into dict, in the
// encoder's mode, for NextProfileDocument. A profile that ValidateProfile rejects has no
// documents, and Rejection returns the reason; so does a mode other than otel and ecs
// (RejectUnsupported), and, in the ecs mode, a profile that is not on-CPU (RejectUnsupported)
// or has more than maxECSEvents samples (RejectProfileTooLarge). BeginProfile writes nothing to
// the caller's buffer.
func (e *Encoder) BeginProfile(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	e.rejection, e.repair = "", RepairNone
	st := &e.prof
	c := &st.cur
	c.step, c.doc = profileStepDone, ProfileDocument{}
	if e.mode != ModeOTel && e.mode != ModeECS {
		e.rejection = RejectUnsupported
		return
	}
	if reason, _ := ValidateProfile(dict, p); reason != "" {
		e.rejection = reason
		return
	}
	c.ecs = e.mode == ModeECS
	if c.ecs {
		if !onCPUProfile(dict, p) {
			e.rejection = RejectUnsupported
			return
		}
		if profileSampleTotal(p) > maxECSEvents {
			e.rejection = RejectProfileTooLarge
			return
		}
	}
	c.dict, c.p, c.sample, c.step = dict, p, 0, profileStepHost
	st.ts = int64(p.Time())
	if c.ecs {
		st.freq = max(samplingFrequency(dict, p), 1)
		e.hostECS(dict, p)
		e.ecsEventFields(dict, p)
	} else {
		st.freq = samplingFrequency(dict, p)
		e.hostOTel()
		e.profileAttrs(dict, p)
	}
}

// keepHost keeps the host document written into c.host, its id and its repair.
func (c *profileCursor) keepHost(doc []byte, id string, repair Repair) {
	c.host = doc
	c.hostIDLen = copy(c.hostID[:], id)
	c.hostRepair = repair
	c.hasHost = true
}

// NextProfileDocument names the next document of the profile readied by BeginProfile, for
// AppendProfileDocument, or returns false when there is none.
func (e *Encoder) NextProfileDocument() (ProfileDocument, bool) {
	c := &e.prof.cur
	for {
		switch c.step {
		case profileStepHost:
			c.step = profileStepSample
			if c.hasHost {
				c.doc = ProfileDocument{Kind: ProfileHost, ID: unsafe.String(&c.hostID[0], c.hostIDLen)}
				return c.doc, true
			}
		case profileStepSample:
			if c.sample == c.p.Samples().Len() {
				c.step = profileStepDone
				continue
			}
			e.beginSample()
			c.step = profileStepMeta
		case profileStepMeta:
			if c.next < len(c.metas) {
				e.nameMeta(c.metas[c.next])
				c.next++
				return c.doc, true
			}
			c.step = profileStepEvents
		case profileStepEvents:
			if e.nextEvent() {
				return c.doc, true
			}
			c.sample++
			c.step = profileStepSample
		default:
			c.doc = ProfileDocument{}
			return c.doc, false
		}
	}
}

// beginSample reads the stack of sample c.sample, lists its content-addressed documents and
// readies its events.
func (e *Encoder) beginSample() {
	st := &e.prof
	c := &st.cur
	c.s = c.p.Samples().At(c.sample)
	e.profileFrames(c.dict, c.s)
	stackID := e.stacktraceID()
	if c.ecs {
		c.metas = e.stackMetasECS(c.metas[:0])
		c.thread, c.hasThread = dictAttr(c.dict, c.s.AttributeIndices(), attrThreadName)
		c.key = mix64(st.seed ^ xxhash.Sum64String(stackID) ^ uint64(c.sample)<<40)
	} else {
		c.metas = e.stackMetas(c.metas[:0])
	}
	c.next = 0
	c.time, c.times = 0, sampleTimes(c.s)
	c.left, c.n, c.level, c.levels = 0, 0, 0, 0
}

// nameMeta names the content-addressed document m, with its id.
func (e *Encoder) nameMeta(m profileMeta) {
	st := &e.prof
	c := &st.cur
	c.meta = m
	var id string
	switch {
	case m.frame < 0:
		id = st.stackID()
	case m.kind == ProfileStackframe || (m.kind == ProfileSymbolizationQueue && !m.exe):
		fid := frameID(&st.frames[m.frame])
		id = st.putID(fid[:])
	default: // an executable, or its symbolization queue entry
		id = st.putID(st.frames[m.frame].file[:])
	}
	c.doc = ProfileDocument{Kind: m.kind, ID: id, Executable: m.exe}
}

// nextEvent names the next event of the sample, or returns false when it has no more.
func (e *Encoder) nextEvent() bool {
	c := &e.prof.cur
	for {
		if c.ecs {
			if c.level < c.levels {
				c.level++
				c.doc = ProfileDocument{Kind: ProfileEvent, Level: c.level}
				return true
			}
			if c.n < c.left {
				// At most ProfileDownsampledLevels: it fits.
				c.levels = uint8(ecsDownsampleLevels(mix64(c.timeKey ^ uint64(c.at) ^ uint64(c.n)<<20)))
				c.n++
				c.level, c.evWritten = 0, false
				c.doc = ProfileDocument{Kind: ProfileEvent}
				return true
			}
		} else if c.left > 0 {
			c.count = min(c.left, maxEventCount)
			c.left -= c.count
			c.doc = ProfileDocument{Kind: ProfileEvent}
			return true
		}
		if c.time == c.times {
			return false
		}
		c.at, c.left = sampleAt(c.s, c.time, e.prof.ts)
		c.timeKey = mix64(c.key ^ uint64(c.time))
		c.n = 0
		c.time++
	}
}

// AppendProfileDocument appends the document NextProfileDocument named last to dst and
// returns the extended buffer; Repair then returns its repair. Each named document is appended
// at most once; the caller only appends to the buffer between the documents of a profile (an
// ecs-mode event's downsampled copies copy it from the buffer). With no document named, it
// returns dst unchanged.
func (e *Encoder) AppendProfileDocument(dst []byte) []byte {
	st := &e.prof
	c := &st.cur
	switch c.doc.Kind {
	case ProfileHost:
		e.begin(dst)
		e.w.bytes(c.host)
		return e.profDone(c.hostRepair)
	case ProfileStacktrace:
		if c.ecs {
			return e.appendStacktraceECS(dst)
		}
		return e.appendStacktrace(dst)
	case ProfileStackframe:
		if c.ecs {
			return e.appendStackframeECS(dst, c.dict, &st.frames[c.meta.frame])
		}
		return e.appendStackframe(dst, c.dict, &st.frames[c.meta.frame])
	case ProfileExecutable:
		if c.ecs {
			return e.appendExecutableECS(dst, c.dict, &st.frames[c.meta.frame], c.doc.ID)
		}
		return e.appendExecutable(dst, c.dict, &st.frames[c.meta.frame], c.doc.ID)
	case ProfileSymbolizationQueue:
		if c.doc.Executable {
			return e.appendQueueEntry(dst, `"Executable.file.id"`, c.doc.ID)
		}
		return e.appendQueueEntry(dst, `"Stacktrace.frame.id"`, c.doc.ID)
	case ProfileEvent:
		if !c.ecs {
			return e.appendEvent(dst, c.dict, c.s, c.at, c.count)
		}
		if c.doc.Level == 0 || !c.evWritten || c.evEnd > len(dst) {
			return e.appendEventECS(dst)
		}
		e.begin(dst)
		e.w.bytes(dst[c.evStart:c.evEnd]) // the same event: the buffer only grows
		return e.profDone(c.evRepair)
	}
	return dst
}

// sampleTimes is the number of times of sample s: its timestamps, or, without, the profile's time.
func sampleTimes(s pprofile.Sample) int {
	return max(s.TimestampsUnixNano().Len(), 1)
}

// sampleAt returns time j of sample s and the samples taken then: per timestamp its paired
// value (1 without values), or, without timestamps, the profile's time ts with the sum of the
// values (1 without values). A count of 0 means no sample was taken: no event is written for it.
func sampleAt(s pprofile.Sample, j int, ts int64) (at, count int64) {
	values, stamps := s.Values(), s.TimestampsUnixNano()
	if stamps.Len() == 0 {
		if values.Len() == 0 {
			return ts, 1
		}
		for _, v := range values.All() {
			count += v
		}
		return ts, count
	}
	count = 1
	if values.Len() > 0 { // ValidateProfile: as many as the timestamps
		count = values.At(j)
	}
	return int64(stamps.At(j)), count
}
