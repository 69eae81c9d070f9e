// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Metric data points become one document per group: the points of one push that share the
// index, the resource attributes, the scope name and attributes, the data point attributes,
// the unit, and the timestamp and start timestamp in milliseconds. Grouping hashes the pdata
// directly into a reusable slice of point references and files each point in a reusable
// open-addressing table of groups keyed by hash. A point joins a group only when it equals the
// group's first point, so that two different groups never merge on a collision; the steady
// state does not allocate. Only the groups are sorted, by hash, then by first appearance.

// pointGroup is one group of points: its hash, its first point, and its number of points.
type pointGroup struct {
	hash         uint64
	first, count int32
	id           int32 // the index of the group in order of first appearance
}

// groupSlot is one slot of the group table: a group's hash and its index plus one, 0 when the
// slot is free.
type groupSlot struct {
	hash  uint64
	group int32
}

func (e *Encoder) collectPoints(metric pmetric.Metric, resIdx, scopeIdx int32, resAttrs pcommon.Map, scope pcommon.InstrumentationScope, route MetricRouteFunc) {
	m := &e.metrics
	var n int
	// A metric type that pdata adds must be written or rejected here on purpose.
	//exhaustive:enforce
	switch metric.Type() {
	case pmetric.MetricTypeGauge:
		n = metric.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		n = metric.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		n = metric.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		n = metric.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		n = metric.Summary().DataPoints().Len()
	default:
		m.report.reject(rejectIndex(RejectUnsupportedType), metric.Name())
		return
	}
	name := metricName(metric)
	if !validMetricName(name, e.mode) {
		m.report.rejectN(rejectIndex(RejectInvalidMetricName), name, n)
		return
	}
	unitHash := xxhash.Sum64String(metric.Unit())
	base := mix(m.resources[resIdx].hash, m.scopes[scopeIdx].hash)
	mi := int32(len(m.metrics))
	info := metricInfo{metric: metric, name: name, unit: metric.Unit(), typ: metric.Type()}
	if info.typ == pmetric.MetricTypeSum {
		sum := metric.Sum()
		info.counter = sum.IsMonotonic() && sum.AggregationTemporality() == pmetric.AggregationTemporalityCumulative
	}
	m.metrics = append(m.metrics, info)
	points := metricPoints(metric)
	prefixTarget, prefix := int32(-1), uint64(0) // mix(base, the target's hash), for the last target
	for i := range n {
		p := points.at(i)
		attrs := p.attrs
		ah, shape, pointHints := hashPointAttrs(attrs, e.mode != ModeECS)
		if pointHints&hasNoIndex != 0 {
			m.report.NoIndex++
			continue
		}
		target, err := e.routePoint(attrs, shape.routes, resIdx, scopeIdx, resAttrs, scope, p.ts, route)
		if err != nil {
			m.report.rejectRoute(err, metric.Name())
			continue
		}
		var h uint64
		var ts, start int64
		if e.mode == ModeECS {
			// The ECS grouping: the index, the time and the resource and data point attributes
			// merged; not the scope, the unit or the start time.
			ts = int64(p.ts)
			h = mix(m.targets[target].hash, uint64(ts))
			h = mix(h, m.ecsMergedHash(&m.resources[resIdx], attrs, ah, shape))
		} else {
			ts, start = int64(uint64(p.ts)/1e6), int64(uint64(p.start)/1e6)
			if target != prefixTarget {
				prefixTarget, prefix = target, mix(base, m.targets[target].hash)
			}
			h = mix(prefix, ah)
			h = mix(h, unitHash)
			h = mix(h, uint64(ts))
			h = mix(h, uint64(start))
		}
		m.points = append(m.points, metricPoint{
			metric: mi, attrs: attrs, idx: int32(i), res: resIdx, scope: scopeIdx, target: target,
			hash: h, ts: ts, start: start, shape: shape, hints: pointHints, hasStart: e.mode != ModeECS && p.start != 0,
			numType: p.numType, num: p.num,
		})
	}
}

// routePoint returns the target of a data point, of attributes attrs (routes tells whether they
// hold a routing attribute) in scope scopeIdx of resource resIdx, at time ts. A point without
// routing attributes takes the route of the last such point when the scope and the time are the
// same (see MetricRouteFunc), so that the points of a metric, and of its scope's other metrics
// scraped at the same time, are routed once.
func (e *Encoder) routePoint(attrs pcommon.Map, routes bool, resIdx, scopeIdx int32, resAttrs pcommon.Map, scope pcommon.InstrumentationScope, ts pcommon.Timestamp, route MetricRouteFunc) (int32, error) {
	m := &e.metrics
	memo := &m.route
	if !routes && memo.valid && memo.res == resIdx && memo.scope == scopeIdx && memo.ts == ts {
		return memo.target, memo.err
	}
	target := int32(-1)
	index, ds, err := route(attrs, scope.Attributes(), resAttrs, scope.Name(), ts)
	if err == nil {
		target = e.metricTarget(index, ds)
	}
	if !routes {
		*memo = routeMemo{valid: true, res: resIdx, scope: scopeIdx, ts: ts, target: target, err: err}
	}
	return target, err
}

func (e *Encoder) metricTarget(index string, ds DataStream) int32 {
	m := &e.metrics
	for i, t := range slices.Backward(m.targets) { // the last target is the likeliest
		if t.index == index && t.ds == ds {
			return int32(i)
		}
	}
	m.targets = append(m.targets, metricTarget{index: index, ds: ds, hash: xxhash.Sum64String(index)})
	return int32(len(m.targets) - 1)
}

// pointView is what grouping and the document header need of any data point.
type pointView struct {
	attrs     pcommon.Map
	ts, start pcommon.Timestamp
	numType   pmetric.NumberDataPointValueType // gauges and sums
	num       uint64
}

func numberPointView(dp pmetric.NumberDataPoint) pointView {
	v := pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp(), numType: dp.ValueType()}
	switch v.numType {
	case pmetric.NumberDataPointValueTypeInt:
		v.num = uint64(dp.IntValue())
	case pmetric.NumberDataPointValueTypeDouble:
		v.num = math.Float64bits(dp.DoubleValue())
	}
	return v
}

// pointSlice is the data point slice of a metric of any type, looked up once per metric so
// that reading each point does not go through the metric again.
type pointSlice struct {
	typ        pmetric.MetricType
	numbers    pmetric.NumberDataPointSlice
	histograms pmetric.HistogramDataPointSlice
	exponent   pmetric.ExponentialHistogramDataPointSlice
	summaries  pmetric.SummaryDataPointSlice
}

func metricPoints(metric pmetric.Metric) pointSlice {
	s := pointSlice{typ: metric.Type()}
	switch s.typ {
	case pmetric.MetricTypeGauge:
		s.numbers = metric.Gauge().DataPoints()
	case pmetric.MetricTypeSum:
		s.numbers = metric.Sum().DataPoints()
	case pmetric.MetricTypeHistogram:
		s.histograms = metric.Histogram().DataPoints()
	case pmetric.MetricTypeExponentialHistogram:
		s.exponent = metric.ExponentialHistogram().DataPoints()
	case pmetric.MetricTypeSummary:
		s.summaries = metric.Summary().DataPoints()
	}
	return s
}

// at returns the view of data point i.
func (s *pointSlice) at(i int) pointView {
	switch s.typ {
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
		return numberPointView(s.numbers.At(i))
	case pmetric.MetricTypeHistogram:
		dp := s.histograms.At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	case pmetric.MetricTypeExponentialHistogram:
		dp := s.exponent.At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	case pmetric.MetricTypeSummary:
		dp := s.summaries.At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	}
	return pointView{attrs: pcommon.NewMap()}
}

// groupPoints files every point in m.groups through the group table. The table starts at
// twice the number of groups of the previous call, so that a steady stream of pushes of one
// shape neither grows it nor clears more than it needs.
func (e *Encoder) groupPoints() {
	m := &e.metrics
	want := min(len(m.points), max(len(m.groups), 8))
	m.groups = m.groups[:0]
	size := 16
	for size < 2*want {
		size *= 2
	}
	m.resizeGroupTable(size)
	for i := range m.points {
		p := &m.points[i]
		if 2*(len(m.groups)+1) > len(m.table) {
			m.resizeGroupTable(2 * len(m.table))
			for gi, g := range m.groups {
				m.fileGroup(g.hash, int32(gi))
			}
		}
		mask := uint64(len(m.table) - 1)
		for s := p.hash & mask; ; s = (s + 1) & mask {
			slot := &m.table[s]
			if slot.group == 0 {
				p.group = int32(len(m.groups))
				m.groups = append(m.groups, pointGroup{hash: p.hash, first: int32(i), count: 1, id: p.group})
				*slot = groupSlot{hash: p.hash, group: int32(len(m.groups))}
				break
			}
			if slot.hash != p.hash {
				continue
			}
			if g := &m.groups[slot.group-1]; e.samePointGroup(&m.points[g.first], p) {
				p.group = slot.group - 1
				g.count++
				break
			}
		}
	}
}

// resizeGroupTable empties the group table and makes it size slots long.
func (s *metricsState) resizeGroupTable(size int) {
	if cap(s.table) < size {
		s.table = make([]groupSlot, size)
		return
	}
	s.table = s.table[:size]
	clear(s.table)
}

// fileGroup puts group gi in the first free slot from its hash on.
func (s *metricsState) fileGroup(hash uint64, gi int32) {
	mask := uint64(len(s.table) - 1)
	i := hash & mask
	for s.table[i].group != 0 {
		i = (i + 1) & mask
	}
	s.table[i] = groupSlot{hash: hash, group: gi + 1}
}

// samePointGroup reports whether two points with equal hashes belong to one document group.
func (e *Encoder) samePointGroup(a, b *metricPoint) bool {
	if a == b {
		return true
	}
	m := &e.metrics
	if e.mode == ModeECS {
		return a.target == b.target && a.ts == b.ts && m.sameECSAttrs(a, b)
	}
	if a.target != b.target || a.ts != b.ts || a.start != b.start ||
		a.metric != b.metric && m.metrics[a.metric].unit != m.metrics[b.metric].unit {
		return false
	}
	if a.res != b.res && !equalAttrs(m.resources[a.res].attrs, m.resources[b.res].attrs, true) {
		return false
	}
	if a.scope != b.scope && (m.scopes[a.scope].name != m.scopes[b.scope].name ||
		!equalAttrs(m.scopes[a.scope].attrs, m.scopes[b.scope].attrs, true)) {
		return false
	}
	return equalPointAttrs(a.attrs, b.attrs, a.shape, b.shape, true)
}

// writeGroup writes the points in e.metrics.group as one document, or as several when two
// points share a metric name: a later point with a name already written goes to the next
// document instead of being lost.
func (e *Encoder) writeGroup(buf *[]byte, sink MetricsSink) {
	m := &e.metrics
	m.pending = append(m.pending[:0], m.group...)
	for len(m.pending) > 0 {
		m.deferred = m.deferred[:0]
		m.names = m.names[:0]
		m.docMetrics = m.docMetrics[:0]
		m.nameSet.reset()
		m.templates = m.templates[:0]
		if e.mode == ModeECS {
			e.writeECSMetricsDocument(buf, sink)
		} else {
			e.writeOTelMetricsDocument(buf, sink)
		}
		m.pending = append(m.pending[:0], m.deferred...)
	}
}

// takeName claims the name of point pi for the document being written, and reports whether it
// was free; a point whose name is taken is deferred to the next document.
func (s *metricsState) takeName(pi int32, name string) bool {
	if s.nameSet.add(name) {
		return true
	}
	s.deferred = append(s.deferred, pi)
	return false
}
