// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"errors"
	"fmt"
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// Rejections of a profile that ValidateProfile finds malformed: the profile alone is
// rejected, whole, and nothing of it is written.
const (
	// RejectProfileIndex: an index into the dictionary is out of its table's range.
	RejectProfileIndex = "invalid_profile_reference"
	// RejectProfileEmpty: the profile has no samples, or a sample has no stack.
	RejectProfileEmpty = "empty_profile"
	// RejectProfileValue: a sample's values do not pair with its timestamps, are negative or
	// add up to more than maxSampleCount, or a line number is outside [0, 2^31-1], which the
	// stackframes data stream's integer field cannot hold.
	RejectProfileValue = "invalid_profile_value"
)

// RejectProfileTooLarge is the ecs mode's rejection of a profile whose samples add up to
// more than maxECSEvents, each of which would be an event document of its own.
const RejectProfileTooLarge = "profile_too_large"

// maxSampleCount bounds the samples of one sample entry (of one timestamp, or of the profile's
// time without timestamps): it is written as events of at most 32767 each, so at most 512.
const maxSampleCount = 512 * math.MaxInt16

// ValidateProfile checks every reference of p into dict before anything of p is written, so
// that the encoders can index the tables without checks. It returns the rejection reason and
// an error that names the reference, or "" and nil.
func ValidateProfile(dict pprofile.ProfilesDictionary, p pprofile.Profile) (string, error) {
	samples := p.Samples()
	if samples.Len() == 0 {
		return RejectProfileEmpty, errors.New("profile has no samples")
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
		return RejectProfileIndex, err
	}
	if err := inRange("sample type string index", p.SampleType().TypeStrindex(), max(strs, 1)); err != nil {
		return RejectProfileIndex, err
	}
	stacks, locs, maps, funcs := dict.StackTable(), dict.LocationTable(), dict.MappingTable(), dict.FunctionTable()
	for i := range samples.Len() {
		s := samples.At(i)
		if err := inRange("sample stack index", s.StackIndex(), stacks.Len()); err != nil {
			return RejectProfileIndex, fmt.Errorf("sample %d: %w", i, err)
		}
		if err := checkIndices("sample attribute index", s.AttributeIndices(), attrs); err != nil {
			return RejectProfileIndex, fmt.Errorf("sample %d: %w", i, err)
		}
		if s.LinkIndex() != 0 {
			if err := inRange("sample link index", s.LinkIndex(), dict.LinkTable().Len()); err != nil {
				return RejectProfileIndex, fmt.Errorf("sample %d: %w", i, err)
			}
		}
		if err := checkSampleValues(s); err != nil {
			return RejectProfileValue, fmt.Errorf("sample %d: %w", i, err)
		}
		st := stacks.At(int(s.StackIndex()))
		if st.LocationIndices().Len() == 0 {
			return RejectProfileEmpty, fmt.Errorf("sample %d: stack %d has no locations", i, s.StackIndex())
		}
		for _, li := range st.LocationIndices().All() {
			if err := inRange("location index", li, locs.Len()); err != nil {
				return RejectProfileIndex, fmt.Errorf("sample %d, stack %d: %w", i, s.StackIndex(), err)
			}
			loc := locs.At(int(li))
			if loc.MappingIndex() != 0 {
				if err := inRange("mapping index", loc.MappingIndex(), maps.Len()); err != nil {
					return RejectProfileIndex, fmt.Errorf("location %d: %w", li, err)
				}
				m := maps.At(int(loc.MappingIndex()))
				if err := inRange("mapping filename string index", m.FilenameStrindex(), max(strs, 1)); err != nil {
					return RejectProfileIndex, fmt.Errorf("mapping %d: %w", loc.MappingIndex(), err)
				}
				if err := checkIndices("mapping attribute index", m.AttributeIndices(), attrs); err != nil {
					return RejectProfileIndex, fmt.Errorf("mapping %d: %w", loc.MappingIndex(), err)
				}
			}
			if err := checkIndices("location attribute index", loc.AttributeIndices(), attrs); err != nil {
				return RejectProfileIndex, fmt.Errorf("location %d: %w", li, err)
			}
			for k := range loc.Lines().Len() {
				if n := loc.Lines().At(k).Line(); n < 0 || n > math.MaxInt32 {
					return RejectProfileValue, fmt.Errorf("location %d, line %d: line number %d out of range [0, %d]", li, k, n, math.MaxInt32)
				}
				fi := loc.Lines().At(k).FunctionIndex()
				if err := inRange("line function index", fi, funcs.Len()); err != nil {
					return RejectProfileIndex, fmt.Errorf("location %d, line %d: %w", li, k, err)
				}
				f := funcs.At(int(fi))
				for _, si := range []int32{f.NameStrindex(), f.SystemNameStrindex(), f.FilenameStrindex()} {
					if err := inRange("function string index", si, max(strs, 1)); err != nil {
						return RejectProfileIndex, fmt.Errorf("function %d: %w", fi, err)
					}
				}
			}
		}
	}
	for i := range attrs {
		kv := dict.AttributeTable().At(i)
		if err := inRange("attribute key string index", kv.KeyStrindex(), max(strs, 1)); err != nil {
			return RejectProfileIndex, fmt.Errorf("attribute %d: %w", i, err)
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
