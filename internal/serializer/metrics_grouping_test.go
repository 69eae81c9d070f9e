// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// TestMetricsGrouping checks which data points share a document. Every case has two gauges,
// a and b, that differ only as the case says.
func TestMetricsGrouping(t *testing.T) {
	type point struct {
		ts, start pcommon.Timestamp
		unit      string
		attrs     []any
	}
	base := point{ts: ts0, start: start0, unit: "1", attrs: []any{"host", "h1", "cpu", 1}}
	tests := []struct {
		name     string
		a, b     func(p *point)
		wantDocs int
	}{
		{name: "identical", wantDocs: 1},
		{
			name:     "same attributes in another key order",
			b:        func(p *point) { p.attrs = []any{"cpu", 1, "host", "h1"} },
			wantDocs: 1,
		},
		{name: "different attribute value", b: func(p *point) { p.attrs = []any{"host", "h2", "cpu", 1} }, wantDocs: 2},
		{name: "different attribute type", b: func(p *point) { p.attrs = []any{"host", "h1", "cpu", "1"} }, wantDocs: 2},
		{name: "one attribute more", b: func(p *point) { p.attrs = append(p.attrs, "extra", true) }, wantDocs: 2},
		{
			name:     "NaN attribute values",
			a:        func(p *point) { p.attrs = append(p.attrs, "x", math.NaN()) },
			b:        func(p *point) { p.attrs = append(p.attrs, "x", math.Float64frombits(0xfff0000000000123)) },
			wantDocs: 1,
		},
		{
			name:     "NaN and a number",
			a:        func(p *point) { p.attrs = append(p.attrs, "x", math.NaN()) },
			b:        func(p *point) { p.attrs = append(p.attrs, "x", 1.0) },
			wantDocs: 2,
		},
		{
			name:     "0 and -0, written apart",
			a:        func(p *point) { p.attrs = append(p.attrs, "x", 0.0) },
			b:        func(p *point) { p.attrs = append(p.attrs, "x", math.Copysign(0, -1)) },
			wantDocs: 2,
		},
		{name: "different unit", b: func(p *point) { p.unit = "By" }, wantDocs: 2},
		{name: "timestamps one millisecond apart", b: func(p *point) { p.ts += 1_000_000 }, wantDocs: 2},
		{name: "timestamps apart by less than a millisecond", b: func(p *point) { p.ts += 543_210 }, wantDocs: 1},
		{name: "start timestamps one millisecond apart", b: func(p *point) { p.start += 1_000_000 }, wantDocs: 2},
		{name: "start timestamps apart by less than a millisecond", b: func(p *point) { p.start += 999_999 }, wantDocs: 1},
		{name: "one start timestamp zero", b: func(p *point) { p.start = 0 }, wantDocs: 2},
		{
			name:     "different index",
			b:        func(p *point) { p.attrs = append(p.attrs, "data_stream.dataset", "other") },
			wantDocs: 2,
		},
		{
			name:     "different plain index",
			a:        func(p *point) { p.attrs = append(p.attrs, "elasticsearch.index", "idx-a") },
			b:        func(p *point) { p.attrs = append(p.attrs, "elasticsearch.index", "idx-b") },
			wantDocs: 2,
		},
		{
			name: "control attributes and hints do not split",
			a:    func(p *point) { p.attrs = append(p.attrs, "elasticsearch.mapping.hints", hints("_doc_count")) },
			b: func(p *point) {
				p.attrs = append(p.attrs, "elastic.mapping.mode", "otel", "data_stream.namespace", "default",
					"elasticsearch.document_id", "id-1", "elasticsearch.ingest_pipeline", "p",
					"elasticsearch.document_pipeline", "p", "data_stream.type", "logs")
			},
			wantDocs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			for i, change := range []func(*point){tt.a, tt.b} {
				p := base
				p.attrs = slices.Clone(base.attrs)
				if change != nil {
					change(&p)
				}
				dp := gaugeInt(ms, []string{"a", "b"}[i], int64(i))
				ms.At(i).SetUnit(p.unit)
				dp.SetTimestamp(p.ts)
				dp.SetStartTimestamp(p.start)
				putAttrs(dp.Attributes(), p.attrs...)
			}
			docs, rep := encodeMetrics(t, md)
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			assert.Equal(t, MetricsReport{}, rep)
			for _, d := range docs {
				attrs := string(d.fields(t)["attributes"])
				for _, k := range []string{"elasticsearch.", "data_stream.", "elastic.mapping"} {
					assert.NotContains(t, attrs, k, "control attributes are not written")
				}
			}
			if tt.wantDocs == 1 {
				assert.Equal(t, "0", docs[0].metric(t, "a"))
				assert.Equal(t, "1", docs[0].metric(t, "b"))
			}
		})
	}
}

// TestNaNDimensionsGroupTogether puts NaN values, with different bits, at every level a data
// point attribute can hold them, and in a resource attribute, in both mapping modes: the
// points share one document.
func TestNaNDimensionsGroupTogether(t *testing.T) {
	nans := []float64{math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000000)}
	md := pmetric.NewMetrics()
	for i, nan := range nans {
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutDouble("r", nan)
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("test")
		attrs := gaugeInt(sm.Metrics(), "m"+strconv.Itoa(i), 1).Attributes()
		attrs.PutDouble("x", nan)
		attrs.PutEmptySlice("list").AppendEmpty().SetDouble(nan)
		inner := attrs.PutEmptyMap("map")
		inner.PutDouble("y", nan)
		inner.PutEmptySlice("z").AppendEmpty().SetDouble(nan)
	}
	docs, rep := encodeMetrics(t, md)
	require.Len(t, docs, 1, "documents: %s", docsText(docs))
	assert.Equal(t, MetricsReport{}, rep)
	// pdata's AsString, the form of map-valued attributes, gives "" for a map holding NaN.
	assert.JSONEq(t, `{"x":null,"list":[null],"map":""}`, string(docs[0].fields(t)["attributes"]))
	ecsDocs, ecsRep := encodeECS(t, md)
	require.Len(t, ecsDocs, 1, "ecs documents: %s", docsText(ecsDocs))
	assert.Equal(t, MetricsReport{}, ecsRep)
}

// TestMetricsGroupByDimension sends, in each case, two gauges of other names whose points
// differ only in a value that Elasticsearch indexes as one dimension value, at the data point
// level and at the resource level: the otel mode writes one document, with the first point's
// attributes; the ecs mode, whose documents are not time series, two.
func TestMetricsGroupByDimension(t *testing.T) {
	tests := []struct {
		name        string
		first, then func(m pcommon.Map)
		wantAttrs   string
	}{
		{
			name:  "[v] and v",
			first: func(m pcommon.Map) { m.PutEmptySlice("x").AppendEmpty().SetStr("v") },
			then:  func(m pcommon.Map) { m.PutStr("x", "v") }, wantAttrs: `{"x":["v"]}`,
		},
		{
			name: "[] and missing", first: func(m pcommon.Map) { m.PutEmptySlice("x") },
			then: func(pcommon.Map) {}, wantAttrs: `{"x":[]}`,
		},
		{
			name: "NaN and missing", first: func(m pcommon.Map) { m.PutDouble("x", math.NaN()) },
			then: func(pcommon.Map) {}, wantAttrs: `{"x":null}`,
		},
		{
			name: "+Inf and NaN", first: func(m pcommon.Map) { m.PutDouble("x", math.Inf(1)) },
			then: func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }, wantAttrs: `{"x":null}`,
		},
		{
			name: "invalid UTF-8", first: func(m pcommon.Map) { m.PutStr("x", "a\xff") },
			then: func(m pcommon.Map) { m.PutStr("x", "a\xfe") }, wantAttrs: `{"x":"a\ufffd"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.first(gaugeInt(ms, "a", 1).Attributes())
			tt.then(gaugeInt(ms, "b", 2).Attributes())
			docs, rep := encodeMetrics(t, md)
			assert.Equal(t, MetricsReport{}, rep)
			require.Len(t, docs, 1, "documents: %s", docsText(docs))
			assert.Equal(t, "1", docs[0].metric(t, "a"))
			assert.Equal(t, "2", docs[0].metric(t, "b"))
			assert.JSONEq(t, tt.wantAttrs, string(docs[0].fields(t)["attributes"]))
			ecsDocs, _ := encodeECS(t, md)
			assert.Len(t, ecsDocs, 2, "ecs documents: %s", docsText(ecsDocs))

			md = pmetric.NewMetrics()
			for i, set := range []func(pcommon.Map){tt.first, tt.then} {
				rm := md.ResourceMetrics().AppendEmpty()
				set(rm.Resource().Attributes())
				sm := rm.ScopeMetrics().AppendEmpty()
				sm.Scope().SetName("test")
				gaugeInt(sm.Metrics(), []string{"a", "b"}[i], int64(i+1))
			}
			docs, rep = encodeMetrics(t, md)
			assert.Equal(t, MetricsReport{}, rep)
			require.Len(t, docs, 1, "resource attributes: documents: %s", docsText(docs))
		})
	}
}

// TestEqualValue checks the value equality of grouping against pcommon.Value.Equal, which it
// follows but for NaN and -0.
func TestEqualValue(t *testing.T) {
	vals := func(f func(v pcommon.Value)) pcommon.Value {
		v := pcommon.NewValueEmpty()
		f(v)
		return v
	}
	nanSlice := func(nan float64) pcommon.Value {
		return vals(func(v pcommon.Value) { v.SetEmptySlice().AppendEmpty().SetDouble(nan) })
	}
	nanMap := func(nan float64) pcommon.Value {
		return vals(func(v pcommon.Value) { v.SetEmptyMap().PutEmptyMap("a").PutDouble("b", nan) })
	}
	other := math.Float64frombits(0x7ff0000000000001)
	tests := []struct {
		name string
		a, b pcommon.Value
		want bool
	}{
		{name: "NaN", a: pcommon.NewValueDouble(math.NaN()), b: pcommon.NewValueDouble(other), want: true},
		{name: "NaN in a slice", a: nanSlice(math.NaN()), b: nanSlice(other), want: true},
		{name: "NaN in a map", a: nanMap(math.NaN()), b: nanMap(other), want: true},
		{name: "NaN and 1", a: pcommon.NewValueDouble(math.NaN()), b: pcommon.NewValueDouble(1), want: false},
		{name: "0 and -0", a: pcommon.NewValueDouble(0), b: pcommon.NewValueDouble(math.Copysign(0, -1)), want: false},
		{name: "slices of other lengths", a: nanSlice(1), b: vals(func(v pcommon.Value) { v.SetEmptySlice() }), want: false},
		{name: "double and int", a: pcommon.NewValueDouble(1), b: pcommon.NewValueInt(1), want: false},
		{name: "strings", a: pcommon.NewValueStr("a"), b: pcommon.NewValueStr("a"), want: true},
		{name: "maps of other keys", a: nanMap(1), b: vals(func(v pcommon.Value) { v.SetEmptyMap().PutEmptyMap("c").PutDouble("b", 1) }), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, equalValue(tt.a, tt.b))
			assert.Equal(t, tt.want, equalValue(tt.b, tt.a))
			if tt.want {
				assert.Equal(t, hashValue(tt.a), hashValue(tt.b), "equal values hash alike")
			}
		})
	}
}

// TestMetricsGroupingEnvelope checks the resource and scope parts of grouping: two
// ResourceMetrics (or ScopeMetrics) each holding one gauge with the same data point.
func TestMetricsGroupingEnvelope(t *testing.T) {
	type envelope struct {
		resAttrs, scopeAttrs []any
		resSchema            string
		resDropped           uint32
		scopeName            string
		scopeVersion         string
	}
	base := envelope{resAttrs: []any{"service.name", "checkout", "host.name", "h1"}, scopeName: "s", scopeVersion: "1.0"}
	tests := []struct {
		name     string
		b        func(e *envelope)
		wantDocs int
	}{
		{name: "equal resources", wantDocs: 1},
		{name: "resource attributes in another order", b: func(e *envelope) { e.resAttrs = []any{"host.name", "h1", "service.name", "checkout"} }, wantDocs: 1},
		{name: "different resource attributes", b: func(e *envelope) { e.resAttrs = []any{"service.name", "cart", "host.name", "h1"} }, wantDocs: 2},
		{name: "resource schema URL and dropped count do not count", b: func(e *envelope) { e.resSchema, e.resDropped = "https://schema", 3 }, wantDocs: 1},
		{name: "resource control attributes do not count", b: func(e *envelope) { e.resAttrs = append(slices.Clone(e.resAttrs), "elastic.mapping.mode", "otel") }, wantDocs: 1},
		{name: "resource routing attribute splits by index", b: func(e *envelope) { e.resAttrs = append(slices.Clone(e.resAttrs), "data_stream.dataset", "x") }, wantDocs: 2},
		{name: "different scope name", b: func(e *envelope) { e.scopeName = "other" }, wantDocs: 2},
		{name: "scope version does not count", b: func(e *envelope) { e.scopeVersion = "2.0" }, wantDocs: 1},
		{name: "different scope attributes", b: func(e *envelope) { e.scopeAttrs = []any{"lib", "x"} }, wantDocs: 2},
		{name: "scope routing attribute splits by index", b: func(e *envelope) { e.scopeAttrs = []any{"data_stream.namespace", "prod", "data_stream.dataset", "y"} }, wantDocs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := pmetric.NewMetrics()
			for i := range 2 {
				e := base
				if i == 1 && tt.b != nil {
					tt.b(&e)
				}
				rm := md.ResourceMetrics().AppendEmpty()
				rm.SetSchemaUrl(e.resSchema)
				putAttrs(rm.Resource().Attributes(), e.resAttrs...)
				rm.Resource().SetDroppedAttributesCount(e.resDropped)
				sm := rm.ScopeMetrics().AppendEmpty()
				sm.Scope().SetName(e.scopeName)
				sm.Scope().SetVersion(e.scopeVersion)
				putAttrs(sm.Scope().Attributes(), e.scopeAttrs...)
				gaugeInt(sm.Metrics(), []string{"a", "b"}[i], int64(i), "k", "v")
			}
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, tt.wantDocs, "documents: %s", docsText(docs))
			if tt.wantDocs == 1 {
				// The first resource's and scope's fields are written.
				f := docs[0].fields(t)
				assert.JSONEq(t, `{"attributes":{"service.name":"checkout","host.name":"h1"}}`, string(f["resource"]))
				assert.JSONEq(t, `{"name":"s","version":"1.0"}`, string(f["scope"]))
			}
		})
	}
}

func TestMetricsRepeatedNameGetsItsOwnDocument(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "cpu", 1, "k", "v")
	gaugeInt(ms, "mem", 2, "k", "v")
	gaugeInt(ms, "cpu", 3, "k", "v")
	gaugeInt(ms, "cpu", 4, "k", "v")
	docs, rep := encodeMetrics(t, md)
	assert.Equal(t, MetricsReport{}, rep)
	require.Len(t, docs, 3, "documents: %s", docsText(docs))
	assert.Equal(t, "1", docs[0].metric(t, "cpu"), "the first point stays in the group's document")
	assert.Equal(t, "2", docs[0].metric(t, "mem"))
	assert.Equal(t, "3", docs[1].metric(t, "cpu"))
	assert.Equal(t, "4", docs[2].metric(t, "cpu"))
	for i, d := range docs {
		assert.JSONEq(t, string(docs[0].fields(t)["attributes"]), string(d.fields(t)["attributes"]), "document %d", i)
		assert.Equal(t, ms0, string(d.fields(t)["@timestamp"]))
	}
	// checkMetricsDocument has checked each _metric_names_hash; spell out the two values.
	assert.Equal(t, `"`+strconv.FormatUint(xxhash.Sum64String("cpumem"), 16)+`"`, string(docs[0].fields(t)["_metric_names_hash"]))
	assert.Equal(t, `"`+strconv.FormatUint(xxhash.Sum64String("cpu"), 16)+`"`, string(docs[1].fields(t)["_metric_names_hash"]))
}

// Inverses of mix, to build attribute maps whose hashes collide.
const (
	mixK  = 0x9e3779b97f4a7c15
	mixC1 = 0xbf58476d1ce4e5b9
	mixC2 = 0x94d049bb133111eb
)

// unmix returns b such that mix(a, b) == out.
func unmix(a, out uint64) uint64 {
	z := unxorshift(out, 31)
	z *= modInverse(mixC2)
	z = unxorshift(z, 27)
	z *= modInverse(mixC1)
	z = unxorshift(z, 30)
	return z - a*mixK
}

func unxorshift(y uint64, s uint) uint64 {
	x := y
	for range 64/s + 1 {
		x = y ^ (x >> s)
	}
	return x
}

// modInverse returns the inverse of the odd c modulo 2^64 (Newton's iteration).
func modInverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}

// collidingInt returns v such that the map {key: v} hashes like {"k": 1}.
func collidingInt(t *testing.T, key string) int64 {
	t.Helper()
	target := mix(xxhash.Sum64String("k"), hashValue(pcommon.NewValueInt(1)))
	hv := unmix(xxhash.Sum64String(key), target)
	v := int64(unmix(1, hv))
	a, b := pcommon.NewMap(), pcommon.NewMap()
	a.PutInt("k", 1)
	b.PutInt(key, v)
	require.Equal(t, hashMap(a, true), hashMap(b, true), "the forged collision")
	require.False(t, equalAttrs(a, b, true))
	return v
}

func TestMetricsHashCollisionDoesNotMerge(t *testing.T) {
	v := collidingInt(t, "j")

	t.Run("data point attributes", func(t *testing.T) {
		md, ms := newMetrics()
		gaugeInt(ms, "m1", 1, "k", 1)
		gaugeInt(ms, "m2", 2, "j", v)
		gaugeInt(ms, "m3", 3, "k", 1) // the same group as m1
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
		assert.JSONEq(t, `{"k":1}`, string(docs[0].fields(t)["attributes"]))
		assert.Equal(t, "1", docs[0].metric(t, "m1"))
		assert.Equal(t, "3", docs[0].metric(t, "m3"))
		assert.JSONEq(t, `{"j":`+strconv.FormatInt(v, 10)+`}`, string(docs[1].fields(t)["attributes"]))
		assert.Equal(t, "2", docs[1].metric(t, "m2"))
	})
	t.Run("resource attributes", func(t *testing.T) {
		md := pmetric.NewMetrics()
		for i, kv := range [][]any{{"k", 1}, {"j", v}} {
			rm := md.ResourceMetrics().AppendEmpty()
			putAttrs(rm.Resource().Attributes(), kv...)
			gaugeInt(rm.ScopeMetrics().AppendEmpty().Metrics(), "m"+strconv.Itoa(i), 1)
		}
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
	})
	t.Run("scope attributes", func(t *testing.T) {
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		for i, kv := range [][]any{{"k", 1}, {"j", v}} {
			sm := rm.ScopeMetrics().AppendEmpty()
			sm.Scope().SetName("s")
			putAttrs(sm.Scope().Attributes(), kv...)
			gaugeInt(sm.Metrics(), "m"+strconv.Itoa(i), 1)
		}
		docs, _ := encodeMetrics(t, md)
		require.Len(t, docs, 2, "documents: %s", docsText(docs))
	})
}

// TestRefusedMetricPointGroupedApart checks that data points added as refused share a
// document only with each other, never with points added for the same index that would group
// with them, and that their document says so.
func TestRefusedMetricPointGroupedApart(t *testing.T) {
	for _, mode := range []Mode{ModeOTel, ModeECS} {
		t.Run(mode.String(), func(t *testing.T) {
			md, ms := newMetrics()
			gaugeInt(ms, "kept", 1)
			gaugeInt(ms, "refused", 2)
			gaugeInt(ms, "refused_too", 3)
			var e Encoder
			e.SetMode(mode)
			e.BeginMetrics()
			rm := md.ResourceMetrics().At(0)
			e.AddMetricsResource(rm)
			e.AddMetricsScope(rm.ScopeMetrics().At(0))
			for k := range ms.Len() {
				n, rj := e.AddMetric(ms.At(k))
				require.Empty(t, rj.Reason)
				for pi := range n {
					e.MetricPoint(pi)
					if ms.At(k).Name() == "kept" {
						e.AddMetricPoint(e.MetricTarget("metrics-x", DataStream{}))
					} else {
						e.AddMetricPoint(e.RefusedMetricTarget("metrics-x"))
					}
				}
			}
			e.GroupMetrics()
			var buf []byte
			docs := map[bool]string{} // by MetricsDocument.Refused
			for {
				start := len(buf)
				var d *MetricsDocument
				var more bool
				buf, d, more = e.AppendMetricsDocument(buf)
				if !more {
					break
				}
				require.True(t, d.Written)
				assert.Equal(t, "metrics-x", d.Index)
				require.NotContains(t, docs, d.Refused, "one document each")
				docs[d.Refused] = string(buf[start:])
			}
			require.Len(t, docs, 2)
			assert.Contains(t, docs[false], `"kept"`)
			assert.NotContains(t, docs[false], "refused")
			assert.Contains(t, docs[true], `"refused"`)
			assert.Contains(t, docs[true], `"refused_too"`)
			assert.NotContains(t, docs[true], "kept")
		})
	}
}

// TestSamePointGroup checks the equality behind the hash: points with equal hashes that differ
// in any grouped part are apart.
func TestSamePointGroup(t *testing.T) {
	_, ms := newMetrics()
	gaugeInt(ms, "a", 1, "k", "v")
	gaugeInt(ms, "b", 1, "k", "v")
	gaugeInt(ms, "c", 1, "k", "w")
	ms.AppendEmpty().SetName("unit")
	ms.At(3).SetUnit("By")
	ms.At(3).SetEmptyGauge().DataPoints().AppendEmpty().Attributes().PutStr("k", "v")
	res1, res2 := pcommon.NewMap(), pcommon.NewMap()
	res1.PutStr("r", "1")
	res2.PutStr("r", "2")
	scope := pcommon.NewMap()

	var e Encoder
	e.metrics.resources = []envelopeRef{{attrs: res1}, {attrs: res1}, {attrs: res2}}
	e.metrics.scopes = []envelopeRef{{attrs: scope, name: "s"}, {attrs: scope, name: "t"}}
	for i := range ms.Len() {
		m := ms.At(i)
		e.metrics.metrics = append(e.metrics.metrics, metricInfo{metric: m, name: m.Name(), unit: m.Unit(), typ: m.Type()})
	}
	point := func(metric int, change func(p *metricPoint)) *metricPoint {
		attrs := ms.At(metric).Gauge().DataPoints().At(0).Attributes()
		_, shape := hashAttrs(attrs, true)
		p := &metricPoint{metric: int32(metric), attrs: attrs, shape: shape, hash: 42, ts: 1, start: 1}
		if change != nil {
			change(p)
		}
		return p
	}
	tests := []struct {
		name string
		b    *metricPoint
		want bool
	}{
		{name: "same group", b: point(1, nil), want: true},
		{name: "another resource with equal attributes", b: point(1, func(p *metricPoint) { p.res = 1 }), want: true},
		{name: "another resource with other attributes", b: point(1, func(p *metricPoint) { p.res = 2 }), want: false},
		{name: "another scope name", b: point(1, func(p *metricPoint) { p.scope = 1 }), want: false},
		{name: "another target", b: point(1, func(p *metricPoint) { p.target = 1 }), want: false},
		{name: "another timestamp", b: point(1, func(p *metricPoint) { p.ts = 2 }), want: false},
		{name: "another start", b: point(1, func(p *metricPoint) { p.start = 2 }), want: false},
		{name: "other attributes", b: point(2, nil), want: false},
		{name: "another unit", b: point(3, nil), want: false},
	}
	a := point(0, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.samePointGroup(a, tt.b); got != tt.want {
				t.Errorf("samePointGroup = %v, want %v", got, tt.want)
			}
			if got := e.samePointGroup(tt.b, a); got != tt.want {
				t.Errorf("samePointGroup (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGroupingScalesLinearly encodes one data point with many attributes, and one group with
// many metric names, at n and at 8n, and compares the times: linear work takes about 8 times as
// long at 8n, work that grows with the square of the count (a pcommon.Map.Get per key while
// hashing and comparing attributes, a linear scan of the names written for every name) 64
// times, and a single large payload then holds an exporter goroutine for seconds. Each size
// is timed five times, each after a garbage collection, and the fastest run counts, so that a
// busy machine (or the race detector) slows both sizes alike; the limit, 40 times, leaves room
// for cache effects (the larger input no longer fits the caches: up to 2 times per element
// here) and noise. A ratio over the limit is measured again, up to three times in all: quadratic
// work is over it every time, a burst of load on a shared machine is not.
func TestGroupingScalesLinearly(t *testing.T) {
	tests := []struct {
		name string
		n    int
		md   func(n int) pmetric.Metrics
	}{
		{
			name: "attributes on one point",
			n:    2_000,
			md: func(n int) pmetric.Metrics {
				md, ms := newMetrics()
				raw := make(map[string]any, n)
				for i := range n {
					raw["attr."+strconv.Itoa(i)] = i
				}
				require.NoError(t, gaugeInt(ms, "m", 1).Attributes().FromRaw(raw))
				return md
			},
		},
		{
			name: "metric names in one group",
			n:    4_000,
			md: func(n int) pmetric.Metrics {
				md, ms := newMetrics()
				for i := range n {
					gaugeInt(ms, "metric."+strconv.Itoa(i), 1)
				}
				return md
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fastest := func(n int) time.Duration {
				md := tt.md(n)
				var e Encoder
				var buf []byte
				best := time.Duration(math.MaxInt64)
				for range 5 {
					var sink countingSink
					buf = buf[:0]
					runtime.GC()
					start := time.Now()
					encodeMetricsPush(&e, &buf, md, fixedRoute, &sink)
					best = min(best, time.Since(start))
					require.Equal(t, 1, sink.docs)
				}
				return best
			}
			var ratios []string
			for range 3 {
				small, large := fastest(tt.n), fastest(8*tt.n)
				ratio := float64(large) / float64(small)
				if ratio <= 40 {
					return
				}
				ratios = append(ratios, fmt.Sprintf("%.0f times (%v vs %v)", ratio, large, small))
			}
			t.Errorf("8 times as many %s took %v as long; linear work takes about 8 times", tt.name, ratios)
		})
	}
}

// TestSortGroups: sortGroups orders groups as a comparison sort by hash, then by first
// appearance, does: for few and many groups, with equal hashes, and with many hashes that share
// their top bits and so one bucket.
func TestSortGroups(t *testing.T) {
	rnd := func(seed uint64) func() uint64 {
		return func() uint64 { seed = mix(seed, 1); return seed }
	}
	cases := map[string]func(n int, next func() uint64) uint64{
		"uniform":        func(_ int, next func() uint64) uint64 { return next() },
		"few hashes":     func(_ int, next func() uint64) uint64 { return next() % 5 },
		"shared top":     func(_ int, next func() uint64) uint64 { return next() >> 20 },
		"one bucket mix": func(i int, next func() uint64) uint64 { return next()>>12 | uint64(i%2)<<63 },
	}
	for name, hash := range cases {
		for _, n := range []int{0, 1, 2, 16, 17, 100, 1000, 4097} {
			t.Run(name+"/"+strconv.Itoa(n), func(t *testing.T) {
				next := rnd(uint64(n))
				var s metricsState
				for i := range n {
					s.groups = append(s.groups, pointGroup{hash: hash(i, next), first: int32(i), count: 1, id: int32(i)})
				}
				want := slices.Clone(s.groups)
				slices.SortFunc(want, func(a, b pointGroup) int {
					if a.hash != b.hash {
						return cmp.Compare(a.hash, b.hash)
					}
					return cmp.Compare(a.first, b.first)
				})
				s.sortGroups()
				assert.Equal(t, want, s.groups)
			})
		}
	}
}
