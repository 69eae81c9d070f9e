// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func TestMetricNamesHash(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  uint64
	}{
		// Published XXH64 (seed 0) vectors.
		{name: "no names", names: nil, want: 0xef46db3751d8e999},
		{name: "a", names: []string{"a"}, want: 0xd24ec4f1a98c6e5b},
		{name: "abc", names: []string{"abc"}, want: 0x44bc2cf5ad770999},
		// Sorted, then concatenated with no separator: all of these hash "abc".
		{name: "sorted before hashing", names: []string{"c", "b", "a"}, want: 0x44bc2cf5ad770999},
		{name: "no separator", names: []string{"bc", "a"}, want: 0x44bc2cf5ad770999},
		{name: "no separator, other split", names: []string{"c", "ab"}, want: 0x44bc2cf5ad770999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			joined := strings.Join(slices.Sorted(slices.Values(tt.names)), "")
			require.Equal(t, tt.want, xxhash.Sum64String(joined), "the vector itself, by the xxhash library")
			names := slices.Clone(tt.names)
			if got := metricNamesHash(names); got != tt.want {
				t.Errorf("metricNamesHash(%q) = %x, want %x", tt.names, got, tt.want)
			}
			assert.True(t, slices.IsSorted(names), "metricNamesHash sorts in place, as documented")
		})
	}
}

// TestMetricNamesHashInDocument checks the written form: lower-case hex without zero padding.
// The XXH64 of "jvm.gc.countqueue.deltaqueue.depth" is 0x0073bc4a560e3f01.
func TestMetricNamesHashInDocument(t *testing.T) {
	md, ms := newMetrics()
	for _, name := range []string{"queue.depth", "jvm.gc.count", "queue.delta"} {
		gaugeInt(ms, name, 1)
	}
	require.Equal(t, uint64(0x0073bc4a560e3f01), xxhash.Sum64String("jvm.gc.countqueue.deltaqueue.depth"))
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	assert.JSONEq(t, `"73bc4a560e3f01"`, string(docs[0].fields(t)["_metric_names_hash"]))
}

// TestMetricsDocumentKeyOrder checks the whole document of a group against DOCUMENTS.md.
func TestMetricsDocumentKeyOrder(t *testing.T) {
	md, ms := newMetrics()
	ms.AppendEmpty()
	m := ms.At(0)
	m.SetName("http.requests")
	m.SetUnit("{request}")
	s := m.SetEmptySum()
	s.SetIsMonotonic(true)
	s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := s.DataPoints().AppendEmpty()
	dp.SetTimestamp(ts0)
	dp.SetStartTimestamp(start0 + 999_999)
	dp.SetIntValue(12)
	putAttrs(dp.Attributes(), "route", "/cart", "elasticsearch.mapping.hints", hints("_doc_count"))
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	want := `{"@timestamp":1700000000123,"start_timestamp":1699999000000,"unit":"{request}",` +
		`"data_stream":{"type":"metrics","dataset":"generic.otel","namespace":"default"},` +
		`"attributes":{"route":"/cart"},"resource":{"attributes":{"service.name":"checkout"}},"scope":{"name":"test"},` +
		`"metrics":{"http.requests":12},"_doc_count":1,"_metric_names_hash":"` + strconv.FormatUint(xxhash.Sum64String("http.requests"), 16) + `"}`
	assert.Equal(t, want, string(docs[0].raw))
	assert.Equal(t, "metrics-generic.otel-default", docs[0].index)
	assert.Equal(t, metricsStream, docs[0].ds)
	assert.Equal(t, []DynamicTemplate{{Path: "metrics.http.requests", Template: "counter_long"}}, docs[0].templates)
}

// TestMetricTimestampsBeyondInt64 checks a timestamp past 2^63 ns (year 2262): pdata's
// timestamps are unsigned, and the logs and spans write them as such.
func TestMetricTimestampsBeyondInt64(t *testing.T) {
	md, ms := newMetrics()
	dp := gaugeInt(ms, "m", 1)
	dp.SetTimestamp(1 << 63)
	dp.SetStartTimestamp(1 << 63)
	docs, _ := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	f := docs[0].fields(t)
	assert.Equal(t, "9223372036854", string(f["@timestamp"]), "1<<63 ns in milliseconds")
	assert.Equal(t, "9223372036854", string(f["start_timestamp"]))
}

// TestDocCountFromLastHintedPoint checks that _doc_count comes from the last hinted point of a
// group, in the order the points came.
func TestDocCountFromLastHintedPoint(t *testing.T) {
	hinted := []any{"k", "v", "elasticsearch.mapping.hints", hints("_doc_count")}
	tests := []struct {
		name string
		add  func(ms pmetric.MetricSlice)
		want string
	}{
		{
			name: "number then histogram",
			add: func(ms pmetric.MetricSlice) {
				gaugeInt(ms, "a", 1, hinted...)
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
			},
			want: "10",
		},
		{
			name: "histogram then number",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
				gaugeInt(ms, "a", 1, hinted...)
			},
			want: "1",
		},
		{
			name: "unhinted points do not count",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, hinted...)
				histogram(ms, "c", 3, 1, nil, nil, "k", "v")
			},
			want: "10",
		},
		{
			name: "no hint",
			add: func(ms pmetric.MetricSlice) {
				histogram(ms, "b", 10, 1, nil, nil, "k", "v")
			},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			tt.add(ms)
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1, "documents: %s", docsText(docs))
			assert.Equal(t, tt.want, string(docs[0].fields(t)["_doc_count"]))
		})
	}
}

// TestDocCountCapped checks that _doc_count stays within what Elasticsearch accepts. The
// _doc_count field is an integer, not a long: Elasticsearch 9.5.4 indexes 2147483647 and refuses
// the whole document for 2147483648 or more (400 document_parsing_exception "failed to parse
// field [_doc_count] of type [_doc_count]"). The histogram counts themselves are longs.
func TestDocCountCapped(t *testing.T) {
	tests := []struct {
		name  string
		count uint64
		want  string
	}{
		{name: "int32 maximum", count: math.MaxInt32, want: "2147483647"},
		{name: "one more", count: math.MaxInt32 + 1, want: "2147483647"},
		{name: "uint64 maximum", count: math.MaxUint64, want: "2147483647"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ms := newMetrics()
			histogram(ms, "m", tt.count, 1, nil, nil, "elasticsearch.mapping.hints", hints("_doc_count"))
			docs, _ := encodeMetrics(t, md)
			require.Len(t, docs, 1)
			counts, _, _ := strings.Cut(strings.TrimPrefix(docs[0].metric(t, "m"), `{"counts":[`), "]")
			assert.Equal(t, strconv.FormatUint(min(tt.count, math.MaxInt64), 10), counts, "the histogram count is a long")
			if got := string(docs[0].fields(t)["_doc_count"]); got != tt.want {
				t.Errorf("_doc_count = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestMetricsDataStreamWrittenPerDocument: the data_stream member, encoded once per target, is
// in every document of the target, and an invalid byte that routing left in its name is
// replaced and counted in every one of them.
func TestMetricsDataStreamWrittenPerDocument(t *testing.T) {
	md := seriesMetrics(3)
	badStream := DataStream{Type: "metrics", Dataset: "bad\xff.otel", Namespace: "default"}
	route := func(pcommon.Map, pcommon.Map, pcommon.Map, string, pcommon.Timestamp) (string, DataStream, error) {
		return "metrics-bad.otel-default", badStream, nil
	}
	var e Encoder
	var buf []byte
	sink := &repairSink{e: &e, buf: &buf}
	encodeMetricsPush(&e, &buf, md, route, sink)
	assert.Equal(t, []Repair{RepairInvalidUTF8, RepairInvalidUTF8, RepairInvalidUTF8}, sink.repairs)
	require.Len(t, sink.docs, 3)
	for _, doc := range sink.docs {
		assert.Contains(t, string(doc), `,"data_stream":{"type":"metrics","dataset":"bad`+"\ufffd"+`.otel","namespace":"default"},`)
	}
}

// TestIntText: the text of each number, whether it repeats the last one or not.
func TestIntText(t *testing.T) {
	var it intText
	for _, v := range []int64{0, 0, 1700000000123, 1700000000123, -1, math.MaxInt64, math.MinInt64, 0} {
		assert.Equal(t, strconv.FormatInt(v, 10), string(it.of(v)))
	}
}
