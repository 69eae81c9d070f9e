// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// The ecs mapping mode writes metric documents as the contrib exporter's ECS mode does: the
// resource attributes converted through the ECS resource table, @timestamp (RFC 3339 with
// nanoseconds), the data point attributes at the root, data_stream.*, and each metric under
// its own name at the root, all de-dotted into objects together (flat.go). Dynamic templates
// take the names of Elasticsearch's metrics@mappings that the APM pipeline uses:
// double_metrics, long_metrics, histogram_metrics and summary_metrics, with the metric's name as
// the path. There is no _metric_names_hash; _doc_count follows the _doc_count hint as in otel
// mode. Summary quantiles are not written (as in contrib's ECS mode).
//
// Points group as contrib's ECS hasher groups them: by index, time (in nanoseconds, as written)
// and the resource attributes merged with the data point attributes, a data point attribute
// replacing a resource attribute of the same converted name. The scope, the unit and the start
// time are not part of the group, so points of different scopes of one resource share a
// document. The grouping machinery is otel mode's (metrics.go): only the hash and the equality
// check differ.
//
// Precedence of one key, lowest first: resource attributes, data point attributes, metrics,
// then @timestamp, data_stream.* and _doc_count. (ours) contrib lets a data point attribute
// replace @timestamp and a metric replace data_stream.*; we keep the fields that route and
// time the document, and count a metric that loses its key as rejected (RejectFieldTaken).

// ecsPair is a converted top-level resource attribute, for grouping.
type ecsPair struct {
	key  string
	val  pcommon.Value
	hash uint64 // of key and value, a term of the resource's hash
}

// ecsTemplate is a metric written in the ecs document being built, by its entry's n.
type ecsTemplate struct {
	name, template string
	kept           bool // the metric's entry survived normalization
}

// ecsResource flattens and converts a resource's attributes once per call of EncodeMetrics:
// its sorted entries for the documents and its converted top-level attributes for grouping.
func (s *metricsState) ecsResource(attrs pcommon.Map) envelopeRef {
	d := &s.ecsRes
	start, invalid := len(d.entries), d.invalid
	d.layer(layerResource)
	d.addECS(attrs, ecsResourceRule)
	sortEntries(d.entries[start:])
	ref := envelopeRef{start: start, end: len(d.entries), attrs: attrs, repaired: d.invalid > invalid}
	ref.pairStart = int32(len(s.ecsPairs))
	for k, v := range ecsAttributes(attrs, ecsResourceRule) {
		h := mix(xxhash.Sum64String(k), hashValue(v))
		if i := s.pairIndex(ref.pairStart, int32(len(s.ecsPairs)), k); i >= 0 {
			// A repeated key: the last one is written, as in the document.
			ref.hash -= s.ecsPairs[i].hash
			s.ecsPairs[i].val, s.ecsPairs[i].hash = v, h
		} else {
			s.ecsPairs = append(s.ecsPairs, ecsPair{key: k, val: v, hash: h})
		}
		ref.hash += h
	}
	ref.pairEnd = int32(len(s.ecsPairs))
	return ref
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
	if a.res == b.res && equalPointAttrs(a.attrs, b.attrs, a.shape, b.shape) {
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
		if vb, ok := s.mergedGet(b, k); !ok || !va.Equal(vb) {
			return false
		}
	}
	res := &s.resources[a.res]
	for _, pair := range s.ecsPairs[res.pairStart:res.pairEnd] {
		if replaced(a, pair.key) {
			continue
		}
		if vb, ok := s.mergedGet(b, pair.key); !ok || !pair.val.Equal(vb) {
			return false
		}
	}
	return true
}

// ecsTemplateName returns the ECS name of the dynamic template that otel mode names tpl.
func ecsTemplateName(tpl string) string {
	switch tpl {
	case "counter_long", "gauge_long":
		return "long_metrics"
	case "histogram":
		return "histogram_metrics"
	case "summary":
		return "summary_metrics"
	}
	return "double_metrics"
}

// writeECSMetricsDocument writes the ecs document of the points in e.metrics.pending whose
// names are free, deferring the others. The values are written first, into a scratch buffer
// each entry views, since the entries are then sorted with the document's other fields.
func (e *Encoder) writeECSMetricsDocument(buf *[]byte, sink MetricsSink) {
	m := &e.metrics
	leader := &m.points[m.pending[0]]
	target := m.targets[leader.target]
	res := &m.resources[leader.res]

	e.begin(*buf)
	start := len(e.w.buf)
	d := e.flatDocAt(0)
	d.layer(layerRecord)
	d.addMap("", leader.attrs, true)
	d.layer(layerMetrics)
	m.values = m.values[:0]
	m.ecsTpls = m.ecsTpls[:0]
	var docCount uint64
	for _, pi := range m.pending {
		p := &m.points[pi]
		name := metricName(p.metric)
		if !m.takeName(pi, name) {
			continue
		}
		mark := len(m.values)
		e.w.buf, m.values = m.values, e.w.buf
		tpl, count, hinted := e.writeMetricValue(p, name)
		e.w.buf, m.values = m.values, e.w.buf
		if tpl == "" {
			m.values = m.values[:mark]
			m.nameSet.remove(name)
			continue
		}
		if hinted {
			docCount = count
		}
		// The entry views m.values: a later append that moves m.values leaves the bytes it
		// views as they are.
		d.add(entry{key: name, kind: kindJSON, s: arenaString(m.values[mark:]), n: int64(len(m.ecsTpls))})
		m.ecsTpls = append(m.ecsTpls, ecsTemplate{name: name, template: ecsTemplateName(tpl)})
	}
	if len(m.ecsTpls) == 0 {
		e.dropMetricsDocument(buf, start) // every value of the group was skipped
		return
	}
	d.layer(layerFields)
	d.addDataStream(target.ds)
	d.addTime("@timestamp", pcommon.Timestamp(leader.ts))
	if docCount > 0 {
		d.addInt("_doc_count", int64(capDocCount(docCount)))
	}
	e.w.invalidUTF8 += d.invalid
	sortEntries(d.entries)
	e.merged = mergeEntries(e.merged[:0], m.ecsRes.entries[res.start:res.end], d.entries)
	e.merged = d.normalize(e.merged, false, ecsProtected)
	for i := range e.merged {
		if en := &e.merged[i]; en.kind == kindJSON {
			t := &m.ecsTpls[en.n]
			t.kept = true
			m.templates = append(m.templates, DynamicTemplate{Path: en.key, Template: t.template})
		}
	}
	if len(m.templates) < len(m.ecsTpls) {
		for _, t := range m.ecsTpls {
			if !t.kept {
				m.report.reject(rejectIndex(RejectFieldTaken), t.name)
			}
		}
		if len(m.templates) == 0 {
			e.dropMetricsDocument(buf, start)
			return
		}
	}
	e.writeDedot(e.merged, 0)
	if res.repaired {
		e.w.invalidUTF8++
	}
	*buf = e.done()
	sink.AddMetricsDocument(start, target.index, target.ds, m.templates)
}

// dropMetricsDocument gives back the buffer as it was before the document begun at start.
func (e *Encoder) dropMetricsDocument(buf *[]byte, start int) {
	*buf = e.w.buf[:start]
	e.w.buf = nil
}
