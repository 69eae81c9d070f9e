// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// ProfileDoc is the kind of a profiling document. One profile becomes events (one per stack
// trace and time) and the content-addressed documents the events refer to: stack traces,
// stack frames, executables and hosts, each written once within its lifetime (ProfilesSeen).
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

// ProfilesSink receives each profiling document after it is written to the buffer.
type ProfilesSink interface {
	// AddProfileDocument records the document written at the end of the buffer from start
	// on: its kind, its index or data stream, its _id ("" for none: the node assigns one),
	// and whether index is a data stream (written with require_data_stream). id is valid only
	// during the call: a sink that keeps it copies it. During the call, the encoder's Repair
	// returns the document's repair.
	AddProfileDocument(start int, kind ProfileDoc, index, id string, dataStream bool)
}

// ProfilesSeen remembers the content-addressed documents already written, so that each is
// written once within its lifetime.
type ProfilesSeen interface {
	// Seen reports whether the document of kind with id was written within its lifetime;
	// when it was not, Seen records it as written now. id is valid only during the call: an
	// implementation that records it copies it.
	Seen(kind ProfileDoc, id string) bool
}

// Rejections of a profile that ValidateProfile finds malformed: the profile alone is
// rejected, whole, and nothing of it is written.
const (
	// RejectionProfileIndex: an index into the dictionary is out of its table's range.
	RejectionProfileIndex = "invalid_profile_reference"
	// RejectionProfileEmpty: the profile has no samples, or a sample has no stack.
	RejectionProfileEmpty = "empty_profile"
	// RejectionProfileValue: a sample's values do not pair with its timestamps, are negative or
	// add up to more than maxSampleCount, or a line number is outside [0, 2^31-1], which the
	// stackframes data stream's integer field cannot hold.
	RejectionProfileValue = "invalid_profile_value"
)

// maxSampleCount bounds the samples of one sample entry (of one timestamp, or of the profile's
// time without timestamps): it is written as events of at most 32767 each, so at most 512.
const maxSampleCount = 512 * math.MaxInt16

// ValidateProfile checks every reference of p into dict before anything of p is written, so
// that the encoders can index the tables without checks. It returns the rejection reason and
// an error that names the reference, or "" and nil.
func ValidateProfile(dict pprofile.ProfilesDictionary, p pprofile.Profile) (string, error) {
	samples := p.Samples()
	if samples.Len() == 0 {
		return RejectionProfileEmpty, errors.New("profile has no samples")
	}
	strs := dict.StringTable().Len()
	attrs := dict.AttributeTable().Len()
	inRange := func(what string, i int32, n int) error {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("%s %d out of range [0, %d)", what, i, n)
		}
		return nil
	}
	if err := checkIndices("profile attribute index", p.AttributeIndices(), attrs); err != nil {
		return RejectionProfileIndex, err
	}
	if err := inRange("sample type string index", p.SampleType().TypeStrindex(), max(strs, 1)); err != nil {
		return RejectionProfileIndex, err
	}
	stacks, locs, maps, funcs := dict.StackTable(), dict.LocationTable(), dict.MappingTable(), dict.FunctionTable()
	for i := range samples.Len() {
		s := samples.At(i)
		if err := inRange("sample stack index", s.StackIndex(), stacks.Len()); err != nil {
			return RejectionProfileIndex, fmt.Errorf("sample %d: %w", i, err)
		}
		if err := checkIndices("sample attribute index", s.AttributeIndices(), attrs); err != nil {
			return RejectionProfileIndex, fmt.Errorf("sample %d: %w", i, err)
		}
		if s.LinkIndex() != 0 {
			if err := inRange("sample link index", s.LinkIndex(), dict.LinkTable().Len()); err != nil {
				return RejectionProfileIndex, fmt.Errorf("sample %d: %w", i, err)
			}
		}
		if err := checkSampleValues(s); err != nil {
			return RejectionProfileValue, fmt.Errorf("sample %d: %w", i, err)
		}
		st := stacks.At(int(s.StackIndex()))
		if st.LocationIndices().Len() == 0 {
			return RejectionProfileEmpty, fmt.Errorf("sample %d: stack %d has no locations", i, s.StackIndex())
		}
		for _, li := range st.LocationIndices().All() {
			if err := inRange("location index", li, locs.Len()); err != nil {
				return RejectionProfileIndex, fmt.Errorf("sample %d, stack %d: %w", i, s.StackIndex(), err)
			}
			loc := locs.At(int(li))
			if loc.MappingIndex() != 0 {
				if err := inRange("mapping index", loc.MappingIndex(), maps.Len()); err != nil {
					return RejectionProfileIndex, fmt.Errorf("location %d: %w", li, err)
				}
				m := maps.At(int(loc.MappingIndex()))
				if err := inRange("mapping filename string index", m.FilenameStrindex(), max(strs, 1)); err != nil {
					return RejectionProfileIndex, fmt.Errorf("mapping %d: %w", loc.MappingIndex(), err)
				}
				if err := checkIndices("mapping attribute index", m.AttributeIndices(), attrs); err != nil {
					return RejectionProfileIndex, fmt.Errorf("mapping %d: %w", loc.MappingIndex(), err)
				}
			}
			if err := checkIndices("location attribute index", loc.AttributeIndices(), attrs); err != nil {
				return RejectionProfileIndex, fmt.Errorf("location %d: %w", li, err)
			}
			for k := range loc.Lines().Len() {
				if n := loc.Lines().At(k).Line(); n < 0 || n > math.MaxInt32 {
					return RejectionProfileValue, fmt.Errorf("location %d, line %d: line number %d out of range [0, %d]", li, k, n, math.MaxInt32)
				}
				fi := loc.Lines().At(k).FunctionIndex()
				if err := inRange("line function index", fi, funcs.Len()); err != nil {
					return RejectionProfileIndex, fmt.Errorf("location %d, line %d: %w", li, k, err)
				}
				f := funcs.At(int(fi))
				for _, si := range []int32{f.NameStrindex(), f.SystemNameStrindex(), f.FilenameStrindex()} {
					if err := inRange("function string index", si, max(strs, 1)); err != nil {
						return RejectionProfileIndex, fmt.Errorf("function %d: %w", fi, err)
					}
				}
			}
		}
	}
	for i := range attrs {
		kv := dict.AttributeTable().At(i)
		if err := inRange("attribute key string index", kv.KeyStrindex(), max(strs, 1)); err != nil {
			return RejectionProfileIndex, fmt.Errorf("attribute %d: %w", i, err)
		}
	}
	return "", nil
}

// checkSampleValues checks that the values of s pair with its timestamps when it has both,
// are not negative, and that the samples of one time stay within maxSampleCount.
func checkSampleValues(s pprofile.Sample) error {
	values, stamps := s.Values(), s.TimestampsUnixNano()
	if stamps.Len() > 0 && values.Len() > 0 && values.Len() != stamps.Len() {
		return fmt.Errorf("%d values for %d timestamps", values.Len(), stamps.Len())
	}
	var total int64
	for _, v := range values.All() {
		if v < 0 || v > maxSampleCount {
			return fmt.Errorf("value %d out of range [0, %d]", v, maxSampleCount)
		}
		if stamps.Len() == 0 {
			if total += v; total > maxSampleCount {
				return fmt.Errorf("values add up to more than %d", maxSampleCount)
			}
		}
	}
	return nil
}

func checkIndices(what string, idx pcommon.Int32Slice, n int) error {
	for _, i := range idx.All() {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("%s %d out of range [0, %d)", what, i, n)
		}
	}
	return nil
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
