// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// fuzzMetrics returns the seeds of FuzzEncodeMetrics: every metric type, every hint, repeated
// names, non-finite values, map-valued attributes and out-of-range input.
func fuzzMetrics() []pmetric.Metrics {
	md, ms := newMetrics()
	res := md.ResourceMetrics().At(0).Resource().Attributes()
	res.PutEmptyMap("k8s").PutStr("pod", "p-1")
	res.PutStr("data_stream.namespace", "prod")
	gaugeInt(ms, "g.int", 42, "state", "runnable")
	gaugeDouble(ms, "g.double", 0.25, "state", "runnable")
	gaugeDouble(ms, "g.nan", math.NaN(), "state", "runnable")
	gaugeInt(ms, "g.int", 43, "state", "runnable")
	gauge(ms, "g.novalue", "state", "runnable")
	sum(ms, "s.counter", true, pmetric.AggregationTemporalityCumulative, "state", "runnable").SetIntValue(1)
	sum(ms, "s.delta", true, pmetric.AggregationTemporalityDelta).SetDoubleValue(1.5)
	sum(ms, "s.updown", false, pmetric.AggregationTemporalityCumulative).SetDoubleValue(-1)
	histogram(ms, "h", 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1})
	histogram(ms, "h", 10, 250, []float64{10, 20, 50, 100}, []uint64{1, 0, 6, 2, 1}, "elasticsearch.mapping.hints", hints("histogram:raw", "_doc_count"))
	histogram(ms, "h", 10, math.NaN(), []float64{10}, []uint64{4, 6}, "elasticsearch.mapping.hints", hints("aggregate_metric_double"))
	histogram(ms, "h.bad", 3, 1, []float64{1, 2}, []uint64{3})
	histogram(ms, "h.nobounds", 4, 10, nil, nil)
	expHistogram(ms, "e", 0, 1, expBuckets{offset: 1, counts: []uint64{1, 2}}, expBuckets{counts: []uint64{2, 1}})
	expHistogram(ms, "e", -10, 1, expBuckets{offset: -3, counts: []uint64{1, 2}}, expBuckets{offset: 5, counts: []uint64{2, 1}}, "k", "v")
	expHistogram(ms, "e.bad", 21, 1, expBuckets{}, expBuckets{})
	summary(ms, "sm", 5, 12.5, [2]float64{0.5, 2}, [2]float64{0.5, 3}, [2]float64{0.99, math.NaN()})
	gaugeInt(ms, "skipped", 1, "elasticsearch.mapping.hints", hints("_noindex"))
	ms.AppendEmpty().SetName("empty")
	labels := gaugeInt(ms, "g.map", 1).Attributes().PutEmptyMap("labels")
	labels.PutStr("b", "x")
	labels.PutEmptyBytes("a").FromRaw([]byte{0xff})

	other, oms := newMetrics()
	gaugeInt(oms, "", 1)
	gaugeInt(oms, "routed", 1, "data_stream.dataset", "other", "elasticsearch.index", "custom")
	gaugeDouble(oms, "zero.ts", math.Inf(1)).SetTimestamp(0)

	return []pmetric.Metrics{md, other, benchMetrics(20), everyTypeMetrics(2), valueRuleMetrics(2), pmetric.NewMetrics()}
}

// FuzzEncodeMetrics decodes OTLP protobuf and, in the otel and ecs modes, checks that every
// document written is valid JSON, an object with no name repeated at any depth, with unique
// metric names (otel) or dynamic template paths (ecs), and values of the shapes
// checkMetricShapes checks.
func FuzzEncodeMetrics(f *testing.F) {
	var m pmetric.ProtoMarshaler
	for _, md := range fuzzMetrics() {
		b, err := m.MarshalMetrics(md)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var otel, ecs Encoder
	ecs.SetMode(ModeECS)
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(data)
		if err != nil {
			t.Skip()
		}
		for _, e := range []*Encoder{&otel, &ecs} {
			var buf []byte
			sink := &fuzzSink{buf: &buf}
			encodeMetricsPush(e, &buf, md, fixedRoute, sink)
			if !bytes.Equal(bytes.Join(sink.docs, nil), buf) {
				t.Fatalf("%s: the buffer holds more than the documents: %q", e.mode, buf)
			}
			for i, doc := range sink.docs {
				checkDocument(t, doc)
				checkMetricShapes(t, e.mode, doc, sink.templates[i])
				var names []string
				if e.mode == ModeECS {
					for _, tpl := range sink.templates[i] {
						names = append(names, tpl.Path)
					}
				} else {
					var top map[string]json.RawMessage
					if err := json.Unmarshal(doc, &top); err != nil {
						t.Fatalf("document is not a JSON object: %v: %q", err, doc)
					}
					var keysErr error
					names, keysErr = objectKeys(top["metrics"])
					if keysErr != nil {
						t.Fatalf("metrics is not an object: %v: %q", keysErr, doc)
					}
				}
				if len(names) == 0 {
					t.Fatalf("%s: a document without metrics: %q", e.mode, doc)
				}
				seen := map[string]bool{}
				for _, n := range names {
					if seen[n] {
						t.Fatalf("%s: metric %q repeats: %q", e.mode, n, doc)
					}
					seen[n] = true
				}
			}
		}
	})
}

// fuzzSink keeps each document as written.
type fuzzSink struct {
	buf       *[]byte
	docs      [][]byte
	templates [][]DynamicTemplate
}

func (s *fuzzSink) AddMetricsDocument(start int, _ string, _ DataStream, templates []DynamicTemplate) {
	s.docs = append(s.docs, bytes.Clone((*s.buf)[start:]))
	s.templates = append(s.templates, slices.Clone(templates))
}
