// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"
	"math/bits"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// writeHistogram writes {"counts": [...], "values": [...]} with one pair per non-empty bucket.
// A value is the bucket's midpoint; the first bucket uses half its upper bound when that bound
// is positive, else the bound; the overflow bucket uses the last bound. With raw, a value is
// the bucket's upper bound and the overflow count joins the last bucket written.
func (e *Encoder) writeHistogram(dp pmetric.HistogramDataPoint, raw bool) {
	bounds, counts := dp.ExplicitBounds(), dp.BucketCounts()
	if bounds.Len() == 0 {
		if c := dp.Count(); c > 0 {
			e.w.raw(`{"counts":[`)
			e.w.uint(capCount(c))
			e.w.raw(`],"values":[`)
			e.w.float(dp.Sum() / float64(c))
			e.w.raw(`]}`)
			return
		}
		e.w.raw(`{"counts":[],"values":[]}`)
		return
	}
	n := counts.Len()
	if !raw && n <= 64 {
		e.writeHistogramBuckets(bounds, counts)
		return
	}
	// Counts first, then values, from the same walk over the buckets.
	e.w.raw(`{"counts":[`)
	first := true
	for i := range n {
		c := counts.At(i)
		if raw && i == n-1 && !first {
			break // the overflow count was added to the last bucket written
		}
		if c == 0 {
			continue
		}
		if raw && i < n-1 {
			c = addCapped(c, overflowIfLastWritten(counts, i))
		}
		if !first {
			e.w.byte(',')
		}
		first = false
		e.w.uint(capCount(c))
	}
	e.w.raw(`],"values":[`)
	values := e.metrics.bucketValues.lookup(bounds, raw)
	first = true
	for i := range n {
		c := counts.At(i)
		if raw && i == n-1 && !first {
			break
		}
		if c == 0 {
			continue
		}
		if !first {
			e.w.byte(',')
		}
		first = false
		e.w.bytes(values.text(bounds, i))
	}
	e.w.raw(`]}`)
}

// writeHistogramBuckets is writeHistogram without raw, for at most 64 buckets: the walk over the
// counts notes the non-empty buckets, so that the values need not read the counts again.
func (e *Encoder) writeHistogramBuckets(bounds pcommon.Float64Slice, counts pcommon.UInt64Slice) {
	var used uint64
	e.w.raw(`{"counts":[`)
	for i, c := range counts.All() {
		if c == 0 {
			continue
		}
		if used != 0 {
			e.w.byte(',')
		}
		used |= 1 << uint(i)
		e.w.uint(capCount(c))
	}
	e.w.raw(`],"values":[`)
	values := e.metrics.bucketValues.lookup(bounds, false)
	for rest := used; rest != 0; rest &= rest - 1 {
		if rest != used {
			e.w.byte(',')
		}
		e.w.bytes(values.text(bounds, bits.TrailingZeros64(rest)))
	}
	e.w.raw(`]}`)
}

// bucketValue returns the value written for bucket i of a histogram with the given bounds
// (see writeHistogram).
func bucketValue(bounds pcommon.Float64Slice, i int, raw bool) float64 {
	last := bounds.Len() - 1
	switch {
	case i > last:
		return bounds.At(last)
	case raw:
		return bounds.At(i)
	case i == 0:
		if v := bounds.At(0); v > 0 {
			return v / 2
		}
		return bounds.At(0)
	default:
		lo, hi := bounds.At(i-1), bounds.At(i)
		return lo + (hi-lo)/2
	}
}

// bucketValueCache keeps the written bucket values of the last few explicit bounds seen: the
// points of one histogram metric nearly always share their bounds, and formatting the same
// midpoints again for every point would be most of the cost of a histogram. Entries match on
// the bits of the bounds, so that 0 and -0 stay apart.
type bucketValueCache struct {
	entries [4]bucketValues
	next    int // the entry replaced on the next miss
}

// bucketValues holds the written values of the buckets of one set of bounds, each written on
// first use.
type bucketValues struct {
	bounds []uint64 // math.Float64bits of each bound
	raw    bool
	spans  []textSpan // by bucket; end < 0 until written
	buf    []byte
}

type textSpan struct{ start, end int32 }

// lookup returns the entry for bounds, making one in place of the oldest on a miss.
func (c *bucketValueCache) lookup(bounds pcommon.Float64Slice, raw bool) *bucketValues {
	for i := range c.entries {
		if v := &c.entries[i]; v.matches(bounds, raw) {
			return v
		}
	}
	v := &c.entries[c.next]
	c.next = (c.next + 1) % len(c.entries)
	v.bounds, v.raw, v.buf = v.bounds[:0], raw, v.buf[:0]
	for _, b := range bounds.All() {
		v.bounds = append(v.bounds, math.Float64bits(b))
	}
	v.spans = v.spans[:0]
	for range bounds.Len() + 1 {
		v.spans = append(v.spans, textSpan{end: -1})
	}
	return v
}

func (v *bucketValues) matches(bounds pcommon.Float64Slice, raw bool) bool {
	if v.raw != raw || len(v.bounds) != bounds.Len() {
		return false
	}
	for i, b := range bounds.All() {
		if math.Float64bits(b) != v.bounds[i] {
			return false
		}
	}
	return true
}

// text returns the written value of bucket i; bounds are the ones v matches.
func (v *bucketValues) text(bounds pcommon.Float64Slice, i int) []byte {
	sp := &v.spans[i]
	if sp.end < 0 {
		sp.start = int32(len(v.buf))
		v.buf = appendFloat(v.buf, bucketValue(bounds, i, v.raw))
		sp.end = int32(len(v.buf))
	}
	return v.buf[sp.start:sp.end]
}

// overflowIfLastWritten returns the overflow bucket's count when bucket i is the last
// non-empty bucket before it, else 0.
func overflowIfLastWritten(counts pcommon.UInt64Slice, i int) uint64 {
	n := counts.Len()
	for j := i + 1; j < n-1; j++ {
		if counts.At(j) != 0 {
			return 0
		}
	}
	return counts.At(n - 1)
}

func addCapped(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// writeExponentialHistogram writes the counts/values form of an exponential histogram:
// negative buckets first, most negative value first, then the zero bucket (0.0), then the
// positive buckets in ascending order; each value is the bucket's midpoint.
func (e *Encoder) writeExponentialHistogram(dp pmetric.ExponentialHistogramDataPoint) {
	scale := dp.Scale()
	neg, pos := dp.Negative(), dp.Positive()
	negCounts, posCounts := neg.BucketCounts(), pos.BucketCounts()
	for pass := range 2 {
		if pass == 0 {
			e.w.raw(`{"counts":[`)
		} else {
			e.w.raw(`],"values":[`)
		}
		first := true
		item := func(c uint64, v float64) {
			if c == 0 {
				return
			}
			if !first {
				e.w.byte(',')
			}
			first = false
			if pass == 0 {
				e.w.uint(capCount(c))
			} else {
				e.w.float(v)
			}
		}
		for i := negCounts.Len() - 1; i >= 0; i-- {
			item(negCounts.At(i), -expMidpoint(scale, int64(neg.Offset())+int64(i)))
		}
		item(dp.ZeroCount(), 0)
		for i := range posCounts.Len() {
			item(posCounts.At(i), expMidpoint(scale, int64(pos.Offset())+int64(i)))
		}
	}
	e.w.raw(`]}`)
}

// expMidpoint returns the midpoint of the bucket index of an exponential histogram of the
// given scale: the bucket holds (base^index, base^(index+1)] with base = 2^(2^-scale).
func expMidpoint(scale int32, index int64) float64 {
	lo := math.Exp2(math.Ldexp(float64(index), -int(scale)))
	hi := math.Exp2(math.Ldexp(float64(index+1), -int(scale)))
	return lo + (hi-lo)/2
}
