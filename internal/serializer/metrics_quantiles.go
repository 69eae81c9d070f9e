// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"
	"strconv"
)

// writeQuantiles writes the quantiles of the summaries of the document under
// "summary_quantiles": {"<name>": {"q0_5": v, ...}}, apart from the metrics object, since an
// aggregate_metric_double field takes no sub-fields besides its own. Each quantile is mapped
// with gauge_double; NaN and ±Inf quantiles are skipped and counted.
func (e *Encoder) writeQuantiles() {
	m := &e.metrics
	if len(m.quantiles) == 0 {
		return
	}
	e.w.raw(`,"summary_quantiles":{`)
	for i, pi := range m.quantiles {
		p := &m.points[pi]
		info := &m.metrics[p.metric]
		name := info.name
		if i > 0 {
			e.w.byte(',')
		}
		e.w.str(name)
		e.w.raw(`:{`)
		qs := info.metric.Summary().DataPoints().At(int(p.idx)).QuantileValues()
		first := true
		for j := range qs.Len() {
			q := qs.At(j)
			if !finite(q.Value()) || !finite(q.Quantile()) {
				m.report.nonFinite(name)
				continue
			}
			mark := len(e.w.buf)
			if !first {
				e.w.byte(',')
			}
			keyStart := len(e.w.buf)
			e.w.byte('"')
			e.w.buf = appendQuantileKey(e.w.buf, q.Quantile())
			path := e.quantilePath(name, e.w.buf[keyStart+1:])
			if slices.ContainsFunc(m.templates, func(t DynamicTemplate) bool { return t.Path == path }) {
				e.w.buf = e.w.buf[:mark] // a repeated quantile: the first wins
				continue
			}
			first = false
			e.w.raw(`":`)
			e.w.float(q.Value())
			m.templates = append(m.templates, DynamicTemplate{Path: path, Template: "gauge_double"})
		}
		e.w.byte('}')
	}
	e.w.byte('}')
}

// addECSQuantiles adds the quantiles of a summary point as summary_quantiles.<name>.q<quantile>
// (0.99 -> q0_99), beside the {sum, value_count} object as in otel mode, each mapped with
// double_metrics; NaN and ±Inf quantiles are skipped and counted, a repeated quantile is
// written once (the first wins).
func (e *Encoder) addECSQuantiles(d *flatDoc, p *metricPoint, name string) {
	m := &e.metrics
	qs := e.metrics.metrics[p.metric].metric.Summary().DataPoints().At(int(p.idx)).QuantileValues()
	for j := range qs.Len() {
		q := qs.At(j)
		if !finite(q.Value()) || !finite(q.Quantile()) {
			m.report.nonFinite(name)
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
