// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"strings"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The ecs mapping mode writes metric documents as the contrib exporter's ECS mode does: the
// resource attributes converted through the ECS resource table, @timestamp (RFC 3339 with
// nanoseconds), the data point attributes at the root, data_stream.*, and each metric under
// its own name at the root, all de-dotted into objects together (flat_write.go). Dynamic
// templates take the names of Elasticsearch's metrics@mappings that the APM pipeline uses:
// double_metrics, long_metrics, histogram_metrics and summary_metrics, with the metric's name as
// the path. There is no _metric_names_hash; _doc_count follows the _doc_count hint as in otel
// mode. Summary quantiles, which contrib's ECS mode leaves out, are written under
// summary_quantiles.<name>.q<quantile> with double_metrics: the ecs mode's own form (otel mode
// writes <name>_quantiles inside metrics). metrics@mappings maps double_metrics as a double with
// index: false, so they are kept in doc values (aggregations, sorting), not indexed for search.
//
// Points group as contrib's ECS hasher groups them (metrics_ecs_grouping.go).
//
// Precedence of one key, lowest first: resource attributes, data point attributes, metrics,
// then @timestamp, data_stream.* and _doc_count. (ours) contrib lets a data point attribute
// replace @timestamp and a metric replace data_stream.*; we keep the fields that route and
// time the document, and count a metric that loses its key as rejected (RejectFieldTaken).

// ecsTemplate is a metric written in the ecs document being built, by its entry's n.
type ecsTemplate struct {
	name, template string
	kept           bool // the metric's entry survived normalization
}

// ecsResource flattens and converts a resource's attributes once per AddMetricsResource:
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
func (e *Encoder) writeECSMetricsDocument(buf []byte) []byte {
	m := &e.metrics
	leader := &m.points[m.pending[0]]
	target := m.targets[leader.target]
	res := &m.resources[leader.res]

	e.begin(buf)
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
		info := &m.metrics[p.metric]
		name := info.name
		if !m.takeName(pi, name) {
			continue
		}
		mark := len(m.values)
		e.w.buf, m.values = m.values, e.w.buf
		tpl, count, hinted := e.writeMetricValue(p, info)
		e.w.buf, m.values = m.values, e.w.buf
		if tpl == "" {
			m.values = m.values[:mark]
			if n := len(m.ecsTpls); info.typ == pmetric.MetricTypeSummary {
				// The quantiles are written even when the summary's own value was skipped.
				e.addECSQuantiles(d, p, name)
				if len(m.ecsTpls) > n {
					continue
				}
			}
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
		if info.typ == pmetric.MetricTypeSummary {
			e.addECSQuantiles(d, p, name)
		}
	}
	if len(m.ecsTpls) == 0 {
		return e.dropMetricsDocument(start) // every value of the group was skipped
	}
	d.layer(layerFields)
	d.addDataStream(target.ds)
	d.addTime("@timestamp", pcommon.Timestamp(leader.ts))
	if docCount > 0 {
		d.addInt("_doc_count", int64(capDocCount(docCount)))
	}
	e.w.invalidUTF8 += d.invalid
	e.merged = d.mergeSorted(e.merged[:0], m.ecsRes.entries[res.start:res.end])
	e.merged = d.normalize(e.merged, false, ecsProtected)
	for i := range e.merged {
		if en := &e.merged[i]; en.kind == kindJSON {
			t := &m.ecsTpls[en.n]
			t.kept = true
			path := en.key
			if path != t.name {
				path = m.renamedPath(path)
			}
			m.templates = append(m.templates, DynamicTemplate{Path: path, Template: t.template})
		}
	}
	if len(m.templates) < len(m.ecsTpls) {
		for _, t := range m.ecsTpls {
			if !t.kept {
				m.rejectPoint(RejectFieldTaken, t.name)
			}
		}
		if len(m.templates) == 0 {
			return e.dropMetricsDocument(start)
		}
	}
	e.writeDedot(e.merged, 0)
	if res.repaired {
		e.w.invalidUTF8++
	}
	m.written(&target)
	return e.done()
}

// renamedPath returns a copy of key, the key of a metric's field that normalize built in the
// document's arena ("a" beside "a.b" is "a.value"): the next document overwrites the arena,
// while a dynamic template lives as long as the batch. The copies are cached, so that the
// steady state does not allocate.
func (s *metricsState) renamedPath(key string) string {
	if p, ok := s.renamedPaths[key]; ok {
		return p
	}
	if s.renamedPaths == nil || len(s.renamedPaths) >= maxPathCache {
		s.renamedPaths = make(map[string]string, 16)
	}
	p := strings.Clone(key)
	s.renamedPaths[p] = p
	return p
}
