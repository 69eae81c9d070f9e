// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// In otel mode the quantiles of a summary point go inside metrics, as the metric
// <name>_quantiles: {"q0_5": v, ...}, beside the {sum, value_count} object (an
// aggregate_metric_double field takes no sub-fields of its own), each quantile mapped with
// gauge_double. <name>_quantiles is one name of the document, in _metric_names_hash, so a real
// metric of that name in the same group is a repeated name. NaN and ±Inf quantiles are skipped
// and counted; a repeated quantile is written once, the first wins.

// quantileNames is what the quantiles of one summary metric are written under, cached so that
// the steady state does not allocate.
type quantileNames struct {
	name   string            // "<name>_quantiles"
	key    string            // the name as a JSON member name, with its colon
	leaves map[string]string // quantile key ("q0_5") -> "metrics.<name>_quantiles.q0_5"
}

// quantileNamesOf returns the quantileNames of the summary metric name.
func (e *Encoder) quantileNamesOf(name string) *quantileNames {
	m := &e.metrics
	if q, ok := m.quantileNames[name]; ok {
		return q
	}
	if m.quantileNames == nil || len(m.quantileNames) >= maxPathCache {
		m.quantileNames = make(map[string]*quantileNames, 16)
	}
	q := &quantileNames{name: name + "_quantiles", leaves: make(map[string]string, 4)}
	k, _ := jsonstr.Append(nil, q.name)
	q.key = string(append(k, ':'))
	m.quantileNames[name] = q
	return q
}

// leafPath returns "metrics.<name>_quantiles.<key>".
func (q *quantileNames) leafPath(key []byte) string {
	if p, ok := q.leaves[string(key)]; ok {
		return p
	}
	if len(q.leaves) >= maxPathCache {
		clear(q.leaves)
	}
	p := "metrics." + q.name + "." + string(key)
	q.leaves[string(key)] = p
	return p
}

// finiteQuantiles reports whether a summary has a quantile to write: a finite value of a
// finite quantile.
func finiteQuantiles(qs pmetric.SummaryDataPointValueAtQuantileSlice) bool {
	for _, q := range qs.All() {
		if finite(q.Value()) && finite(q.Quantile()) {
			return true
		}
	}
	return false
}

// writeQuantiles writes the {"q0_5": v, ...} object of a summary point's quantiles, of which
// finiteQuantiles holds, adding the template of each.
func (e *Encoder) writeQuantiles(qs pmetric.SummaryDataPointValueAtQuantileSlice, name string, q *quantileNames) {
	m := &e.metrics
	e.w.byte('{')
	first := true
	for _, qv := range qs.All() {
		if !finite(qv.Value()) || !finite(qv.Quantile()) {
			m.nonFinite(name)
			continue
		}
		mark := len(e.w.buf)
		if !first {
			e.w.byte(',')
		}
		keyStart := len(e.w.buf)
		e.w.byte('"')
		e.w.set(appendQuantileKey(e.w.buf, qv.Quantile()))
		path := q.leafPath(e.w.buf[keyStart+1:])
		if slices.ContainsFunc(m.templates, func(t DynamicTemplate) bool { return t.Path == path }) {
			e.w.buf = e.w.buf[:mark] // a repeated quantile: the first wins
			continue
		}
		first = false
		e.w.raw(`":`)
		e.w.float(qv.Value())
		m.templates = append(m.templates, DynamicTemplate{Path: path, Template: "gauge_double"})
	}
	e.w.byte('}')
}

// countNonFiniteQuantiles counts the quantiles of a summary point that has none to write.
func (s *metricsState) countNonFiniteQuantiles(qs pmetric.SummaryDataPointValueAtQuantileSlice, name string) {
	for range qs.Len() {
		s.nonFinite(name)
	}
}

// addECSQuantiles adds the quantiles of a summary point as summary_quantiles.<name>.q<quantile>
// (0.99 -> q0_99), at the root beside the {sum, value_count} object, the ecs mode's own form,
// each mapped with double_metrics; NaN and ±Inf quantiles are skipped and counted, a repeated quantile is
// written once (the first wins).
func (e *Encoder) addECSQuantiles(d *flatDoc, p *metricPoint, name string) {
	m := &e.metrics
	qs := e.metrics.metrics[p.metric].metric.Summary().DataPoints().At(int(p.idx)).QuantileValues()
	for j := range qs.Len() {
		q := qs.At(j)
		if !finite(q.Value()) || !finite(q.Quantile()) {
			m.nonFinite(name)
			continue
		}
		mark := len(m.values)
		m.values = appendQuantileKey(m.values, q.Quantile())
		path := e.quantilePath(name, m.values[mark:])
		m.values = m.values[:mark]
		if slices.ContainsFunc(m.ecsTpls, func(t ecsTemplate) bool { return t.name == path }) {
			continue
		}
		e.w.buf, m.values = m.values, e.w.buf
		e.w.float(q.Value())
		e.w.buf, m.values = m.values, e.w.buf
		d.add(entry{key: path, kind: kindJSON, s: arenaString(m.values[mark:]), n: int64(len(m.ecsTpls))})
		m.ecsTpls = append(m.ecsTpls, ecsTemplate{name: path, template: "double_metrics"})
	}
}

// quantilePath returns "summary_quantiles.<name>.<key>", cached so that the steady state does
// not allocate.
func (e *Encoder) quantilePath(name string, key []byte) string {
	m := &e.metrics
	if m.quantilePaths == nil || len(m.quantilePaths) >= maxPathCache {
		m.quantilePaths = make(map[string]map[string]string, 16)
	}
	byKey := m.quantilePaths[name]
	if byKey == nil {
		byKey = make(map[string]string, 4)
		m.quantilePaths[name] = byKey
	}
	if p, ok := byKey[string(key)]; ok {
		return p
	}
	p := "summary_quantiles." + name + "." + string(key)
	byKey[string(key)] = p
	return p
}

// appendQuantileKey appends "q" and the quantile with "." replaced by "_" (0.99 -> q0_99), so
// that the key is one field, not a path.
func appendQuantileKey(dst []byte, q float64) []byte {
	dst = append(dst, 'q')
	start := len(dst)
	dst = strconv.AppendFloat(dst, q, 'f', -1, 64)
	for i := start; i < len(dst); i++ {
		if dst[i] == '.' {
			dst[i] = '_'
		}
	}
	return dst
}
