// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The data points of a push are written as grouped documents, in three steps. The pipeline
// walks them: BeginMetrics, then AddMetricsResource, AddMetricsScope and AddMetric for each
// resource, scope and metric, and for each data point MetricPoint, which tells what routing
// needs, and AddMetricPoint with the point's target (MetricTarget, asked for once per target and
// kept by the caller for the points that share it). GroupMetrics then files the points in groups
// (metrics_grouping.go, with the attribute hashing and equality of metrics_attrs.go), and each
// AppendMetricsDocument writes the next document of a group (a group is more than one
// document when a metric name repeats): the otel document (metrics_otel.go) or the ecs one
// (metrics_ecs.go). The value of each point is written by type (metrics_values.go,
// metrics_histogram.go, metrics_quantiles.go); what could not be written is reported with the
// document (metrics_report.go).

// MetricPoint is what routing needs of a data point (see Encoder.MetricPoint).
type MetricPoint struct {
	Attrs     pcommon.Map
	Timestamp pcommon.Timestamp
	// Routes tells that Attrs hold an attribute that names the index or a part of the data
	// stream (elasticsearch.index, data_stream.type, data_stream.dataset,
	// data_stream.namespace): a point without one routes as the other points of its scope at
	// its timestamp do.
	Routes bool
	// NoIndex tells that the point carries the _noindex hint: it is not to be written.
	NoIndex bool
}

type metricTarget struct {
	index   string
	ds      DataStream
	refused bool   // returned by RefusedMetricTarget
	hash    uint64 // of index
	// The data_stream member of the otel document, encoded on first use into
	// metricsState.frags (end 0 until then), and the bytes of invalid UTF-8 it replaced.
	dsStart, dsEnd, dsInvalid int32
}

// is reports whether the target is the one of points bound for index and ds, refused or not.
func (t *metricTarget) is(index string, ds DataStream, refused bool) bool {
	return t.index == index && t.ds == ds && t.refused == refused
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
	// hasStart tells that the start time is not zero, in nanoseconds: a start below 1 ms is
	// written as 0, a zero start not at all.
	hasStart bool
	// Gauges and sums: the value, read with the rest of the point so that writing does not
	// go back to the data point.
	numType pmetric.NumberDataPointValueType
	num     uint64 // the int64 or the float64 bits
}

// metricsState is the reusable scratch state of the data points of a push, from BeginMetrics
// to the last AppendMetricsDocument.
type metricsState struct {
	points        []metricPoint
	metrics       []metricInfo
	groups        []pointGroup
	sorted        []pointGroup // sortGroups' other buffer
	buckets       []int32      // sortGroups' bucket offsets
	table         []groupSlot  // open addressing, a power of two long, at most half full
	resources     []envelopeRef
	scopes        []envelopeRef
	targets       []metricTarget
	frags         []byte
	pending       []int32 // the points of the group being written not yet in a document
	order         []int32 // the indices of the points, group after group in the order written
	rank          []int32 // by group id: the group's place in the order written
	deferred      []int32
	names         []string
	docMetrics    []int32 // the metrics of the document being written, in order; ^metric for its <name>_quantiles
	lastMetrics   []int32 // the metrics of the last document whose names hash was computed
	lastNamesHash uint64
	lastNamesHex  []byte // lastNamesHash in hexadecimal, as the document writes it
	tsText        intText
	startText     intText
	templates     []DynamicTemplate
	paths         map[string]metricPathEntry   // by metric name
	quantileNames map[string]*quantileNames    // by metric name, otel mode
	quantilePaths map[string]map[string]string // metric name -> quantile key -> path, ecs mode
	renamedPaths  map[string]string            // ecs mode: stable copies of renamed field keys (renamedPath)
	bucketValues  bucketValueCache
	pairs         []histPair // the pairs of the histogram being written
	nameSet       keySet
	readSum       uint64          // what readAhead read, kept so that its reads are not left out
	cur           pointCursor     // the metric and the data point being added
	doc           MetricsDocument // what the last AppendMetricsDocument did
	next          int             // the group AppendMetricsDocument writes next

	// ecs mode (metrics_ecs.go).
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
	s.pending = s.pending[:0]
	s.next = 0
	s.cur = pointCursor{}
}

// BeginMetrics starts the data points of a push (of its scopes of one mapping mode), written in
// the encoder's mode (otel or ecs).
func (e *Encoder) BeginMetrics() {
	e.metrics.reset()
}

// AddMetricsResource encodes the resource of the scopes and metrics added next.
func (e *Encoder) AddMetricsResource(rm pmetric.ResourceMetrics) {
	m := &e.metrics
	res := rm.Resource()
	e.flatMaps = true
	if e.mode == ModeECS {
		m.resources = append(m.resources, m.ecsResource(res.Attributes()))
	} else {
		m.resources = append(m.resources, e.encodeMetricEnvelope(rm.SchemaUrl(), "", "", res.Attributes(), res.DroppedAttributesCount()))
	}
	e.flatMaps = false
}

// AddMetricsScope encodes the scope of the metrics added next.
func (e *Encoder) AddMetricsScope(sm pmetric.ScopeMetrics) {
	m := &e.metrics
	if e.mode == ModeECS {
		m.scopes = append(m.scopes, envelopeRef{}) // the scope is neither written nor grouped on
		return
	}
	scope := sm.Scope()
	e.flatMaps = true
	m.scopes = append(m.scopes, e.encodeMetricEnvelope(sm.SchemaUrl(), scope.Name(), scope.Version(), scope.Attributes(), scope.DroppedAttributesCount()))
	e.flatMaps = false
}

// GroupMetrics files the data points added in groups, each group a document or more, and
// orders the groups (see metrics_grouping.go, and metrics_ecs_grouping.go for the ecs mode):
// by group hash, then by first appearance.
func (e *Encoder) GroupMetrics() {
	m := &e.metrics
	e.groupPoints()
	m.sortGroups()
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
	m.next = 0
	m.pending = m.pending[:0]
}

// AppendMetricsDocument appends the next document of the grouped data points to dst and
// reports what it did; it returns false when every document was written.
// A document whose values were all refused or skipped is not appended (Written is false).
func (e *Encoder) AppendMetricsDocument(dst []byte) ([]byte, *MetricsDocument, bool) {
	m := &e.metrics
	if len(m.pending) == 0 {
		if m.next == len(m.groups) {
			return dst, nil, false
		}
		g := m.groups[m.next]
		m.next++
		if m.next < len(m.groups) {
			next := m.groups[m.next]
			m.readAhead(m.order[next.first-next.count : next.first])
		}
		m.pending = append(m.pending, m.order[g.first-g.count:g.first]...)
	}
	clear(m.doc.Rejected)
	m.doc = MetricsDocument{Rejected: m.doc.Rejected[:0]}
	m.deferred = m.deferred[:0]
	m.names = m.names[:0]
	m.docMetrics = m.docMetrics[:0]
	m.nameSet.reset()
	m.templates = m.templates[:0]
	e.flatMaps = true
	if e.mode == ModeECS {
		dst = e.writeECSMetricsDocument(dst)
	} else {
		dst = e.writeOTelMetricsDocument(dst)
	}
	e.flatMaps = false
	m.pending = append(m.pending[:0], m.deferred...)
	return dst, &m.doc, true
}

// written records the document just written for the target of its leader.
func (s *metricsState) written(target *metricTarget) {
	s.doc.Index, s.doc.DataStream, s.doc.Refused = target.index, target.ds, target.refused
	s.doc.Templates = s.templates
	s.doc.Written = true
}

// sortGroups orders the groups by hash, then by first appearance. The hashes are uniform, so a
// counting sort on their top bits into about as many buckets as groups leaves buckets of about
// one group each, put in order by insertion: linear time where a comparison sort of a push
// whose points are each a group of their own would take n log n. The counting sort is stable
// and the groups were made in order of first appearance, so equal hashes keep that order. A
// bucket that holds many groups (hashes made to share their top bits) is sorted by
// comparison, which bounds the time at n log n whatever the hashes.
func (s *metricsState) sortGroups() {
	n := len(s.groups)
	if n <= 16 {
		insertionSortGroups(s.groups)
		return
	}
	shift := 64 - bits.Len(uint(n-1)) // 2^(64-shift) buckets, at least n
	nb := 1 << (64 - shift)
	s.buckets = slices.Grow(s.buckets[:0], nb+1)[:nb+1]
	clear(s.buckets)
	for i := range s.groups {
		s.buckets[s.groups[i].hash>>shift+1]++
	}
	for b := 1; b <= nb; b++ {
		s.buckets[b] += s.buckets[b-1]
	}
	s.sorted = slices.Grow(s.sorted[:0], n)[:n]
	for _, g := range s.groups {
		b := g.hash >> shift
		s.sorted[s.buckets[b]] = g
		s.buckets[b]++
	}
	// buckets[b] now ends bucket b.
	start := int32(0)
	for b := range nb {
		end := s.buckets[b]
		if bucket := s.sorted[start:end]; len(bucket) > 16 {
			slices.SortStableFunc(bucket, func(a, b pointGroup) int { return cmp.Compare(a.hash, b.hash) })
		} else {
			insertionSortGroups(bucket)
		}
		start = end
	}
	s.groups, s.sorted = s.sorted, s.groups
}

// insertionSortGroups sorts a few groups by hash, keeping the order of equal hashes.
func insertionSortGroups(groups []pointGroup) {
	for i := 1; i < len(groups); i++ {
		g := groups[i]
		j := i
		for ; j > 0 && groups[j-1].hash > g.hash; j-- {
			groups[j] = groups[j-1]
		}
		groups[j] = g
	}
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

// metricName returns the name of metric as it is written: invalid UTF-8 repaired, so that two
// names that differ only in invalid bytes are one name in a document.
func metricName(metric pmetric.Metric) string {
	if name := metric.Name(); utf8.ValidString(name) {
		return name
	}
	return repairUTF8(metric.Name())
}

// dropMetricsDocument returns the buffer as it was before the document begun at start.
func (e *Encoder) dropMetricsDocument(start int) []byte {
	buf := e.w.buf[:start]
	e.w.buf = nil
	return buf
}

// validMetricName reports whether Elasticsearch indexes name as a field name where mode writes
// metrics. The otel mode writes them into the passthrough object metrics, which does not expand
// dots: there Elasticsearch refuses only an empty and a whitespace-only name, and indexes any
// other as one field of that exact name, a leading, a trailing or a repeated dot included (see
// docs/dev/tsdb-facts.md). The ecs mode writes them at the document root, whose dot expansion
// also refuses a name with an empty or whitespace-only part between its dots, which covers a
// leading or a repeated dot; it reads a trailing dot as if it were not there ("a." is "a",
// without the dynamic template named for "a."), so such a name is refused too.
func validMetricName(name string, mode Mode) bool {
	if mode == ModeOTel {
		return !blankJava(name)
	}
	if name == "" {
		return false
	}
	for len(name) > 0 {
		part := name
		i := strings.IndexByte(name, '.')
		if i >= 0 {
			part, name = name[:i], name[i+1:]
		} else {
			name = ""
		}
		if blankJava(part) {
			return false
		}
		if i >= 0 && name == "" {
			return false // a trailing dot
		}
	}
	return true
}

// blankJava reports whether s is empty or only whitespace as Java's String.isBlank sees it,
// which Elasticsearch's dot expansion uses: the Unicode space, line and paragraph separators
// except the no-break spaces, and tab, line feed, vertical tab, form feed, carriage return and
// the four information separators U+001C..U+001F.
func blankJava(s string) bool {
	for _, r := range s {
		switch {
		case r == '\u00a0' || r == '\u2007' || r == '\u202f':
			return false
		case r >= '\t' && r <= '\r' || r >= 0x1c && r <= 0x1f:
		case r < utf8.RuneSelf:
			if r != ' ' {
				return false
			}
		case !unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
			return false
		}
	}
	return true
}
