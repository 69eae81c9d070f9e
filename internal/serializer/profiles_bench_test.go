// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import "testing"

// BenchmarkAppendProfile writes the test profile (2 samples on one stack of 2 frames, one
// symbolized): "steady" with its stack trace, frame, executable and host already written (3
// events); "new" with a record that never says written, so each sample writes its stack trace,
// frame and executable again, and the profile its host (10 documents); "ecs-steady" and
// "ecs-new" the same in the ecs mode (5 events, one per sample taken, and 2 downsampled copies:
// 7 documents; 18 with the others, the symbolization queues' entries included). It reports
// documents/s, allocations per document and bytes per sample.
func BenchmarkAppendProfile(b *testing.B) {
	for _, bc := range []struct {
		name    string
		mode    Mode
		allSeen bool
	}{
		{"steady", ModeOTel, true},
		{"new", ModeOTel, false},
		{"ecs-steady", ModeECS, true},
		{"ecs-new", ModeECS, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pd, dict, p := testProfile()
			pd.MarkReadOnly()
			var e Encoder
			e.SetMode(bc.mode)
			e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
			buf := make([]byte, 0, 1<<16)
			docs := 0
			b.ReportAllocs()
			for b.Loop() {
				var n int
				buf, n = appendProfileDocs(&e, buf[:0], dict, p, bc.allSeen)
				docs += n
			}
			b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
			perProfile := docs / b.N
			allocs := testing.AllocsPerRun(10, func() {
				buf, _ = appendProfileDocs(&e, buf[:0], dict, p, bc.allSeen)
			})
			b.ReportMetric(allocs/float64(perProfile), "allocs/doc")
			b.ReportMetric(float64(len(buf))/3, "bytes/sample")
		})
	}
}
