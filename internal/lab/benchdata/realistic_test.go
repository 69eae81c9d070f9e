// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata

import (
	"bytes"
	"compress/gzip"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// bulkBody is the NDJSON of records as a bulk request holds them in the otel mode: an action
// line and a document per document, and the number of documents.
func bulkBody(t *testing.T, data any) ([]byte, int) {
	t.Helper()
	var e serializer.Encoder
	var buf []byte
	docs := 0
	appendDoc := func(index string, doc []byte) {
		buf = append(buf, `{"create":{"_index":"`+index+`"}}`+"\n"...)
		buf = append(buf, doc...)
		buf = append(buf, '\n')
		docs++
	}
	switch d := data.(type) {
	case plog.Logs:
		ds := serializer.DataStream{Type: "logs", Dataset: "generic", Namespace: "default"}
		for _, rl := range d.ResourceLogs().All() {
			e.SetResource(rl.Resource(), rl.SchemaUrl())
			for _, sl := range rl.ScopeLogs().All() {
				e.SetScope(sl.Scope(), sl.SchemaUrl())
				for _, r := range sl.LogRecords().All() {
					appendDoc("logs-generic.otel-default", e.AppendLog(nil, r, ds))
				}
			}
		}
	case ptrace.Traces:
		ds := serializer.DataStream{Type: "traces", Dataset: "generic", Namespace: "default"}
		for _, rs := range d.ResourceSpans().All() {
			e.SetResource(rs.Resource(), rs.SchemaUrl())
			for _, ss := range rs.ScopeSpans().All() {
				e.SetScope(ss.Scope(), ss.SchemaUrl())
				for _, s := range ss.Spans().All() {
					appendDoc("traces-generic.otel-default", e.AppendSpan(nil, s, ds))
				}
			}
		}
	case pmetric.Metrics:
		var starts []int
		out, _ := AppendMetrics(&e, nil, d, "metrics-generic.otel-default", serializer.DataStream{Type: "metrics", Dataset: "generic", Namespace: "default"},
			func(start int, _ []serializer.DynamicTemplate) { starts = append(starts, start) })
		starts = append(starts, len(out))
		for i := range len(starts) - 1 {
			appendDoc("metrics-generic.otel-default", out[starts[i]:starts[i+1]])
		}
	}
	return buf, docs
}

func gzipLen(t *testing.T, b []byte, level int) int {
	t.Helper()
	var out bytes.Buffer
	zw, err := kgzip.NewWriterLevel(&out, level)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Len()
}

func protoLen(t *testing.T, data any) []byte {
	t.Helper()
	var b []byte
	var err error
	switch d := data.(type) {
	case plog.Logs:
		b, err = (&plog.ProtoMarshaler{}).MarshalLogs(d)
	case ptrace.Traces:
		b, err = (&ptrace.ProtoMarshaler{}).MarshalTraces(d)
	case pmetric.Metrics:
		b, err = (&pmetric.ProtoMarshaler{}).MarshalMetrics(d)
	}
	require.NoError(t, err)
	return b
}

// TestRealisticCompresses states the compression of the realistic records (bulk JSON with gzip
// level 1, and pdata protobuf with gzip level 6, otlphttp's default) and keeps it in the range
// of real telemetry, so that a change of the generator cannot make them as compressible as the
// uniform records again; the uniform records are logged beside them.
func TestRealisticCompresses(t *testing.T) {
	const n = 1000
	g := NewRealistic(RealisticSeed)
	for _, c := range []struct {
		name     string
		data     any
		uniform  any
		min, max float64 // gzip 1 of the bulk JSON
	}{
		{"logs", g.Logs(n), Logs(n), 5, 12},
		{"spans", g.Traces(n), Traces(n), 5, 16},
		{"metrics", g.Metrics(n), Metrics(n), 5, 25},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, docs := bulkBody(t, c.data)
			require.Equal(t, n, docs, "one document per record")
			pb := protoLen(t, c.data)
			ratio := float64(len(body)) / float64(gzipLen(t, body, 1))
			t.Logf("%s: %d B of bulk JSON per document, gzip 1 %.1fx (%.0f B/doc); pdata protobuf %d B per record, gzip 6 %.1fx, gzip 1 %.1fx",
				c.name, len(body)/n, ratio, float64(gzipLen(t, body, 1))/n, len(pb)/n,
				float64(len(pb))/float64(gzipLen(t, pb, gzip.DefaultCompression)), float64(len(pb))/float64(gzipLen(t, pb, 1)))
			ub, _ := bulkBody(t, c.uniform)
			t.Logf("%s, uniform records: %d B per document, gzip 1 %.1fx", c.name, len(ub)/n, float64(len(ub))/float64(gzipLen(t, ub, 1)))
			assert.GreaterOrEqual(t, ratio, c.min, "realistic records compress about as real telemetry does")
			assert.LessOrEqual(t, ratio, c.max, "realistic records compress about as real telemetry does")
		})
	}
}

// TestRealisticIsReproducible: the same seed gives the same records, and another seed others.
func TestRealisticIsReproducible(t *testing.T) {
	a := protoLen(t, NewRealistic(RealisticSeed).Logs(200))
	b := protoLen(t, NewRealistic(RealisticSeed).Logs(200))
	c := protoLen(t, NewRealistic(RealisticSeed+1).Logs(200))
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
}

// TestRealisticShapes checks what the generator promises: several resources per request, traces
// with parent links, and a few hundred series per resource.
func TestRealisticShapes(t *testing.T) {
	g := NewRealistic(RealisticSeed)
	ld := g.Logs(1000)
	assert.Equal(t, 10, ld.ResourceLogs().Len())
	assert.Equal(t, 2, g.Logs(50).ResourceLogs().Len())
	td := g.Traces(1000)
	assert.Equal(t, 1000, td.SpanCount())
	children := 0
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if !s.ParentSpanID().IsEmpty() {
					children++
				}
			}
		}
	}
	assert.Greater(t, children, 500, "most spans have a parent")
	md := g.Metrics(2500)
	assert.Equal(t, 2500, md.DataPointCount())
	perResource := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	series := 0
	for _, m := range perResource.All() {
		switch m.Type() {
		case pmetric.MetricTypeGauge:
			series += m.Gauge().DataPoints().Len()
		case pmetric.MetricTypeSum:
			series += m.Sum().DataPoints().Len()
		case pmetric.MetricTypeHistogram:
			series += m.Histogram().DataPoints().Len()
		}
	}
	assert.Greater(t, series, 200)
	assert.Less(t, series, 400)
	assert.Greater(t, perResource.Len(), 10)
}
