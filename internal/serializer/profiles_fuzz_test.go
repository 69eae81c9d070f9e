// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/collector/pdata/pprofile"
)

// FuzzAppendProfile mutates the test profile's indices, values and strings from the fuzz bytes,
// bad references included: the profile's documents never panic in the otel and the ecs mode, and every
// document it writes is valid JSON, or it writes nothing and says why.
func FuzzAppendProfile(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{0xff, 0xfe, 0x80, 0x7f, 0, 0, 0, 0x80})
	f.Add([]byte("900")) // a string of the period type replaced: not on-CPU, which the ecs mode rejects
	f.Fuzz(func(t *testing.T, data []byte) {
		pd, dict, p := testProfile()
		next := func() int32 {
			if len(data) < 2 {
				return 0
			}
			v := int32(int16(binary.LittleEndian.Uint16(data)))
			data = data[2:]
			return v
		}
		for len(data) >= 3 {
			op := data[0] % 10
			data = data[1:]
			v := next()
			switch op {
			case 0:
				p.Samples().At(0).SetStackIndex(v)
			case 1:
				dict.StackTable().At(1).LocationIndices().Append(v)
			case 2:
				dict.LocationTable().At(2).Lines().At(0).SetFunctionIndex(v)
			case 3:
				dict.LocationTable().At(1).SetMappingIndex(v)
			case 4:
				dict.AttributeTable().At(int(uint32(v) % 5)).SetKeyStrindex(v >> 3)
			case 5:
				p.Samples().At(1).Values().Append(int64(v))
			case 6:
				p.Samples().At(0).TimestampsUnixNano().Append(uint64(v) << 20)
			case 7:
				dict.StringTable().SetAt(int(uint32(v)%uint32(dict.StringTable().Len())), string(data))
			case 8:
				p.Samples().At(0).AttributeIndices().Append(v)
			case 9:
				dict.LocationTable().At(2).Lines().At(0).SetLine(int64(v) << 16)
			}
		}
		valid, _ := ValidateProfile(dict, p)
		for _, mode := range []Mode{ModeOTel, ModeECS} {
			reason := valid
			switch {
			case mode != ModeECS || reason != "":
			case !onCPUProfile(dict, p): // a string of the sample or period type was changed
				reason = RejectUnsupported
			case eventCount(p) > maxECSEvents:
				reason = RejectProfileTooLarge // one event per sample: too many
			}
			var e Encoder
			e.SetMode(mode)
			var buf []byte
			sink := &testSink{seen: map[string]bool{}, enc: &e, buf: &buf}
			e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
			sink.encode(dict, p)
			if reason != e.Rejection().Reason {
				t.Fatalf("%v: Rejection() = %q, ValidateProfile says %q", mode, e.Rejection().Reason, reason)
			}
			if reason != "" && len(buf) != 0 {
				t.Fatalf("%v: rejected profile wrote %q", mode, buf)
			}
			for _, d := range sink.docs {
				if !json.Valid([]byte(d.doc)) {
					t.Fatalf("%v: invalid JSON: %q", mode, d.doc)
				}
			}
		}
	})
}

// eventCount is the number of samples of a valid profile, the events the ecs mode writes.
func eventCount(p pprofile.Profile) int64 {
	var n int64
	for _, s := range p.Samples().All() {
		switch {
		case s.TimestampsUnixNano().Len() > 0 && s.Values().Len() == 0:
			n += int64(s.TimestampsUnixNano().Len())
		case s.Values().Len() == 0:
			n++
		default:
			for _, v := range s.Values().All() {
				n += v
			}
		}
	}
	return n
}
