// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import "go.opentelemetry.io/collector/pdata/pcommon"

// Points group in ecs mode as contrib's ECS hasher groups them: by index, time (in
// nanoseconds, as written) and the resource attributes merged with the data point attributes, a
// data point attribute replacing a resource attribute of the same converted name. The scope, the
// unit and the start time are not part of the group, so points of different scopes of one
// resource share a document. The grouping machinery is otel mode's (metrics_grouping.go): only
// the hash and the equality check differ.

// ecsPair is a converted top-level resource attribute, for grouping.
type ecsPair struct {
	key  string
	val  pcommon.Value
	hash uint64 // of key and value, a term of the resource's hash
}

// pairIndex returns the index of key among ecsPairs[start:end], or -1.
func (s *metricsState) pairIndex(start, end int32, key string) int32 {
	for i := start; i < end; i++ {
		if s.ecsPairs[i].key == key {
			return i
		}
	}
	return -1
}

// ecsMergedHash hashes the resource's converted attributes merged with a data point's
// attributes attrs, of hash ah and the given shape (hashAttrs): the terms of the resource keys
// that the point replaces are taken out of the sum.
func (s *metricsState) ecsMergedHash(res *envelopeRef, attrs pcommon.Map, ah uint64, shape attrShape) uint64 {
	h := res.hash + ah
	if res.pairStart == res.pairEnd {
		return h
	}
	for k, v := range attrs.All() {
		if !grouped(k) {
			continue
		}
		if shape.repeats {
			if first, _ := attrs.Get(k); first != v {
				continue
			}
		}
		if i := s.pairIndex(res.pairStart, res.pairEnd, k); i >= 0 {
			h -= s.ecsPairs[i].hash
		}
	}
	return h
}

// sameECSAttrs reports whether two points have the same merged resource and data point
// attributes.
func (s *metricsState) sameECSAttrs(a, b *metricPoint) bool {
	if a.res == b.res && equalPointAttrs(a.attrs, b.attrs, a.shape, b.shape, false) {
		return true
	}
	return s.mergedLen(a) == s.mergedLen(b) && s.mergedWithin(a, b)
}

// mergedGet returns the value of key k in p's merged attributes.
func (s *metricsState) mergedGet(p *metricPoint, k string) (pcommon.Value, bool) {
	if grouped(k) {
		if v, ok := p.attrs.Get(k); ok {
			return v, true
		}
	}
	res := &s.resources[p.res]
	if i := s.pairIndex(res.pairStart, res.pairEnd, k); i >= 0 {
		return s.ecsPairs[i].val, true
	}
	return pcommon.Value{}, false
}

// replaced reports whether the data point attributes of p hold the resource key k.
func replaced(p *metricPoint, k string) bool {
	if !grouped(k) {
		return false
	}
	_, ok := p.attrs.Get(k)
	return ok
}

// mergedLen returns the number of keys of p's merged attributes.
func (s *metricsState) mergedLen(p *metricPoint) int {
	n := int(p.shape.grouped)
	res := &s.resources[p.res]
	for _, pair := range s.ecsPairs[res.pairStart:res.pairEnd] {
		if !replaced(p, pair.key) {
			n++
		}
	}
	return n
}

// mergedWithin reports whether every key of a's merged attributes has an equal value in b's.
func (s *metricsState) mergedWithin(a, b *metricPoint) bool {
	for k, va := range a.attrs.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := a.attrs.Get(k); first != va {
			continue // a repeated key
		}
		if vb, ok := s.mergedGet(b, k); !ok || !equalValue(va, vb) {
			return false
		}
	}
	res := &s.resources[a.res]
	for _, pair := range s.ecsPairs[res.pairStart:res.pairEnd] {
		if replaced(a, pair.key) {
			continue
		}
		if vb, ok := s.mergedGet(b, pair.key); !ok || !equalValue(pair.val, vb) {
			return false
		}
	}
	return true
}
