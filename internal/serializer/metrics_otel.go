// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// encodeMetricEnvelope encodes a resource or scope object into the fragment arena.
func (e *Encoder) encodeMetricEnvelope(schemaURL, name, version string, attrs pcommon.Map, dropped uint32) envelopeRef {
	m := &e.metrics
	start := len(m.frags)
	var repaired bool
	m.frags, repaired = e.encodeEnvelope(m.frags, schemaURL, name, version, attrs, dropped)
	h, _ := hashAttrs(attrs, true)
	if name != "" {
		h = mix(h, xxhash.Sum64String(name))
	}
	return envelopeRef{hash: h, start: start, end: len(m.frags), attrs: attrs, name: name, repaired: repaired}
}

// writeOTelMetricsDocument writes the otel document of the points in e.metrics.pending whose
// names are free, deferring the others.
func (e *Encoder) writeOTelMetricsDocument(buf []byte) []byte {
	m := &e.metrics
	leader := &m.points[m.pending[0]]
	target := &m.targets[leader.target]

	e.begin(buf)
	start := len(e.w.buf)
	e.w.raw(`{"@timestamp":`)
	e.w.bytes(m.tsText.of(leader.ts))
	if leader.hasStart {
		e.w.raw(`,"start_timestamp":`)
		e.w.bytes(m.startText.of(leader.start))
	}
	if u := m.metrics[leader.metric].unit; u != "" {
		e.w.raw(`,"unit":`)
		e.w.str(u)
	}
	if target.ds.Type != "" {
		// As writeDataStream writes it, once per target.
		if target.dsEnd == 0 {
			m.encodeDataStream(target)
		}
		e.w.bytes(m.frags[target.dsStart:target.dsEnd])
		e.w.invalidUTF8 += int(target.dsInvalid)
	}
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
		var qs pmetric.SummaryDataPointValueAtQuantileSlice
		var qn *quantileNames
		if info.typ == pmetric.MetricTypeSummary {
			qs = info.metric.Summary().DataPoints().At(int(p.idx)).QuantileValues()
			if finiteQuantiles(qs) {
				qn = e.quantileNamesOf(name)
			}
		}
		if !m.takeName(pi, name) {
			continue
		}
		if qn != nil && !m.nameSet.add(qn.name) {
			// <name>_quantiles is taken: the point goes to the next document whole.
			m.nameSet.remove(name)
			m.deferred = append(m.deferred, pi)
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
		} else {
			m.names = append(m.names, name)
			m.docMetrics = append(m.docMetrics, p.metric)
			m.templates = append(m.templates, DynamicTemplate{Path: info.path, Template: tpl})
			if hinted {
				docCount = count
			}
		}
		if qn == nil {
			if info.typ == pmetric.MetricTypeSummary && qs.Len() > 0 {
				m.countNonFiniteQuantiles(qs, name) // none of them is finite
			}
			continue
		}
		// The quantiles are written even when the summary's own value was skipped.
		if len(m.names) > 0 {
			e.w.byte(',')
		}
		e.w.raw(qn.key)
		e.writeQuantiles(qs, name, qn)
		m.names = append(m.names, qn.name)
		m.docMetrics = append(m.docMetrics, ^p.metric)
	}
	e.w.byte('}')
	if len(m.names) == 0 {
		return e.dropMetricsDocument(start) // every value of the group was skipped
	}
	if docCount > 0 {
		e.w.raw(`,"_doc_count":`)
		e.w.uint(capDocCount(docCount))
	}
	e.w.raw(`,"_metric_names_hash":"`)
	m.namesHash()
	e.w.bytes(m.lastNamesHex)
	e.w.byte('"')
	if res.repaired || scope.repaired {
		e.w.invalidUTF8++
	}
	m.written(target)
	return e.finish()
}

// encodeDataStream encodes the data_stream member of t's documents into the fragment arena, as
// writeDataStream writes it.
func (s *metricsState) encodeDataStream(t *metricTarget) {
	start := len(s.frags)
	invalid := 0
	for i, part := range [...]string{t.ds.Type, t.ds.Dataset, t.ds.Namespace} {
		s.frags = append(s.frags, [...]string{`,"data_stream":{"type":`, `,"dataset":`, `,"namespace":`}[i]...)
		var n int
		s.frags, n = jsonstr.Append(s.frags, part)
		invalid += n
	}
	s.frags = append(s.frags, '}')
	t.dsStart, t.dsEnd, t.dsInvalid = int32(start), int32(len(s.frags)), int32(invalid)
}

// namesHash returns metricNamesHash of the document's names, and leaves it in lastNamesHex as
// the document writes it. Documents of one push mostly hold the same metrics in the same order,
// so the hash of the last document, and its text, are reused when its metrics were the same.
func (s *metricsState) namesHash() uint64 {
	if len(s.lastMetrics) > 0 && slices.Equal(s.docMetrics, s.lastMetrics) {
		return s.lastNamesHash
	}
	s.lastMetrics = append(s.lastMetrics[:0], s.docMetrics...)
	s.lastNamesHash = metricNamesHash(s.names)
	s.lastNamesHex = strconv.AppendUint(s.lastNamesHex[:0], s.lastNamesHash, 16)
	return s.lastNamesHash
}

// intText is the decimal text of the last number asked for: the data points of a push mostly
// share their timestamps, so each document copies the text rather than formatting it again.
type intText struct {
	v    int64
	text []byte // empty until the first number
}

// of returns the decimal text of v, valid until the next call.
func (t *intText) of(v int64) []byte {
	if len(t.text) == 0 || v != t.v {
		t.v, t.text = v, strconv.AppendInt(t.text[:0], v, 10)
	}
	return t.text
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
	k, _ := jsonstr.Append(nil, name)
	p := metricPathEntry{path: "metrics." + name, key: string(append(k, ':'))}
	m.paths[name] = p
	return p.path, p.key
}

type metricPathEntry struct{ path, key string }
