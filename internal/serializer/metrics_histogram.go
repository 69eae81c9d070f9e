// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"
	"math/bits"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// A histogram is written as {"counts": [...], "values": [...]}, one pair per non-empty bucket,
// the form of Elasticsearch's histogram field: the values strictly increasing and finite, the
// counts non-negative longs. A bucket whose value would be infinite takes the nearest finite
// bound instead, and buckets that would write the same value are one pair, their counts summed
// (capped at the int64 maximum).

// histogramStatus is what writeHistogram and writeExponentialHistogram did.
type histogramStatus uint8

const (
	histogramWritten histogramStatus = iota
	// histogramBadBounds: the explicit bounds are not strictly increasing (or one is NaN).
	histogramBadBounds
	// histogramNonFinite: a non-empty bucket has no finite value (no finite bound), or a
	// histogram without buckets has a NaN or infinite sum.
	histogramNonFinite
)

// histPair is one pair written: the count and the value, and for explicit bounds the bucket
// whose cached text is the value.
type histPair struct {
	count  uint64
	value  float64
	bucket int32
}

// addPair appends a pair to s.pairs, or adds its count to the last pair when its value is not
// above the last one's, so that the values written strictly increase.
func (s *metricsState) addPair(count uint64, value float64, bucket int32) {
	if n := len(s.pairs); n > 0 && value <= s.pairs[n-1].value {
		s.pairs[n-1].count = addCapped(s.pairs[n-1].count, count)
		return
	}
	s.pairs = append(s.pairs, histPair{count: count, value: value, bucket: bucket})
}

// writeHistogram writes the counts/values form of an explicit-bounds histogram. A value is the
// bucket's midpoint; the first bucket uses half its upper bound when that bound is positive,
// else the bound; the overflow bucket uses the last bound. With raw, a value is the bucket's
// upper bound and the overflow count joins the last bucket written. A point without bounds or
// without bucket counts is written as one pair, its count and sum / count (nothing when the
// count is 0).
func (e *Encoder) writeHistogram(dp pmetric.HistogramDataPoint, raw bool) histogramStatus {
	bounds, counts := dp.ExplicitBounds(), dp.BucketCounts()
	if bounds.Len() == 0 || counts.Len() == 0 {
		if !increasingBounds(bounds) {
			return histogramBadBounds
		}
		c := dp.Count()
		if c == 0 {
			e.w.raw(`{"counts":[],"values":[]}`)
			return histogramWritten
		}
		v := dp.Sum() / float64(c)
		if !finite(v) {
			return histogramNonFinite
		}
		e.w.raw(`{"counts":[`)
		e.w.uint(capCount(c))
		e.w.raw(`],"values":[`)
		e.w.float(v)
		e.w.raw(`]}`)
		return histogramWritten
	}
	values := e.metrics.bucketValues.lookup(bounds, raw)
	if !values.valid {
		return histogramBadBounds
	}
	n := counts.Len()
	if !values.finite {
		for _, c := range counts.All() {
			if c != 0 {
				return histogramNonFinite
			}
		}
	}
	if !raw && !values.merge && n <= 64 {
		e.writeHistogramBuckets(counts, values)
		return histogramWritten
	}
	m := &e.metrics
	m.pairs = m.pairs[:0]
	for i, c := range counts.All() {
		if c == 0 {
			continue
		}
		if raw && i == n-1 && len(m.pairs) > 0 {
			last := &m.pairs[len(m.pairs)-1] // the overflow count joins the last bucket written
			last.count = addCapped(last.count, c)
			continue
		}
		m.addPair(c, values.vals[i], int32(i))
	}
	e.writeCounts(m.pairs)
	e.w.raw(`,"values":[`)
	for i, p := range m.pairs {
		if i > 0 {
			e.w.byte(',')
		}
		e.w.bytes(values.text(int(p.bucket)))
	}
	e.w.raw(`]}`)
	return histogramWritten
}

// writeHistogramBuckets writes at most 64 buckets whose values strictly increase, without
// raw: the walk over the counts notes the non-empty buckets, so that the values need not read
// the counts again.
func (e *Encoder) writeHistogramBuckets(counts pcommon.UInt64Slice, values *bucketValues) {
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
	for rest := used; rest != 0; rest &= rest - 1 {
		if rest != used {
			e.w.byte(',')
		}
		e.w.bytes(values.text(bits.TrailingZeros64(rest)))
	}
	e.w.raw(`]}`)
}

// increasingBounds reports whether bounds strictly increase (a NaN bound does not).
func increasingBounds(bounds pcommon.Float64Slice) bool {
	prev := math.Inf(-1)
	for i, b := range bounds.All() {
		if b != b || i > 0 && b <= prev {
			return false
		}
		prev = b
	}
	return true
}

// bucketValue returns the value of bucket i of a histogram with the given bounds by the rules
// of writeHistogram, before an infinite value is replaced (see finiteBucketValue).
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

// finiteBucketValue returns v, the value of bucket i (bucketValue), or when v is not finite the
// nearest finite bound: for +Inf the bucket's upper bound when it is finite (a midpoint that
// overflowed), else the largest finite bound; for -Inf, and for the NaN midpoint of a bucket
// (-Inf, b], the smallest. lo and hi are the smallest and largest finite bounds, ok whether there
// is one; without one, v stays as it is. The bounds strictly increase, so only the first can be
// -Inf and only the last +Inf.
func finiteBucketValue(bounds pcommon.Float64Slice, i int, v, lo, hi float64, ok bool) float64 {
	switch {
	case finite(v) || !ok:
		return v
	case v > 0 && i < bounds.Len() && finite(bounds.At(i)):
		return bounds.At(i)
	case v > 0:
		return hi
	}
	return lo
}

// bucketValueCache keeps the written bucket values of the last few explicit bounds seen: the
// points of one histogram metric nearly always share their bounds, and formatting the same
// midpoints again for every point would be most of the cost of a histogram; checking the bounds
// again would be the rest. Entries match on the bits of the bounds, so that 0 and -0 stay
// apart.
type bucketValueCache struct {
	entries [4]bucketValues
	next    int // the entry replaced on the next miss
}

// bucketValues holds what one set of bounds writes: whether they can be written at all, and
// the value of each bucket, its text written on first use.
type bucketValues struct {
	bounds []uint64 // math.Float64bits of each bound
	raw    bool
	valid  bool // the bounds strictly increase
	finite bool // one bound is finite, so every value is
	merge  bool // a value is not above the one before it: writing must merge buckets
	vals   []float64
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
	v.fill(bounds, raw)
	return v
}

// fill makes v the entry of bounds.
func (v *bucketValues) fill(bounds pcommon.Float64Slice, raw bool) {
	v.bounds, v.raw, v.buf = v.bounds[:0], raw, v.buf[:0]
	var lo, hi float64
	v.finite = false
	for _, b := range bounds.All() {
		v.bounds = append(v.bounds, math.Float64bits(b))
		if finite(b) {
			if !v.finite {
				lo = b
			}
			hi, v.finite = b, true
		}
	}
	v.valid = increasingBounds(bounds)
	v.merge = false
	v.vals, v.spans = v.vals[:0], v.spans[:0]
	for i := range bounds.Len() + 1 {
		x := 0.0
		if v.valid {
			x = finiteBucketValue(bounds, i, bucketValue(bounds, i, raw), lo, hi, v.finite)
			if i > 0 && !(x > v.vals[i-1]) {
				v.merge = true
			}
		}
		v.vals = append(v.vals, x)
		v.spans = append(v.spans, textSpan{end: -1})
	}
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

// text returns the written value of bucket i.
func (v *bucketValues) text(i int) []byte {
	sp := &v.spans[i]
	if sp.end < 0 {
		sp.start = int32(len(v.buf))
		v.buf = appendFloat(v.buf, v.vals[i])
		sp.end = int32(len(v.buf))
	}
	return v.buf[sp.start:sp.end]
}

func addCapped(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// writeExponentialHistogram writes the counts/values form of an exponential histogram:
// negative buckets first, most negative value first, then the zero bucket (0.0), then the
// positive buckets in ascending order. Each value is the bucket's midpoint; with raw, the
// bucket's bound nearer zero for negative buckets, -(base^i), and its upper bound for positive
// ones, base^(i+1). An infinite value takes the largest finite bound of the scale (with its
// sign); buckets whose values underflow to zero join the zero bucket.
func (e *Encoder) writeExponentialHistogram(dp pmetric.ExponentialHistogramDataPoint, raw bool) {
	m := &e.metrics
	m.pairs = m.pairs[:0]
	scale := dp.Scale()
	neg, pos := dp.Negative(), dp.Positive()
	negCounts, posCounts := neg.BucketCounts(), pos.BucketCounts()
	for i := negCounts.Len() - 1; i >= 0; i-- {
		if c := negCounts.At(i); c != 0 {
			m.addPair(c, -expBucketValue(scale, int64(neg.Offset())+int64(i), raw, true), -1)
		}
	}
	if c := dp.ZeroCount(); c != 0 {
		m.addPair(c, 0, -1)
	}
	for i, c := range posCounts.All() {
		if c != 0 {
			m.addPair(c, expBucketValue(scale, int64(pos.Offset())+int64(i), raw, false), -1)
		}
	}
	e.writeCounts(m.pairs)
	e.w.raw(`,"values":[`)
	for i, p := range m.pairs {
		if i > 0 {
			e.w.byte(',')
		}
		v := p.value
		if v == 0 {
			v = 0 // not -0: a negative bucket that underflowed writes 0.0
		}
		e.w.float(v)
	}
	e.w.raw(`]}`)
}

// expBucketValue returns the magnitude of the value of the bucket index, of the negative or the
// positive buckets of an exponential histogram of the given scale, by the rules of
// writeExponentialHistogram.
func expBucketValue(scale int32, index int64, raw, negative bool) float64 {
	var v float64
	switch {
	case !raw:
		v = expMidpoint(scale, index)
	case negative:
		v = expBound(scale, index)
	default:
		v = expBound(scale, index+1)
	}
	if finite(v) {
		return v
	}
	return expLargestBound(scale)
}

// expBound returns base^index, the lower bound of the bucket index, with base = 2^(2^-scale).
func expBound(scale int32, index int64) float64 {
	return math.Exp2(math.Ldexp(float64(index), -int(scale)))
}

// expMidpoint returns the midpoint of the bucket index of an exponential histogram of the
// given scale: the bucket holds (base^index, base^(index+1)].
func expMidpoint(scale int32, index int64) float64 {
	lo, hi := expBound(scale, index), expBound(scale, index+1)
	return lo + (hi-lo)/2
}

// expLargestBound returns the largest finite bound base^k of the scale, for a scale within
// [-10, 20]: base^k is finite while k * 2^-scale stays below 1024.
func expLargestBound(scale int32) float64 {
	k := int64(math.Ldexp(1024, int(scale)))
	for k > 0 && !finite(expBound(scale, k)) {
		k--
	}
	return expBound(scale, k)
}

// writeCounts opens a histogram value with its "counts" array, one count per pair, capped.
func (e *Encoder) writeCounts(pairs []histPair) {
	e.w.raw(`{"counts":[`)
	for i, p := range pairs {
		if i > 0 {
			e.w.byte(',')
		}
		e.w.uint(capCount(p.count))
	}
	e.w.byte(']')
}
