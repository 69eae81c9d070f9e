// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import "testing"

// allSeen says every content-addressed document was written already, so a profile writes only
// its events: the steady state of a deduplicated stream.
type allSeen struct{}

func (allSeen) Seen(ProfileDoc, string) bool { return true }

// noneSeen says no document was written yet: every profile writes all its documents.
type noneSeen struct{}

func (noneSeen) Seen(ProfileDoc, string) bool { return false }

type countSink struct{ docs int }

func (s *countSink) AddProfileDocument(int, ProfileDoc, string, string, bool) { s.docs++ }

// BenchmarkAppendProfile writes the test profile (2 samples on one stack of 2 frames, one
// symbolized): "steady" with its stack trace, frame, executable and host already written (3
// events); "new" with a record that never says written, so each sample writes its stack trace,
// frame and executable again, and the profile its host (10 documents); "ecs-steady" and
// "ecs-new" the same in the ecs mode (5 events, one per sample taken, and 2 downsampled copies:
// 7 documents; 18 with the others, the symbolization queues' entries included). It reports
// documents/s, allocations per document and bytes per sample.
func BenchmarkAppendProfile(b *testing.B) {
	for _, bc := range []struct {
		name string
		mode Mode
		seen ProfilesSeen
	}{
		{"steady", ModeOTel, allSeen{}},
		{"new", ModeOTel, noneSeen{}},
		{"ecs-steady", ModeECS, allSeen{}},
		{"ecs-new", ModeECS, noneSeen{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pd, dict, p := testProfile()
			pd.MarkReadOnly()
			var e Encoder
			e.SetMode(bc.mode)
			e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
			buf := make([]byte, 0, 1<<16)
			sink := &countSink{}
			b.ReportAllocs()
			for b.Loop() {
				buf = buf[:0]
				e.AppendProfile(&buf, dict, p, bc.seen, sink)
			}
			b.ReportMetric(float64(sink.docs)/b.Elapsed().Seconds(), "docs/s")
			perProfile := sink.docs / b.N
			allocs := testing.AllocsPerRun(10, func() {
				buf = buf[:0]
				e.AppendProfile(&buf, dict, p, bc.seen, sink)
			})
			b.ReportMetric(allocs/float64(perProfile), "allocs/doc")
			b.ReportMetric(float64(len(buf))/3, "bytes/sample")
		})
	}
}
