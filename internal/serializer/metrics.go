// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// Metric data points become one document per group: the points of one push that share the
// index, the resource attributes, the scope name and attributes, the data point attributes,
// the unit, and the timestamp and start timestamp in milliseconds. Grouping hashes the pdata
// directly into a reusable slice of point references and files each point in a reusable
// open-addressing table of groups keyed by hash. A point joins a group only when it equals the
// group's first point, so that two different groups never merge on a collision; the steady
// state does not allocate. Only the groups are sorted, by hash, then by first appearance.

// Reasons a data point is not written, reported in MetricsReport.
const (
	RejectNoValue          = "no_value"
	RejectBucketMismatch   = "histogram_bucket_mismatch"
	RejectScaleOutOfRange  = "scale_out_of_range"
	RejectUnsupportedType  = "unsupported_metric_type"
	RejectInvalidIndexName = "invalid_index_name"
	// RejectFieldTaken: in ecs mode, a metric whose name is a field the document already
	// holds (@timestamp, data_stream.*, _doc_count) or lies below an ECS field.
	RejectFieldTaken = "ecs_field_taken"
	numRejectReasons = 6
)

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken,
}

// MetricsReport tells what EncodeMetrics could not write.
type MetricsReport struct {
	// Rejected counts data points not written, by reason (see Reject*), with the name of the
	// first metric rejected for each reason.
	Rejected      [numRejectReasons]int
	RejectedNames [numRejectReasons]string
	// NonFinite counts NaN and ±Inf values skipped (numbers, and summary quantiles), with the
	// name of the first such metric.
	NonFinite     int
	NonFiniteName string
	// NoIndex counts data points skipped for their _noindex hint.
	NoIndex int
	// FirstError is the first routing error.
	FirstError error
}

// RejectReason returns the name of reason i, for i < len(Rejected).
func RejectReason(i int) string { return rejectReasons[i] }

func (r *MetricsReport) reject(reason int, name string) {
	if r.Rejected[reason] == 0 {
		r.RejectedNames[reason] = name
	}
	r.Rejected[reason]++
}

// MetricRouteFunc resolves the index of a data point from its attributes, its scope's and its
// resource's. ds is the zero DataStream for a plain index.
type MetricRouteFunc func(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (index string, ds DataStream, err error)

// DynamicTemplate is one entry of a bulk item's dynamic_templates: the field path and the
// name of the template Elasticsearch maps it with.
type DynamicTemplate struct {
	Path, Template string
}

// MetricsSink receives each metric document after it is written to the buffer.
type MetricsSink interface {
	// AddMetricsDocument records the document written at the end of the buffer from start on.
	// templates is only valid during the call.
	AddMetricsDocument(start int, index string, ds DataStream, templates []DynamicTemplate)
}

type metricTarget struct {
	index string
	ds    DataStream
	hash  uint64 // of index
}

// metricInfo is what the points of one metric share, worked out once per metric.
type metricInfo struct {
	metric  pmetric.Metric
	name    string // as written: invalid UTF-8 repaired
	path    string // "metrics.<name>", set on first use in otel mode, with key
	key     string // the name as a JSON member name, with its colon
	unit    string
	typ     pmetric.MetricType
	counter bool // a monotonic cumulative sum
}

type envelopeRef struct {
	hash       uint64
	start, end int // the encoded object in metricsState.frags; in ecs mode, the entries in metricsState.ecsRes
	attrs      pcommon.Map
	name       string // scope name; empty for resources
	repaired   bool
	// ecs mode, resources: the converted top-level attributes in metricsState.ecsPairs.
	pairStart, pairEnd int32
}

type metricPoint struct {
	attrs      pcommon.Map
	metric     int32 // index into metricsState.metrics
	idx        int32 // data point index within the metric
	res, scope int32 // indices into metricsState.resources / scopes
	target     int32 // index into metricsState.targets
	group      int32 // index into metricsState.groups, in order of first appearance
	hash       uint64
	// The times that group points: in milliseconds in otel mode; in ecs mode ts is in
	// nanoseconds and start is 0, as the start time is not written.
	ts, start int64
	shape     attrShape // of attrs
	hints     hintSet
	// Gauges and sums: the value, read with the rest of the point so that writing does not
	// go back to the data point.
	numType pmetric.NumberDataPointValueType
	num     uint64 // the int64 or the float64 bits
}

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

// metricsState is the reusable scratch state of EncodeMetrics.
type metricsState struct {
	points         []metricPoint
	metrics        []metricInfo
	groups         []pointGroup
	table          []groupSlot // open addressing, a power of two long, at most half full
	resources      []envelopeRef
	scopes         []envelopeRef
	targets        []metricTarget
	frags          []byte
	group, pending []int32
	order          []int32 // the indices of the points, group after group in the order written
	rank           []int32 // by group id: the group's place in the order written
	deferred       []int32
	names          []string
	docMetrics     []int32 // the metrics of the document being written, in order
	lastMetrics    []int32 // the metrics of the last document whose names hash was computed
	lastNamesHash  uint64
	templates      []DynamicTemplate
	quantiles      []int32
	paths          map[string]metricPathEntry   // by metric name
	quantilePaths  map[string]map[string]string // metric name -> quantile key -> path
	bucketValues   bucketValueCache
	nameSet        keySet
	report         MetricsReport
	readSum        uint64 // what readAhead read, kept so that its reads are not left out

	// ecs mode (see "The ecs mapping mode" below).
	ecsRes   flatDoc   // the converted, flattened entries of every resource, each sorted
	ecsPairs []ecsPair // the converted top-level attributes of every resource, for grouping
	values   []byte    // the written values of the metrics of one document
	ecsTpls  []ecsTemplate
}

const maxPathCache = 4096

func (s *metricsState) reset() {
	clear(s.points)
	s.points = s.points[:0]
	clear(s.metrics)
	s.metrics = s.metrics[:0]
	s.lastMetrics = s.lastMetrics[:0]
	clear(s.resources)
	s.resources = s.resources[:0]
	clear(s.scopes)
	s.scopes = s.scopes[:0]
	clear(s.targets)
	s.targets = s.targets[:0]
	s.frags = s.frags[:0]
	s.ecsRes.reset()
	clear(s.ecsPairs)
	s.ecsPairs = s.ecsPairs[:0]
	s.report = MetricsReport{}
}

// EncodeMetrics writes the documents of md to *buf in the encoder's mode (otel or ecs), calling
// sink for each, and reports the data points it could not write. Documents come out grouped
// (see the comment at the top of this file, and "The ecs mapping mode" below), ordered by
// group hash, then by first appearance.
func (e *Encoder) EncodeMetrics(buf *[]byte, md pmetric.Metrics, route MetricRouteFunc, sink MetricsSink) MetricsReport {
	m := &e.metrics
	m.reset()
	e.flatMaps = true
	defer func() { e.flatMaps = false }()

	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		res := rm.Resource()
		resIdx := int32(len(m.resources))
		if e.mode == ModeECS {
			m.resources = append(m.resources, m.ecsResource(res.Attributes()))
		} else {
			m.resources = append(m.resources, e.encodeMetricEnvelope(rm.SchemaUrl(), "", "", res.Attributes(), res.DroppedAttributesCount()))
		}
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			scope := sm.Scope()
			scopeIdx := int32(len(m.scopes))
			if e.mode == ModeECS {
				m.scopes = append(m.scopes, envelopeRef{}) // the scope is neither written nor grouped on
			} else {
				m.scopes = append(m.scopes, e.encodeMetricEnvelope(sm.SchemaUrl(), scope.Name(), scope.Version(), scope.Attributes(), scope.DroppedAttributesCount()))
			}
			metrics := sm.Metrics()
			for k := range metrics.Len() {
				e.collectPoints(metrics.At(k), resIdx, scopeIdx, res.Attributes(), scope, route)
			}
		}
	}
	e.groupPoints()
	// Groups were made in order of first appearance; the sort keeps it among equal hashes.
	slices.SortFunc(m.groups, func(a, b pointGroup) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	// A counting sort lays out the points of each group in the order of the groups, each
	// group's points in their order of appearance.
	m.rank = slices.Grow(m.rank[:0], len(m.groups))[:len(m.groups)]
	off := int32(0)
	for gi := range m.groups {
		g := &m.groups[gi]
		m.rank[g.id] = int32(gi)
		g.first, off = off, off+g.count // first now starts the group in m.order
	}
	m.order = slices.Grow(m.order[:0], len(m.points))[:len(m.points)]
	for i := range m.points {
		g := &m.groups[m.rank[m.points[i].group]]
		m.order[g.first] = int32(i)
		g.first++
	}
	for gi, g := range m.groups {
		if gi+1 < len(m.groups) {
			next := m.groups[gi+1]
			m.readAhead(m.order[next.first-next.count : next.first])
		}
		m.group = m.order[g.first-g.count : g.first]
		e.writeGroup(buf, sink)
	}
	return m.report
}

// readAhead reads the data of the points of the next group that writing goes back to: the
// first point's attributes and the histograms' buckets. Groups are written in the order of
// their hashes, so on a large push their data points lie far apart; reading them in one short
// loop lets their cache misses overlap instead of stalling the writing one by one.
func (s *metricsState) readAhead(group []int32) {
	var sum uint64
	for _, pi := range group {
		p := &s.points[pi]
		info := &s.metrics[p.metric]
		sum += p.num
		if info.typ != pmetric.MetricTypeHistogram {
			continue
		}
		dp := info.metric.Histogram().DataPoints().At(int(p.idx))
		counts, bounds := dp.BucketCounts(), dp.ExplicitBounds()
		if n := counts.Len(); n > 0 {
			sum += counts.At(0) + counts.At(n-1)
		}
		if n := bounds.Len(); n > 0 {
			sum += math.Float64bits(bounds.At(0)) + math.Float64bits(bounds.At(n-1))
		}
	}
	s.readSum += sum
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

// encodeMetricEnvelope encodes a resource or scope object into the fragment arena.
func (e *Encoder) encodeMetricEnvelope(schemaURL, name, version string, attrs pcommon.Map, dropped uint32) envelopeRef {
	m := &e.metrics
	start := len(m.frags)
	var repaired bool
	m.frags, repaired = e.encodeEnvelope(m.frags, schemaURL, name, version, attrs, dropped)
	h, _ := hashAttrs(attrs)
	if name != "" {
		h = mix(h, xxhash.Sum64String(name))
	}
	return envelopeRef{hash: h, start: start, end: len(m.frags), attrs: attrs, name: name, repaired: repaired}
}

func (e *Encoder) collectPoints(metric pmetric.Metric, resIdx, scopeIdx int32, resAttrs pcommon.Map, scope pcommon.InstrumentationScope, route MetricRouteFunc) {
	m := &e.metrics
	n := 0
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
	unitHash := xxhash.Sum64String(metric.Unit())
	base := mix(m.resources[resIdx].hash, m.scopes[scopeIdx].hash)
	mi := int32(len(m.metrics))
	info := metricInfo{metric: metric, name: metricName(metric), unit: metric.Unit(), typ: metric.Type()}
	if info.typ == pmetric.MetricTypeSum {
		sum := metric.Sum()
		info.counter = sum.IsMonotonic() && sum.AggregationTemporality() == pmetric.AggregationTemporalityCumulative
	}
	m.metrics = append(m.metrics, info)
	for i := range n {
		p := pointOf(metric, i)
		attrs := p.attrs
		ah, shape, pointHints := hashPointAttrs(attrs)
		if pointHints&hasNoIndex != 0 {
			m.report.NoIndex++
			continue
		}
		index, ds, err := route(attrs, scope.Attributes(), resAttrs, scope.Name(), p.ts)
		if err != nil {
			m.report.reject(rejectIndex(RejectInvalidIndexName), metric.Name())
			if m.report.FirstError == nil {
				m.report.FirstError = err
			}
			continue
		}
		target := e.metricTarget(index, ds)
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
			h = mix(base, m.targets[target].hash)
			h = mix(h, ah)
			h = mix(h, unitHash)
			h = mix(h, uint64(ts))
			h = mix(h, uint64(start))
		}
		m.points = append(m.points, metricPoint{
			metric: mi, attrs: attrs, idx: int32(i), res: resIdx, scope: scopeIdx, target: target,
			hash: h, ts: ts, start: start, shape: shape, hints: pointHints,
			numType: p.numType, num: p.num,
		})
	}
}

func rejectIndex(reason string) int {
	return slices.Index(rejectReasons[:], reason)
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

func pointOf(metric pmetric.Metric, i int) pointView {
	switch metric.Type() {
	case pmetric.MetricTypeGauge:
		return numberPointView(metric.Gauge().DataPoints().At(i))
	case pmetric.MetricTypeSum:
		return numberPointView(metric.Sum().DataPoints().At(i))
	case pmetric.MetricTypeHistogram:
		dp := metric.Histogram().DataPoints().At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	case pmetric.MetricTypeExponentialHistogram:
		dp := metric.ExponentialHistogram().DataPoints().At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	case pmetric.MetricTypeSummary:
		dp := metric.Summary().DataPoints().At(i)
		return pointView{attrs: dp.Attributes(), ts: dp.Timestamp(), start: dp.StartTimestamp()}
	}
	return pointView{attrs: pcommon.NewMap()}
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
	if a.res != b.res && !equalAttrs(m.resources[a.res].attrs, m.resources[b.res].attrs) {
		return false
	}
	if a.scope != b.scope && (m.scopes[a.scope].name != m.scopes[b.scope].name ||
		!equalAttrs(m.scopes[a.scope].attrs, m.scopes[b.scope].attrs)) {
		return false
	}
	return equalPointAttrs(a.attrs, b.attrs, a.shape, b.shape)
}

// attrShape is what hashing learns of an attribute map that speeds up its equality check: the
// number of grouped keys, and whether a key repeats.
type attrShape struct {
	grouped int32
	repeats bool
}

// equalPointAttrs is equalAttrs for maps of known shape. Without repeated keys, the same
// number of grouped keys and every grouped key of a found in b with an equal value make the
// two sets equal, so b need not be walked and a's keys need no check for repeats.
func equalPointAttrs(a, b pcommon.Map, sa, sb attrShape) bool {
	if sa.grouped != sb.grouped {
		return false
	}
	if sa.repeats || sb.repeats || a.Len() > linearMax || b.Len() > linearMax {
		return equalAttrs(a, b)
	}
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		vb, ok := b.Get(k)
		if !ok || !va.Equal(vb) {
			return false
		}
	}
	return true
}

// grouped reports whether an attribute takes part in grouping and is written: routing
// attributes and the mapping hints do not.
func grouped(k string) bool { return !controlattr.Is(k) }

// equalAttrs compares two attribute maps as sets of grouped keys, in any order. A repeated
// key counts once, with its first value, as it is written. Small maps are compared in place;
// large ones through an index of b's first values, so the time stays linear.
func equalAttrs(a, b pcommon.Map) bool {
	if a.Len() > linearMax || b.Len() > linearMax {
		return equalLargeAttrs(a, b)
	}
	na, nb := 0, 0
	for k, va := range a.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := a.Get(k); first != va {
			continue // a repeated key
		}
		na++
		vb, ok := b.Get(k)
		if !ok || !va.Equal(vb) {
			return false
		}
	}
	for k, vb := range b.All() {
		if !grouped(k) {
			continue
		}
		if first, _ := b.Get(k); first == vb {
			nb++
		}
	}
	return na == nb
}

func equalLargeAttrs(a, b pcommon.Map) bool {
	first := make(map[string]pcommon.Value, b.Len())
	for k, v := range b.All() {
		if _, seen := first[k]; !seen && grouped(k) {
			first[k] = v
		}
	}
	seen := make(map[string]struct{}, a.Len())
	for k, va := range a.All() {
		if _, dup := seen[k]; dup || !grouped(k) {
			continue
		}
		seen[k] = struct{}{}
		vb, ok := first[k]
		if !ok || !va.Equal(vb) {
			return false
		}
	}
	return len(seen) == len(first)
}

// hashMap hashes the grouped attributes of m independently of their order; a repeated key
// counts once, with its first value.
func hashMap(m pcommon.Map) uint64 {
	h, _ := hashAttrs(m)
	return h
}

// hashAttrs returns hashMap of m and its shape. Maps of more than linearMax keys track the
// keys seen in a set, so the time stays linear.
func hashAttrs(m pcommon.Map) (uint64, attrShape) {
	var seen map[string]struct{}
	if m.Len() > linearMax {
		seen = make(map[string]struct{}, m.Len())
	}
	var h uint64
	var shape attrShape
	for k, v := range m.All() {
		if !grouped(k) {
			continue
		}
		if seen != nil {
			if _, dup := seen[k]; dup {
				shape.repeats = true
				continue
			}
			seen[k] = struct{}{}
		} else if first, _ := m.Get(k); first != v {
			shape.repeats = true
			continue
		}
		shape.grouped++
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h, shape
}

// hashPointAttrs is hashAttrs of a data point's attributes with the point's mapping hints (see
// hintsOf), read in the same walk.
func hashPointAttrs(m pcommon.Map) (uint64, attrShape, hintSet) {
	if m.Len() > linearMax {
		h, shape := hashAttrs(m)
		return h, shape, hintsOf(m)
	}
	var h uint64
	var shape attrShape
	var hints hintSet
	hintsSeen := false
	for k, v := range m.All() {
		if !grouped(k) {
			if k == controlattr.MappingHints && !hintsSeen {
				hintsSeen = true // the first value counts, as Get finds it
				hints = hintsOfValue(v)
			}
			continue
		}
		if first, _ := m.Get(k); first != v {
			shape.repeats = true
			continue
		}
		shape.grouped++
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h, shape, hints
}

func hashValue(v pcommon.Value) uint64 {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return xxhash.Sum64String(v.Str())
	case pcommon.ValueTypeInt:
		return mix(1, uint64(v.Int()))
	case pcommon.ValueTypeDouble:
		return mix(2, math.Float64bits(v.Double()))
	case pcommon.ValueTypeBool:
		if v.Bool() {
			return 3
		}
		return 4
	case pcommon.ValueTypeMap:
		return mix(5, hashMapAll(v.Map()))
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		h := uint64(6)
		for i := range s.Len() {
			h = mix(h, hashValue(s.At(i)))
		}
		return h
	case pcommon.ValueTypeBytes:
		h := uint64(7)
		for _, c := range v.Bytes().All() {
			h = mix(h, uint64(c))
		}
		return h
	}
	return 0
}

// hashMapAll hashes every key of a nested map, independently of their order.
func hashMapAll(m pcommon.Map) uint64 {
	var h uint64
	for k, v := range m.All() {
		h += mix(xxhash.Sum64String(k), hashValue(v))
	}
	return h
}

// mix combines two hashes (the finaliser of SplitMix64 over their sum).
func mix(a, b uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 + b
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// hintSet is the set of mapping hints of a data point.
type hintSet uint8

const (
	hasAggregateMetricDouble hintSet = 1 << iota
	hasDocCount
	hasHistogramRaw
	hasNoIndex
)

// NoIndex reports whether attrs carry the _noindex mapping hint: the record, span, span event
// or data point is not indexed, and is counted as skipped.
func NoIndex(attrs pcommon.Map) bool { return hintsOf(attrs)&hasNoIndex != 0 }

// hintsOf reads the mapping hints attribute once; unknown hints are ignored.
func hintsOf(attrs pcommon.Map) hintSet {
	v, ok := attrs.Get(controlattr.MappingHints)
	if !ok {
		return 0
	}
	return hintsOfValue(v)
}

// hintsOfValue reads the hints of the value of the mapping hints attribute.
func hintsOfValue(v pcommon.Value) hintSet {
	if v.Type() != pcommon.ValueTypeSlice {
		return 0
	}
	var h hintSet
	s := v.Slice()
	for i := range s.Len() {
		if hv := s.At(i); hv.Type() == pcommon.ValueTypeStr {
			switch hv.Str() {
			case controlattr.HintAggregateMetricDouble:
				h |= hasAggregateMetricDouble
			case controlattr.HintDocCount:
				h |= hasDocCount
			case controlattr.HintHistogramRaw:
				h |= hasHistogramRaw
			case controlattr.HintNoIndex:
				h |= hasNoIndex
			}
		}
	}
	return h
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
		m.quantiles = m.quantiles[:0]
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

// writeOTelMetricsDocument writes the otel document of the points in e.metrics.pending whose
// names are free, deferring the others.
func (e *Encoder) writeOTelMetricsDocument(buf *[]byte, sink MetricsSink) {
	m := &e.metrics
	leader := &m.points[m.pending[0]]
	target := m.targets[leader.target]

	e.begin(*buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.int(leader.ts)
	if leader.start != 0 {
		e.w.raw(`,"start_timestamp":`)
		e.w.int(leader.start)
	}
	if u := m.metrics[leader.metric].unit; u != "" {
		e.w.raw(`,"unit":`)
		e.w.str(u)
	}
	e.writeDataStream(target.ds)
	if leader.attrs.Len() > 0 {
		e.w.raw(`,"attributes":`)
		e.writeAttributes(leader.attrs, "")
	}
	res, scope := m.resources[leader.res], m.scopes[leader.scope]
	e.w.raw(`,"resource":`)
	e.w.bytes(m.frags[res.start:res.end])
	e.w.raw(`,"scope":`)
	e.w.bytes(m.frags[scope.start:scope.end])
	e.w.raw(`,"metrics":{`)
	var docCount uint64
	for _, pi := range m.pending {
		p := &m.points[pi]
		info := &m.metrics[p.metric]
		name := info.name
		if !m.takeName(pi, name) {
			continue
		}
		mark := len(e.w.buf)
		if len(m.names) > 0 {
			e.w.byte(',')
		}
		if info.path == "" {
			info.path, info.key = e.metricPath(name)
		}
		e.w.raw(info.key)
		tpl, count, hinted := e.writeMetricValue(p, info)
		if tpl == "" {
			e.w.buf = e.w.buf[:mark]
			m.nameSet.remove(name)
			continue
		}
		m.names = append(m.names, name)
		m.docMetrics = append(m.docMetrics, p.metric)
		m.templates = append(m.templates, DynamicTemplate{Path: info.path, Template: tpl})
		if hinted {
			docCount = count
		}
		if info.typ == pmetric.MetricTypeSummary && info.metric.Summary().DataPoints().At(int(p.idx)).QuantileValues().Len() > 0 {
			m.quantiles = append(m.quantiles, pi)
		}
	}
	e.w.byte('}')
	if len(m.names) == 0 {
		e.dropMetricsDocument(buf, start) // every value of the group was skipped
		return
	}
	e.writeQuantiles()
	if docCount > 0 {
		e.w.raw(`,"_doc_count":`)
		e.w.uint(capDocCount(docCount))
	}
	e.w.raw(`,"_metric_names_hash":"`)
	e.w.buf = strconv.AppendUint(e.w.buf, m.namesHash(), 16)
	e.w.byte('"')
	if res.repaired || scope.repaired {
		e.w.invalidUTF8++
	}
	*buf = e.finish()
	sink.AddMetricsDocument(start, target.index, target.ds, m.templates)
}

// namesHash returns metricNamesHash of the document's names. Documents of one push mostly hold
// the same metrics in the same order, so the hash of the last document is reused when its
// metrics were the same.
func (s *metricsState) namesHash() uint64 {
	if len(s.lastMetrics) > 0 && slices.Equal(s.docMetrics, s.lastMetrics) {
		return s.lastNamesHash
	}
	s.lastMetrics = append(s.lastMetrics[:0], s.docMetrics...)
	s.lastNamesHash = metricNamesHash(s.names)
	return s.lastNamesHash
}

// metricNamesHash is XXH64 (seed 0) of the names sorted and concatenated with no separator.
// It sorts names in place.
func metricNamesHash(names []string) uint64 {
	slices.Sort(names)
	var d xxhash.Digest
	d.Reset()
	for _, n := range names {
		_, _ = d.WriteString(n)
	}
	return d.Sum64()
}

// metricPath returns "metrics.<name>" and name written as a JSON member name with its colon,
// cached so that the steady state does not allocate. name is valid UTF-8.
func (e *Encoder) metricPath(name string) (path, key string) {
	m := &e.metrics
	if p, ok := m.paths[name]; ok {
		return p.path, p.key
	}
	if m.paths == nil || len(m.paths) >= maxPathCache {
		m.paths = make(map[string]metricPathEntry, 64)
	}
	k, _ := appendString(nil, name)
	p := metricPathEntry{path: "metrics." + name, key: string(append(k, ':'))}
	m.paths[name] = p
	return p.path, p.key
}

type metricPathEntry struct{ path, key string }

// writeMetricValue writes the value of one data point and returns its dynamic template, or
// "" when the point is skipped (the caller then removes what was written), and the point's
// document count with whether it carries the _doc_count hint.
func (e *Encoder) writeMetricValue(p *metricPoint, info *metricInfo) (tpl string, count uint64, hinted bool) {
	rep := &e.metrics.report
	i := int(p.idx)
	name := info.name
	switch info.typ {
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
		counter := info.counter
		hinted = p.hints&hasDocCount != 0
		switch p.numType {
		case pmetric.NumberDataPointValueTypeInt:
			e.w.int(int64(p.num))
			if counter {
				return "counter_long", 1, hinted
			}
			return "gauge_long", 1, hinted
		case pmetric.NumberDataPointValueTypeDouble:
			v := math.Float64frombits(p.num)
			if !finite(v) {
				rep.nonFinite(name)
				return "", 0, false
			}
			e.w.float(v)
			if counter {
				return "counter_double", 1, hinted
			}
			return "gauge_double", 1, hinted
		}
		rep.reject(rejectIndex(RejectNoValue), name)
		return "", 0, false
	case pmetric.MetricTypeHistogram:
		dp := info.metric.Histogram().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		bounds, counts := dp.ExplicitBounds(), dp.BucketCounts()
		if bounds.Len() > 0 && counts.Len() != bounds.Len()+1 || bounds.Len() == 0 && counts.Len() > 1 {
			rep.reject(rejectIndex(RejectBucketMismatch), name)
			return "", 0, false
		}
		if p.hints&hasAggregateMetricDouble != 0 {
			e.writeSumCount(dp.Sum(), dp.Count())
			return "summary", dp.Count(), hinted
		}
		e.writeHistogram(dp, p.hints&hasHistogramRaw != 0)
		return "histogram", dp.Count(), hinted
	case pmetric.MetricTypeExponentialHistogram:
		dp := info.metric.ExponentialHistogram().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		if s := dp.Scale(); s < -10 || s > 20 {
			rep.reject(rejectIndex(RejectScaleOutOfRange), name)
			return "", 0, false
		}
		if p.hints&hasAggregateMetricDouble != 0 {
			e.writeSumCount(dp.Sum(), dp.Count())
			return "summary", dp.Count(), hinted
		}
		e.writeExponentialHistogram(dp)
		return "histogram", dp.Count(), hinted
	case pmetric.MetricTypeSummary:
		dp := info.metric.Summary().DataPoints().At(i)
		hinted = p.hints&hasDocCount != 0
		e.writeSumCount(dp.Sum(), dp.Count())
		return "summary", dp.Count(), hinted
	}
	return "", 0, false
}

func (r *MetricsReport) nonFinite(name string) {
	if r.NonFinite == 0 {
		r.NonFiniteName = name
	}
	r.NonFinite++
}

// writeSumCount writes {"sum": x, "value_count": n}, the aggregate_metric_double form. A NaN
// sum is written as null.
func (e *Encoder) writeSumCount(sum float64, count uint64) {
	e.w.raw(`{"sum":`)
	e.w.float(sum)
	e.w.raw(`,"value_count":`)
	e.w.uint(capCount(count))
	e.w.byte('}')
}

// capCount keeps counts within the long Elasticsearch stores.
func capCount(c uint64) uint64 {
	return min(c, math.MaxInt64)
}

// capDocCount keeps a _doc_count within the integer Elasticsearch's _doc_count field takes.
func capDocCount(c uint64) uint64 {
	return min(c, math.MaxInt32)
}

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

// metricName returns the name of metric as it is written: invalid UTF-8 repaired, so that two
// names that differ only in invalid bytes are one name in a document.
func metricName(metric pmetric.Metric) string {
	if name := metric.Name(); utf8.ValidString(name) {
		return name
	}
	return repairUTF8(metric.Name())
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

// The ecs mapping mode writes metric documents as the contrib exporter's ECS mode does: the
// resource attributes converted through the ECS resource table, @timestamp (RFC 3339 with
// nanoseconds), the data point attributes at the root, data_stream.*, and each metric under
// its own name at the root, all de-dotted into objects together (flat_write.go). Dynamic templates
// take the names of Elasticsearch's metrics@mappings that the APM pipeline uses:
// double_metrics, long_metrics, histogram_metrics and summary_metrics, with the metric's name as
// the path. There is no _metric_names_hash; _doc_count follows the _doc_count hint as in otel
// mode. Summary quantiles, which contrib's ECS mode leaves out, are written under
// summary_quantiles.<name>.q<quantile> as in otel mode, with double_metrics.
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
	e.merged = d.mergeSorted(e.merged[:0], m.ecsRes.entries[res.start:res.end])
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

// dropMetricsDocument gives back the buffer as it was before the document begun at start.
func (e *Encoder) dropMetricsDocument(buf *[]byte, start int) {
	*buf = e.w.buf[:start]
	e.w.buf = nil
}
