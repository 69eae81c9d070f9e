// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestExponentialHistogramMidpoints compares the midpoints with 2^(i/2^scale), computed another
// way, over the whole scale range, and checks that the values ascend. At scale -10 the base is
// 2^1024, so bucket 0 ends and bucket 1 starts beyond the largest float64: their midpoints are
// infinite and take the largest finite bound of the scale, 1, instead.
func TestExponentialHistogramMidpoints(t *testing.T) {
	for _, scale := range []int32{-10, -3, -1, 0, 1, 2, 5, 10, 20} {
		t.Run("scale="+strconv.Itoa(int(scale)), func(t *testing.T) {
			md, ms := newMetrics()
			counts := []uint64{1, 2, 0, 3}
			expHistogram(ms, "m", scale, 1, expBuckets{offset: -2, counts: counts}, expBuckets{offset: -2, counts: counts})
			docs, _ := encodeMetrics(t, md) // checkMetricShapes: finite, strictly increasing
			require.Len(t, docs, 1)
			var h struct {
				Counts []uint64  `json:"counts"`
				Values []float64 `json:"values"`
			}
			require.NoError(t, json.Unmarshal([]byte(docs[0].metric(t, "m")), &h))
			bound := func(i int) float64 { return math.Pow(2, float64(i)*math.Pow(2, -float64(scale))) }
			largest := largestFiniteBound(bound)
			mid := func(i int) float64 {
				if m := (bound(i) + bound(i+1)) / 2; !math.IsInf(m, 0) && !math.IsNaN(m) {
					return m
				}
				return largest
			}
			wantValues := []float64{-mid(1), -mid(-1), -mid(-2), 0, mid(-2), mid(-1), mid(1)}
			assert.Equal(t, []uint64{3, 2, 1, 1, 1, 2, 3}, h.Counts)
			require.Len(t, h.Values, len(wantValues))
			for i, want := range wantValues {
				got := h.Values[i]
				if want == 0 || math.Abs(want) < 1e-300 {
					assert.InDelta(t, want, got, 1e-300, "value %d", i)
				} else {
					assert.InEpsilon(t, want, got, 1e-12, "value %d", i)
				}
			}
		})
	}
}

// largestFiniteBound returns the largest finite bound(k), k >= 0, by bisection.
func largestFiniteBound(bound func(int) float64) float64 {
	lo, hi := 0, 1<<31 // bound(lo) is finite, bound(hi) is not
	for hi-lo > 1 {
		if m := lo + (hi-lo)/2; math.IsInf(bound(m), 0) {
			hi = m
		} else {
			lo = m
		}
	}
	return bound(lo)
}

// TestExpLargestBound checks expLargestBound against bisection over the whole scale range.
func TestExpLargestBound(t *testing.T) {
	for scale := int32(-10); scale <= 20; scale++ {
		want := largestFiniteBound(func(k int) float64 { return expBound(scale, int64(k)) })
		assert.Equal(t, want, expLargestBound(scale), "scale %d", scale) //nolint:testifylint // exact
	}
}

// TestExponentialHistogramValues checks the exponential histogram values that are not plain
// midpoints: histogram:raw, infinite values, and buckets that write the same value.
func TestExponentialHistogramValues(t *testing.T) {
	raw := []any{"elasticsearch.mapping.hints", hints("histogram:raw")}
	tests := []struct {
		name      string
		scale     int32
		zero      uint64
		neg, pos  expBuckets
		kv        []any
		wantValue string
	}{
		{
			// The example of DOCUMENTS.md: one negative bucket at index 0, a zero count,
			// positive buckets at 3 and 4.
			name: "histogram:raw, the contract's example", scale: 0, zero: 1,
			neg: expBuckets{counts: []uint64{2}}, pos: expBuckets{offset: 3, counts: []uint64{3, 4}}, kv: raw,
			wantValue: `{"counts":[2,1,3,4],"values":[-1.0,0.0,16.0,32.0]}`,
		},
		{
			// Base √2. Negative buckets 3 and 1: -(base^i), the bound nearer zero; positive
			// buckets -1 and 0: base^(i+1).
			name: "histogram:raw, scale 1", scale: 1,
			neg: expBuckets{offset: 1, counts: []uint64{1, 0, 2}}, pos: expBuckets{offset: -1, counts: []uint64{5, 6}}, kv: raw,
			wantValue: `{"counts":[2,1,5,6],"values":[-2.82842712474619,-1.414213562373095,1.0,1.414213562373095]}`,
		},
		{
			// Scale -10: base^1 is beyond float64, the largest finite bound is base^0 = 1.
			name: "histogram:raw, infinite bounds take the largest finite one", scale: -10,
			neg: expBuckets{offset: 0, counts: []uint64{1, 2}}, pos: expBuckets{offset: 0, counts: []uint64{3, 4}}, kv: raw,
			wantValue: `{"counts":[3,7],"values":[-1.0,1.0]}`,
		},
		{
			name: "midpoints beyond float64 merged", scale: -10,
			pos:       expBuckets{offset: 0, counts: []uint64{3, 4, 5}},
			wantValue: `{"counts":[12],"values":[1.0]}`,
		},
		{
			// 2^-2000 underflows to 0: the buckets join the zero bucket, which writes 0.0.
			name: "midpoints that underflow join the zero bucket", scale: 0, zero: 1,
			neg: expBuckets{offset: -2000, counts: []uint64{2}}, pos: expBuckets{offset: -2000, counts: []uint64{3, 0, 1}},
			wantValue: `{"counts":[7],"values":[0.0]}`,
		},
		{
			name: "histogram:raw bounds that underflow join the zero bucket", scale: 0,
			neg: expBuckets{offset: -2000, counts: []uint64{2}}, pos: expBuckets{offset: -2000, counts: []uint64{3}}, kv: raw,
			wantValue: `{"counts":[5],"values":[0.0]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			expHistogram(ms, "m", tt.scale, tt.zero, tt.neg, tt.pos, tt.kv...)
			docs, rep := encodeMetrics(t, md)
			require.Len(t, docs, 1)
			assert.Equal(t, tt.wantValue, docs[0].metric(t, "m"))
			assert.Equal(t, MetricsReport{}, rep)
		})
	}
}

// TestBucketValueCache checks that cached bucket values are those of the bounds asked for,
// whichever bounds came before: more sets than the cache holds, in turn, raw and not, and
// bounds that differ only in the sign of zero. An infinite value is the last finite bound.
func TestBucketValueCache(t *testing.T) {
	sets := [][]float64{
		{0, 1},
		{math.Copysign(0, -1), 1},
		{0.005, 0.01, 0.025, 0.05, 0.1},
		{0.005, 0.01, 0.025, 0.05},
		{-5, -1, 0, 1, 5},
		{1, 2, 3, 4, 5, 6},
		{0.1 + 0.2, math.Pi, math.Inf(1)},
	}
	var c bucketValueCache
	for round := range 3 {
		for _, raw := range []bool{false, true} {
			for _, set := range sets {
				bounds := pcommon.NewFloat64Slice()
				bounds.FromRaw(set)
				v := c.lookup(bounds, raw)
				finiteSet := slices.DeleteFunc(slices.Clone(set), func(b float64) bool { return math.IsInf(b, 0) })
				for i := range len(set) + 1 {
					x := bucketValue(bounds, i, raw)
					if math.IsInf(x, 1) { // here always beyond the last finite bound
						x = slices.Max(finiteSet)
					}
					want := string(appendFloat(nil, x))
					if got := string(v.text(i)); got != want {
						t.Fatalf("round %d, raw %v, bounds %v, bucket %d: %s, want %s", round, raw, set, i, got, want)
					}
				}
			}
		}
	}
}
