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
// 2^1024, so bucket 1 starts beyond the largest float64: its midpoint is infinite and written as
// null.
func TestExponentialHistogramMidpoints(t *testing.T) {
	for _, scale := range []int32{-10, -3, -1, 0, 1, 2, 5, 10, 20} {
		t.Run("scale="+strconv.Itoa(int(scale)), func(t *testing.T) {
			md, ms := newMetrics()
			counts := []uint64{1, 2, 0, 3}
			expHistogram(ms, "m", scale, 1, expBuckets{offset: -2, counts: counts}, expBuckets{offset: -2, counts: counts})
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1)
			var h struct {
				Counts []uint64   `json:"counts"`
				Values []*float64 `json:"values"`
			}
			require.NoError(t, json.Unmarshal([]byte(docs[0].metric(t, "m")), &h))
			bound := func(i int) float64 { return math.Pow(2, float64(i)*math.Pow(2, -float64(scale))) }
			mid := func(i int) float64 { return (bound(i) + bound(i+1)) / 2 }
			wantValues := []float64{-mid(1), -mid(-1), -mid(-2), 0, mid(-2), mid(-1), mid(1)}
			assert.Equal(t, []uint64{3, 2, 1, 1, 1, 2, 3}, h.Counts)
			require.Len(t, h.Values, len(wantValues))
			var finite []float64
			for i, want := range wantValues {
				got := h.Values[i]
				if math.IsInf(want, 0) {
					assert.Nil(t, got, "value %d: an infinite midpoint is null", i)
					continue
				}
				if !assert.NotNil(t, got, "value %d", i) {
					continue
				}
				if want == 0 || math.Abs(want) < 1e-300 {
					assert.InDelta(t, want, *got, 1e-300, "value %d", i)
				} else {
					assert.InEpsilon(t, want, *got, 1e-12, "value %d", i)
				}
				finite = append(finite, *got)
			}
			assert.True(t, slices.IsSorted(finite), "values ascend: %v", finite)
		})
	}
}

// TestBucketValueCache checks that cached bucket values are those of the bounds asked for,
// whichever bounds came before: more sets than the cache holds, in turn, raw and not, and
// bounds that differ only in the sign of zero.
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
				for i := range len(set) + 1 {
					want := string(appendFloat(nil, bucketValue(bounds, i, raw)))
					if got := string(v.text(bounds, i)); got != want {
						t.Fatalf("round %d, raw %v, bounds %v, bucket %d: %s, want %s", round, raw, set, i, got, want)
					}
				}
			}
		}
	}
}
