// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// ts0 is the time of the test data points: 1700000000123 ms and 456789 ns.
const (
	ts0    = pcommon.Timestamp(1_700_000_000_123_456_789)
	start0 = pcommon.Timestamp(1_699_999_000_000_000_000)
	ms0    = "1700000000123"
)

// TestMetricNamesWithInvalidUTF8 puts two names that differ only in invalid bytes in one
// group. Both are written as "a\ufffd", so they must not share a metrics object.
func TestMetricNamesWithInvalidUTF8(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "a\xff", 1)
	gaugeInt(ms, "a\xfe", 2)
	docs, _ := encodeMetrics(t, md) // checkMetricsDocument fails on a repeated name
	assert.Len(t, docs, 2, "documents: %s", docsText(docs))
}

// TestSummaryNamesWithInvalidUTF8 is the same for summaries, whose <name>_quantiles repeat too.
func TestSummaryNamesWithInvalidUTF8(t *testing.T) {
	md, ms := newMetrics()
	summary(ms, "q\xff", 1, 1, [2]float64{0.5, 1})
	summary(ms, "q\xfe", 1, 1, [2]float64{0.5, 1})
	docs, _ := encodeMetrics(t, md)
	assert.Len(t, docs, 2, "documents: %s", docsText(docs))
}

// TestEncodeMetricsSteadyStateDoesNotAllocate checks that a warm Encoder writing into a warm
// buffer allocates nothing.
func TestEncodeMetricsSteadyStateDoesNotAllocate(t *testing.T) {
	tests := []struct {
		name string
		md   pmetric.Metrics
	}{
		{name: "1000 points in 100 groups", md: benchMetrics(1000)},
		{name: "1000 points each its own group", md: seriesMetrics(1000)},
		{name: "every type", md: everyTypeMetrics(100)},
		{name: "value rules", md: valueRuleMetrics(100)},
	}
	for _, tt := range tests {
		tt.md.MarkReadOnly()
		for _, mode := range []Mode{ModeOTel, ModeECS} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				var e Encoder
				e.SetMode(mode)
				var sink countingSink
				buf := make([]byte, 0, 1<<20)
				encodeMetricsPush(&e, &buf, tt.md, fixedRoute, &sink)
				require.Positive(t, sink.docs)
				allocs := testing.AllocsPerRun(20, func() {
					buf = buf[:0]
					encodeMetricsPush(&e, &buf, tt.md, fixedRoute, &sink)
				})
				if allocs != 0 {
					t.Errorf("EncodeMetrics in mode %s allocates %v times per run, want 0", mode, allocs)
				}
			})
		}
	}
}
