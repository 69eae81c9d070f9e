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

// pointCursor is the metric AddMetric took and the data point MetricPoint read last, with what
// grouping needs of them.
type pointCursor struct {
	points     pointSlice
	metric     int32 // index into metricsState.metrics
	res, scope int32
	base       uint64 // the hash of the resource and the scope
	unitHash   uint64
	// prefix is mix(base, the hash of target prefixTarget), for the last target.
	prefixTarget int32
	prefix       uint64
	// The data point read last.
	idx   int32
	view  pointView
	hash  uint64 // of its attributes
	shape attrShape
	hints hintSet
}

// AddMetric takes a metric of the scope added last and returns its number of data points,
// each to be read with MetricPoint and added with AddMetricPoint. A metric that cannot be
// written has no point to add: the Rejection says why, for its n data points (for a type the
// serializer does not know, the metric).
func (e *Encoder) AddMetric(metric pmetric.Metric) (int, Rejection) {
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
		return 0, Rejection{Reason: RejectUnsupportedType, Records: 1, Name: metric.Name()}
	}
	name := metricName(metric)
	if !validMetricName(name, e.mode) {
		if n == 0 {
			return 0, Rejection{}
		}
		return 0, Rejection{Reason: RejectInvalidMetricName, Records: n, Name: name}
	}
	res, scope := int32(len(m.resources)-1), int32(len(m.scopes)-1)
	info := metricInfo{metric: metric, name: name, unit: metric.Unit(), typ: metric.Type()}
	if info.typ == pmetric.MetricTypeSum {
		sum := metric.Sum()
		info.counter = sum.IsMonotonic() && sum.AggregationTemporality() == pmetric.AggregationTemporalityCumulative
	}
	m.metrics = append(m.metrics, info)
	// The cursor is set field by field: the point fields are MetricPoint's, and of the data
	// point slices only the metric's type's is read.
	c := &m.cur
	c.points.set(metric)
	c.metric, c.res, c.scope = int32(len(m.metrics)-1), res, scope
	c.base, c.unitHash = mix(m.resources[res].hash, m.scopes[scope].hash), xxhash.Sum64String(metric.Unit())
	c.prefixTarget = -1
	return n, Rejection{}
}

// MetricPoint reads data point i of the metric AddMetric took last and returns what routing
// needs of it; AddMetricPoint then adds it.
func (e *Encoder) MetricPoint(i int) MetricPoint {
	c := &e.metrics.cur
	c.idx = int32(i)
	c.view = c.points.at(i)
	c.hash, c.shape, c.hints = hashPointAttrs(c.view.attrs, e.mode != ModeECS)
	return MetricPoint{Attrs: c.view.attrs, Timestamp: c.view.ts, Routes: c.shape.routes, NoIndex: c.hints&hasNoIndex != 0}
}

// MetricTarget names a target of the data points of the push being added: an index, or a data
// stream, as MetricTarget and RefusedMetricTarget returned it since BeginMetrics. A caller that
// routes the points of a metric, or of a scope, to one target asks for it once and adds each
// point with it.
type MetricTarget int32

// MetricTarget returns the target of the points bound for index (ds is the zero DataStream for a
// plain index).
func (e *Encoder) MetricTarget(index string, ds DataStream) MetricTarget {
	return e.targetOf(index, ds, false)
}

// RefusedMetricTarget returns the target of the points bound for index, a target the caller
// refused. Their documents are written as any other, with no data stream, but hold only points
// added with it, never one added for the same index with a MetricTarget, and say so
// (MetricsDocument.Refused).
func (e *Encoder) RefusedMetricTarget(index string) MetricTarget {
	return e.targetOf(index, DataStream{}, true)
}

// AddMetricPoint adds the data point MetricPoint read last, bound for target t.
func (e *Encoder) AddMetricPoint(t MetricTarget) {
	m := &e.metrics
	c := &m.cur
	p := &c.view
	target := int32(t)
	var h uint64
	var ts, start int64
	if e.mode == ModeECS {
		// The ECS grouping: the index, the time and the resource and data point attributes
		// merged; not the scope, the unit or the start time.
		ts = int64(p.ts)
		h = mix(m.targets[target].hash, uint64(ts))
		h = mix(h, m.ecsMergedHash(&m.resources[c.res], p.attrs, c.hash, c.shape))
	} else {
		ts, start = int64(uint64(p.ts)/1e6), int64(uint64(p.start)/1e6)
		if target != c.prefixTarget {
			c.prefixTarget, c.prefix = target, mix(c.base, m.targets[target].hash)
		}
		h = mix(c.prefix, c.hash)
		h = mix(h, c.unitHash)
		h = mix(h, uint64(ts))
		h = mix(h, uint64(start))
	}
	m.points = append(m.points, metricPoint{
		metric: c.metric, attrs: p.attrs, idx: c.idx, res: c.res, scope: c.scope, target: target,
		hash: h, ts: ts, start: start, shape: c.shape, hints: c.hints, hasStart: e.mode != ModeECS && p.start != 0,
		numType: p.numType, num: p.num,
	})
}

// targetOf returns the target of index, ds and refused, added on first use.
func (e *Encoder) targetOf(index string, ds DataStream, refused bool) MetricTarget {
	m := &e.metrics
	for i := range slices.Backward(m.targets) { // the last target is the likeliest
		if m.targets[i].is(index, ds, refused) {
			return MetricTarget(i)
		}
	}
	m.targets = append(m.targets, metricTarget{index: index, ds: ds, refused: refused, hash: xxhash.Sum64String(index)})
	return MetricTarget(len(m.targets) - 1)
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

// set makes s the data point slice of metric. It sets only the slice of the metric's type: at
// reads no other.
func (s *pointSlice) set(metric pmetric.Metric) {
	s.typ = metric.Type()
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

// takeName claims the name of point pi for the document being written, and reports whether it
// was free; a point whose name is taken is deferred to the next document.
func (s *metricsState) takeName(pi int32, name string) bool {
	if s.nameSet.add(name) {
		return true
	}
	s.deferred = append(s.deferred, pi)
	return false
}
