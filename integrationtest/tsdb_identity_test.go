// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// In a time series data stream the _id of a document comes from its dimensions
// (_metric_names_hash, unit, attributes, scope.attributes, resource.attributes) and its
// @timestamp in milliseconds: a second document with the same ones is refused with 409. The
// test of this file sends, for each way the exporter's grouping could write two such documents,
// two data points through the exporter, and reads the outcome in Elasticsearch and in the
// exporter's telemetry and log:
//
//   - with the same metric name, the two points are one series at one time: the first is
//     indexed, the later one counted duplicate (error.type version_conflict_engine_exception) and
//     logged with the metric's name;
//   - with two metric names, nothing is lost: both values are indexed, in one document where the
//     grouping merges the points (values Elasticsearch indexes as one dimension value, a scope
//     version, the same millisecond), in two otherwise (their _metric_names_hash differs).
//
// docs/documents.md, "Time series identity", has the table of outcomes.

// identityPoint is what one of the two data points of a case changes from the default: a gauge
// at ts, scope "integration", start one minute before ts, attributes run and case.
type identityPoint struct {
	resource func(pcommon.Map)
	scope    func(pcommon.InstrumentationScope)
	attrs    func(pcommon.Map)
	start    time.Duration // added to the default start
	ts       time.Duration // added to ts
}

type identityCase struct {
	name          string
	first, second identityPoint
	// merged: with two metric names, the points share one document.
	merged bool
	// textual: the two documents collide only where the routing path is over the dimension
	// text (the stand-in, 8.x); where the data streams module sets index.dimensions (9.x), the
	// typed time series id tells them apart, and both are indexed.
	textual bool
}

func identityCases() []identityCase {
	str := func(v string) func(pcommon.Map) { return func(m pcommon.Map) { m.PutStr("x", v) } }
	return []identityCase{
		{name: "one group", merged: true},
		{
			name:  "start time",
			first: identityPoint{}, second: identityPoint{start: time.Second},
		},
		{
			name:   "scope name",
			first:  identityPoint{scope: func(s pcommon.InstrumentationScope) { s.SetName("s1") }},
			second: identityPoint{scope: func(s pcommon.InstrumentationScope) { s.SetName("s2") }},
		},
		{
			name:   "scope version",
			first:  identityPoint{scope: func(s pcommon.InstrumentationScope) { s.SetVersion("1.0") }},
			second: identityPoint{scope: func(s pcommon.InstrumentationScope) { s.SetVersion("2.0") }},
			merged: true,
		},
		{
			name:  "half a millisecond apart",
			first: identityPoint{ts: 100 * time.Microsecond}, second: identityPoint{ts: 600 * time.Microsecond},
			merged: true,
		},
		{
			name:   "[v] and v",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutEmptySlice("x").AppendEmpty().SetStr("v") }},
			second: identityPoint{attrs: str("v")},
			merged: true,
		},
		{
			name:   "[] and missing",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutEmptySlice("x") }},
			merged: true,
		},
		{
			name:   "NaN and missing",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }},
			merged: true,
		},
		{
			name:   "+Inf and NaN",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutDouble("x", math.Inf(1)) }},
			second: identityPoint{attrs: func(m pcommon.Map) { m.PutDouble("x", math.NaN()) }},
			merged: true,
		},
		{
			name:   "invalid UTF-8",
			first:  identityPoint{attrs: str("a\xff")},
			second: identityPoint{attrs: str("a\xfe")},
			merged: true,
		},
		{
			name:   "resource [v] and v",
			first:  identityPoint{resource: func(m pcommon.Map) { m.PutEmptySlice("r").AppendEmpty().SetInt(7) }},
			second: identityPoint{resource: func(m pcommon.Map) { m.PutInt("r", 7) }},
			merged: true,
		},
		{
			name:    "1 and \"1\"",
			first:   identityPoint{attrs: func(m pcommon.Map) { m.PutInt("x", 1) }},
			second:  identityPoint{attrs: str("1")},
			textual: true,
		},
		{
			name:    "true and \"true\"",
			first:   identityPoint{attrs: func(m pcommon.Map) { m.PutBool("x", true) }},
			second:  identityPoint{attrs: str("true")},
			textual: true,
		},
		{
			name:   "map and its JSON string",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutEmptyMap("x").PutStr("k", "v") }},
			second: identityPoint{attrs: str(`{"k":"v"}`)},
		},
		{
			name:   "bytes and their hex string",
			first:  identityPoint{attrs: func(m pcommon.Map) { m.PutEmptyBytes("x").FromRaw([]byte{0xca, 0xfe}) }},
			second: identityPoint{attrs: str("cafe")},
		},
		{
			name:   "scope attribute [v] and v",
			first:  identityPoint{scope: func(s pcommon.InstrumentationScope) { s.Attributes().PutEmptySlice("sa").AppendEmpty().SetBool(true) }},
			second: identityPoint{scope: func(s pcommon.InstrumentationScope) { s.Attributes().PutBool("sa", true) }},
			merged: true,
		},
	}
}

// identityMetrics returns a push of two gauges, each point in a ResourceMetrics of its own,
// changed as the case says; names are the two metric names, values 1.5 and 2.5.
func (s *suite) identityMetrics(ts pcommon.Timestamp, label string, points [2]identityPoint, names [2]string) pmetric.Metrics {
	md := pmetric.NewMetrics()
	for i, p := range points {
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutStr("data_stream.dataset", s.id)
		rm.Resource().Attributes().PutStr("service.name", "identity")
		if p.resource != nil {
			p.resource(rm.Resource().Attributes())
		}
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("integration")
		if p.scope != nil {
			p.scope(sm.Scope())
		}
		m := sm.Metrics().AppendEmpty()
		m.SetName(names[i])
		dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetStartTimestamp(ts - pcommon.Timestamp(time.Minute) + pcommon.Timestamp(p.start))
		dp.SetTimestamp(ts + pcommon.Timestamp(p.ts))
		dp.SetDoubleValue([]float64{1.5, 2.5}[i])
		dp.Attributes().PutStr("run", s.id)
		dp.Attributes().PutStr("case", label)
		if p.attrs != nil {
			p.attrs(dp.Attributes())
		}
	}
	return md
}

// identityOutcome is what one push of a case came to.
type identityOutcome struct {
	indexed, duplicate int64
	failures           string // the "Documents not indexed" line of the push, or ""
	docs               []map[string]any
}

// identityPush sends md, and returns its outcome, the documents of label in index.
func (s *suite) identityPush(t *testing.T, push func(pmetric.Metrics) error, md pmetric.Metrics, index, label string) identityOutcome {
	t.Helper()
	indexed, duplicate := s.docs(t, "indexed"), s.docsWithError(t, "duplicate", "version_conflict_engine_exception")
	lost := s.docs(t, "rejected") + s.docs(t, "dropped") + s.docs(t, "skipped")
	lines := s.logs.FilterMessage("Documents not indexed").Len()
	require.NoError(t, push(md))
	s.es.Refresh(t, index)
	out := identityOutcome{
		indexed:   s.docs(t, "indexed") - indexed,
		duplicate: s.docsWithError(t, "duplicate", "version_conflict_engine_exception") - duplicate,
	}
	assert.Equal(t, s.docs(t, "duplicate"), s.docsWithError(t, "duplicate", "version_conflict_engine_exception"),
		"every duplicate has the error type version_conflict_engine_exception")
	assert.Equal(t, lost, s.docs(t, "rejected")+s.docs(t, "dropped")+s.docs(t, "skipped"), "nothing rejected, dropped or skipped")
	if warns := s.logs.FilterMessage("Documents not indexed").All(); len(warns) > lines {
		out.failures = fmt.Sprint(warns[len(warns)-1].ContextMap()["failures"])
	}
	q := map[string]any{"size": 10, "query": map[string]any{"term": map[string]any{"attributes.case": label}}}
	out.docs = s.es.SearchNumbers(t, index, q)
	return out
}

// textualIdentity reports whether the time series ids of index's backing indices come from an
// explicit routing path over the dimension text (the stand-in), rather than from
// index.dimensions, which Elasticsearch 9.x's data streams module sets.
func textualIdentity(t *testing.T, s *suite, index string) bool {
	t.Helper()
	resp := s.es.MustDo(t, http.MethodGet, "/"+url.PathEscape(index)+"/_settings?filter_path=**.routing_path", nil)
	return strings.Contains(string(resp), "routing_path")
}

// TestTSDBIdentity sends each identity case twice, with one metric name and with two, to one
// time series data stream, and checks what was indexed, counted and logged. Each case and
// variant is a series of its own (the attribute case), so that the cases do not collide with
// one another.
func TestTSDBIdentity(t *testing.T) {
	s := newSuite(t)
	cfg := s.config()
	cfg.Telemetry.LogFailedDocsInputRateLimit = 0 // a line per push
	exp := s.metricsExporter(t, cfg)
	s.waitConnected(t)
	push := func(md pmetric.Metrics) error { return exp.ConsumeMetrics(context.Background(), md) }
	index := "metrics-" + s.id + ".otel-default"
	ts := tsdbNow()
	// The data stream exists before the cases run, to read its routing.
	require.NoError(t, push(s.identityMetrics(ts, "setup", [2]identityPoint{}, [2]string{"setup.a", "setup.b"})))
	textual := textualIdentity(t, s, index)
	t.Logf("time series ids from the dimension text: %v", textual)

	for _, c := range identityCases() {
		t.Run(c.name, func(t *testing.T) {
			points := [2]identityPoint{c.first, c.second}
			t.Run("one name", func(t *testing.T) {
				label := c.name + "/one name"
				out := s.identityPush(t, push, s.identityMetrics(ts, label, points, [2]string{"g", "g"}), index, label)
				if c.textual && !textual {
					assert.Equal(t, int64(2), out.indexed, "two series where the ids are typed")
					assert.Len(t, out.docs, 2)
					return
				}
				assert.Equal(t, int64(1), out.indexed, "the first is indexed")
				assert.Equal(t, int64(1), out.duplicate, "the later one is a duplicate")
				require.Len(t, out.docs, 1)
				// The first written is kept: within a group the first point; groups are written
				// in the order of their hashes.
				kept := map[string]any{"g": json.Number("1.5")}
				if !c.merged {
					assert.Contains(t, []any{kept, map[string]any{"g": json.Number("2.5")}}, out.docs[0]["metrics"])
				} else {
					assert.Equal(t, kept, out.docs[0]["metrics"], "the first is kept")
				}
				assert.Contains(t, out.failures, "1 duplicate (409 version_conflict_engine_exception: ")
				assert.Contains(t, out.failures, "first document's metrics: metrics.g", "logged with the metric name")
			})
			t.Run("two names", func(t *testing.T) {
				label := c.name + "/two names"
				out := s.identityPush(t, push, s.identityMetrics(ts, label, points, [2]string{"a", "b"}), index, label)
				assert.Zero(t, out.duplicate, "nothing collides: %s", out.failures)
				assert.Empty(t, out.failures)
				want := 2
				if c.merged {
					want = 1
				}
				assert.Equal(t, int64(want), out.indexed)
				require.Len(t, out.docs, want)
				if want == 2 {
					assert.NotEqual(t, out.docs[0]["_metric_names_hash"], out.docs[1]["_metric_names_hash"])
				}
				for name, v := range map[string]float64{"a": 1.5, "b": 2.5} {
					q := map[string]any{"query": map[string]any{"bool": map[string]any{"filter": []any{
						map[string]any{"term": map[string]any{"attributes.case": label}},
						map[string]any{"term": map[string]any{"metrics." + name: v}},
					}}}}
					assert.Equal(t, 1, s.es.CountQuery(t, index, q), "metrics.%s = %v is indexed", name, v)
				}
			})
		})
	}

	// The repeated-name rule with another name in the group: the later point of "a" goes to a
	// document of its own whose names, a subset of the first document's, hash apart.
	t.Run("repeated name beside another", func(t *testing.T) {
		label := "repeated beside another"
		md := s.identityMetrics(ts, label, [2]identityPoint{}, [2]string{"a", "b"})
		extra := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
		extra.SetName("a")
		dp := extra.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetStartTimestamp(ts - pcommon.Timestamp(time.Minute))
		dp.SetTimestamp(ts)
		dp.SetDoubleValue(3.5)
		dp.Attributes().PutStr("run", s.id)
		dp.Attributes().PutStr("case", label)
		out := s.identityPush(t, push, md, index, label)
		assert.Equal(t, int64(2), out.indexed)
		assert.Zero(t, out.duplicate)
		require.Len(t, out.docs, 2)
		for _, v := range []float64{1.5, 3.5} {
			q := map[string]any{"query": map[string]any{"bool": map[string]any{"filter": []any{
				map[string]any{"term": map[string]any{"attributes.case": label}},
				map[string]any{"term": map[string]any{"metrics.a": v}},
			}}}}
			assert.Equal(t, 1, s.es.CountQuery(t, index, q), "metrics.a = %v is indexed", v)
		}
	})

	// Two pushes (a request the sending queue split, or a replay): the grouping cannot merge
	// across them. The same name is a duplicate; two names hash apart.
	t.Run("two pushes", func(t *testing.T) {
		for _, names := range [][2]string{{"g", "g"}, {"a", "b"}} {
			label := "two pushes " + names[0] + names[1]
			md := s.identityMetrics(ts, label, [2]identityPoint{}, names)
			second := pmetric.NewMetrics()
			md.ResourceMetrics().At(1).MoveTo(second.ResourceMetrics().AppendEmpty())
			md.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
			first := s.identityPush(t, push, md, index, label)
			out := s.identityPush(t, push, second, index, label)
			assert.Equal(t, int64(1), first.indexed)
			if names[0] == names[1] {
				assert.Equal(t, int64(1), out.duplicate, "the same name again")
				assert.Contains(t, out.failures, "first document's metrics: metrics.g")
				assert.Len(t, out.docs, 1)
			} else {
				assert.Equal(t, int64(1), out.indexed, "another name")
				assert.Len(t, out.docs, 2)
			}
		}
	})

	t.Run("no _ignored", func(t *testing.T) {
		s.es.Refresh(t, index)
		assert.Equal(t, 0, s.es.CountQuery(t, index, map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}}))
	})

	// The names hash is XXH64 over the sorted names concatenated without a separator (the
	// contract, shared with contrib, so that series continue): {"ab", "c"} and {"a", "bc"} hash
	// alike. Two documents of one series and time that hold these name sets, split by what is
	// not a dimension (here the start time), collide although their names differ: the later
	// one is counted duplicate and logged with its metric names. No grouping rule avoids it
	// without changing the hash.
	t.Run("names hash of other names alike", func(t *testing.T) {
		label := "names hash alike"
		md := s.identityMetrics(ts, label, [2]identityPoint{{}, {start: time.Second}}, [2]string{"ab", "a"})
		for i, name := range []string{"c", "bc"} {
			sm := md.ResourceMetrics().At(i).ScopeMetrics().At(0)
			src := sm.Metrics().At(0)
			m := sm.Metrics().AppendEmpty()
			m.SetName(name)
			dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
			src.Gauge().DataPoints().At(0).CopyTo(dp)
		}
		out := s.identityPush(t, push, md, index, label)
		assert.Equal(t, int64(1), out.indexed)
		assert.Equal(t, int64(1), out.duplicate)
		require.Len(t, out.docs, 1)
		assert.Contains(t, out.failures, "1 duplicate (409 version_conflict_engine_exception: ")
		lost := "first document's metrics: metrics.a, metrics.bc"
		if strings.Contains(fmt.Sprint(out.docs[0]["metrics"]), "bc") {
			lost = "first document's metrics: metrics.ab, metrics.c"
		}
		assert.Contains(t, out.failures, lost, "the lost metrics are named")
	})
}
