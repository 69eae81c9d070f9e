// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import "testing"

// noSeen forgets nothing it is told and remembers everything: every content-addressed
// document is seen, so a profile writes only its events, the steady state of a deduplicated
// stream.
type noSeen struct{}

func (noSeen) Seen(ProfileDoc, string) bool { return true }

type countSink struct{ docs int }

func (s *countSink) AddProfileDocument(int, ProfileDoc, string, string, bool) { s.docs++ }

// BenchmarkAppendProfile writes the test profile's events in the steady state (stack traces,
// frames, executables and hosts already written): documents/s, allocations per document and
// bytes per sample.
func BenchmarkAppendProfile(b *testing.B) {
	pd, dict, p := testProfile()
	pd.MarkReadOnly()
	var e Encoder
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	buf := make([]byte, 0, 1<<16)
	sink := &countSink{}
	b.ReportAllocs()
	samples := 0
	for b.Loop() {
		buf = buf[:0]
		e.AppendProfile(&buf, dict, p, noSeen{}, sink)
		samples += 3
	}
	b.ReportMetric(float64(sink.docs)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(testing.AllocsPerRun(10, func() {
		buf = buf[:0]
		e.AppendProfile(&buf, dict, p, noSeen{}, sink)
	}))/3, "allocs/doc")
	b.ReportMetric(float64(len(buf))/3, "bytes/sample")
}
