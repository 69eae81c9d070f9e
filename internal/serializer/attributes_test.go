// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

func TestAppendLogAttributes(t *testing.T) {
	tests := []struct {
		name string
		set  func(pcommon.Map)
		want string // the attributes member, or "" for none
	}{
		{name: "none", set: func(pcommon.Map) {}, want: ""},
		{
			name: "all control attributes",
			set: func(m pcommon.Map) {
				for _, k := range []string{
					"data_stream.type", "data_stream.dataset", "data_stream.namespace",
					"elasticsearch.index", "elasticsearch.document_id", "elasticsearch.ingest_pipeline",
					"elasticsearch.document_pipeline", "elastic.mapping.mode",
				} {
					m.PutStr(k, "x")
				}
				m.PutEmptySlice("elasticsearch.mapping.hints").AppendEmpty().SetStr("_doc_count")
			},
			want: `,"attributes":{}`,
		},
		{
			name: "control attributes between others",
			set: func(m pcommon.Map) {
				m.PutStr("data_stream.dataset", "x")
				m.PutStr("a", "1")
				m.PutStr("elasticsearch.document_id", "id")
				m.PutStr("b", "2")
			},
			want: `,"attributes":{"a":"1","b":"2"}`,
		},
		{
			name: "control keys stay in nested maps",
			set:  func(m pcommon.Map) { m.PutEmptyMap("n").PutStr("data_stream.dataset", "x") },
			want: `,"attributes":{"n":{"data_stream.dataset":"x"}}`,
		},
		{
			name: "every value type",
			set: func(m pcommon.Map) {
				m.PutStr("s", "str")
				m.PutInt("i", math.MinInt64)
				m.PutDouble("d", 1)
				m.PutBool("b", true)
				m.PutEmptyBytes("bytes").FromRaw([]byte{0x00, 0xff})
				m.PutEmptyMap("m").PutEmptyMap("n").PutStr("deep", "x")
				s := m.PutEmptySlice("arr")
				s.AppendEmpty().SetInt(1)
				s.AppendEmpty().SetEmptyBytes().FromRaw([]byte{0xab})
				s.AppendEmpty().SetEmptyMap().PutBool("t", true)
				m.PutEmpty("empty")
			},
			want: `,"attributes":{"s":"str","i":-9223372036854775808,"d":1.0,"b":true,"bytes":"00ff",` +
				`"m":{"n":{"deep":"x"}},"arr":[1,"ab",{"t":true}],"empty":null}`,
		},
		{
			name: "NaN and infinities",
			set: func(m pcommon.Map) {
				m.PutDouble("nan", math.NaN())
				m.PutDouble("inf", math.Inf(1))
				m.PutEmptyMap("n").PutDouble("ninf", math.Inf(-1))
				m.PutEmptySlice("arr").AppendEmpty().SetDouble(math.NaN())
			},
			want: `,"attributes":{"nan":null,"inf":null,"n":{"ninf":null},"arr":[null]}`,
		},
		{
			name: "dotted keys are not expanded",
			set:  func(m pcommon.Map) { m.PutStr("a.b.c", "x") },
			want: `,"attributes":{"a.b.c":"x"}`,
		},
		{
			name: "geo pair",
			set: func(m pcommon.Map) {
				m.PutStr("before", "x")
				m.PutDouble("geo.location.lat", 52.5)
				m.PutStr("between", "y")
				m.PutDouble("geo.location.lon", 13.25)
				m.PutStr("after", "z")
			},
			want: `,"attributes":{"before":"x","geo.location":[13.25,52.5],"between":"y","after":"z"}`,
		},
		{
			name: "geo pair lon first",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lon", 13)
				m.PutDouble("geo.location.lat", 52)
			},
			want: `,"attributes":{"geo.location":[13.0,52.0]}`,
		},
		{
			name: "prefixed geo pairs",
			set: func(m pcommon.Map) {
				m.PutDouble("client.geo.location.lat", 1.5)
				m.PutDouble("server.geo.location.lat", 3.5)
				m.PutDouble("client.geo.location.lon", 2.5)
				m.PutDouble("server.geo.location.lon", 4.5)
			},
			want: `,"attributes":{"client.geo.location":[2.5,1.5],"server.geo.location":[4.5,3.5]}`,
		},
		{
			name: "geo lat without lon",
			set:  func(m pcommon.Map) { m.PutDouble("geo.location.lat", 1) },
			want: `,"attributes":{"geo.location.lat":1.0}`,
		},
		{
			name: "geo lon without lat",
			set: func(m pcommon.Map) {
				m.PutDouble("client.geo.location.lon", 1)
				m.PutDouble("server.geo.location.lat", 2)
			},
			want: `,"attributes":{"client.geo.location.lon":1.0,"server.geo.location.lat":2.0}`,
		},
		{
			name: "geo lon not a double",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lat", 1)
				m.PutStr("geo.location.lon", "2")
			},
			want: `,"attributes":{"geo.location.lat":1.0,"geo.location.lon":"2"}`,
		},
		{
			name: "geo int is not a double",
			set: func(m pcommon.Map) {
				m.PutInt("geo.location.lat", 1)
				m.PutInt("geo.location.lon", 2)
			},
			want: `,"attributes":{"geo.location.lat":1,"geo.location.lon":2}`,
		},
		{
			name: "geo pair in a nested map is left alone",
			set: func(m pcommon.Map) {
				n := m.PutEmptyMap("client")
				n.PutDouble("geo.location.lat", 1)
				n.PutDouble("geo.location.lon", 2)
			},
			want: `,"attributes":{"client":{"geo.location.lat":1.0,"geo.location.lon":2.0}}`,
		},
		{
			name: "geo key taken by an earlier attribute",
			set: func(m pcommon.Map) {
				m.PutStr("geo.location", "first")
				m.PutDouble("geo.location.lat", 1)
				m.PutDouble("geo.location.lon", 2)
			},
			want: `,"attributes":{"geo.location":"first"}`,
		},
		{
			name: "geo key repeated after the pair",
			set: func(m pcommon.Map) {
				m.PutDouble("geo.location.lat", 1)
				m.PutDouble("geo.location.lon", 2)
				m.PutStr("geo.location", "later")
			},
			want: `,"attributes":{"geo.location":[2.0,1.0]}`,
		},
		{
			// DOCUMENTS.md: geo.location.lat/lon or <prefix>.geo.location.lat/lon. A name that
			// merely ends in "geo.location.lat" is an ordinary attribute, as in contrib.
			name: "geo suffix without a dot before it",
			set: func(m pcommon.Map) {
				m.PutDouble("nogeo.location.lat", 1)
				m.PutDouble("nogeo.location.lon", 2)
			},
			want: `,"attributes":{"nogeo.location.lat":1.0,"nogeo.location.lon":2.0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.set(rec.Attributes())
			got := encodeLog(t, rec)
			if want := emptyLogPrefix + tt.want + emptyEnvelope + `}`; string(got) != want {
				t.Errorf("AppendLog() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestAppendLogDuplicateKeysFirstWins(t *testing.T) {
	tests := []struct {
		name   string
		record string // OTLP JSON
		want   string // from "attributes" on
	}{
		{
			name: "top level",
			record: `{"attributes":[
				{"key":"a","value":{"stringValue":"first"}},
				{"key":"b","value":{"intValue":"1"}},
				{"key":"a","value":{"stringValue":"second"}},
				{"key":"a","value":{"intValue":"3"}}]}`,
			want: `,"attributes":{"a":"first","b":1}` + emptyEnvelope + `}`,
		},
		{
			name: "nested",
			record: `{"attributes":[{"key":"m","value":{"kvlistValue":{"values":[
				{"key":"x","value":{"intValue":"1"}},
				{"key":"x","value":{"intValue":"2"}},
				{"key":"n","value":{"kvlistValue":{"values":[
					{"key":"y","value":{"boolValue":true}},
					{"key":"y","value":{"boolValue":false}}]}}}]}}}]}`,
			want: `,"attributes":{"m":{"x":1,"n":{"y":true}}}` + emptyEnvelope + `}`,
		},
		{
			name: "sibling maps do not share keys",
			record: `{"attributes":[
				{"key":"m1","value":{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"1"}}]}}},
				{"key":"m2","value":{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"2"}}]}}}]}`,
			want: `,"attributes":{"m1":{"x":1},"m2":{"x":2}}` + emptyEnvelope + `}`,
		},
		{
			name: "maps in an array",
			record: `{"attributes":[{"key":"arr","value":{"arrayValue":{"values":[
				{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"1"}},{"key":"x","value":{"intValue":"2"}}]}},
				{"kvlistValue":{"values":[{"key":"x","value":{"intValue":"3"}}]}}]}}}]}`,
			want: `,"attributes":{"arr":[{"x":1},{"x":3}]}` + emptyEnvelope + `}`,
		},
		{
			name: "map body",
			record: `{"body":{"kvlistValue":{"values":[
				{"key":"y","value":{"doubleValue":1}},
				{"key":"z","value":{"kvlistValue":{"values":[
					{"key":"w","value":{"stringValue":"a"}},
					{"key":"w","value":{"stringValue":"b"}}]}}},
				{"key":"y","value":{"doubleValue":2}}]}}}`,
			want: emptyEnvelope + `,"body":{"structured":{"y":1.0,"z":{"w":"a"}}}}`,
		},
		{
			name: "array body of maps",
			record: `{"body":{"arrayValue":{"values":[
				{"kvlistValue":{"values":[{"key":"k","value":{"intValue":"1"}},{"key":"k","value":{"intValue":"2"}}]}}]}}}`,
			want: emptyEnvelope + `,"body":{"structured":[{"k":1}]}}`,
		},
		{
			name: "control attribute repeated",
			record: `{"attributes":[
				{"key":"data_stream.dataset","value":{"stringValue":"a"}},
				{"key":"data_stream.dataset","value":{"stringValue":"b"}}]}`,
			want: `,"attributes":{}` + emptyEnvelope + `}`,
		},
		{
			// The pair is written from the first lat and lon; a later repeat of either is
			// dropped like any repeated key.
			name: "geo key repeated with another type",
			record: `{"attributes":[
				{"key":"geo.location.lat","value":{"doubleValue":1}},
				{"key":"geo.location.lon","value":{"doubleValue":2}},
				{"key":"geo.location.lat","value":{"stringValue":"again"}}]}`,
			want: `,"attributes":{"geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encodeLog(t, logRecordFromJSON(t, tt.record))
			if want := emptyLogPrefix + tt.want; string(got) != want {
				t.Errorf("AppendLog() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestInvalidUTF8KeysStayDistinct covers keys that are different in pdata but the same once
// their invalid bytes are replaced by U+FFFD: the document must still not repeat a name, and
// the first key wins.
func TestInvalidUTF8KeysStayDistinct(t *testing.T) {
	const r = "\ufffd"
	tests := []struct {
		name string
		set  func(plog.LogRecord)
		want string // from "attributes" on
	}{
		{
			name: "two invalid bytes",
			set: func(rec plog.LogRecord) {
				rec.Attributes().PutInt("k\xff", 0)
				rec.Attributes().PutInt("k\xfe", 1)
			},
			want: `,"attributes":{"k` + r + `":0}` + emptyEnvelope + `}`,
		},
		{
			name: "invalid byte and U+FFFD",
			set: func(rec plog.LogRecord) {
				rec.Attributes().PutInt("k\ufffd", 0)
				rec.Attributes().PutInt("k\x80", 1)
			},
			want: `,"attributes":{"k` + r + `":0}` + emptyEnvelope + `}`,
		},
		{
			name: "nested map",
			set: func(rec plog.LogRecord) {
				m := rec.Attributes().PutEmptyMap("m")
				m.PutInt("\xc0", 0)
				m.PutInt("\xc1", 1)
			},
			want: `,"attributes":{"m":{"` + r + `":0}}` + emptyEnvelope + `}`,
		},
		{
			name: "map body",
			set: func(rec plog.LogRecord) {
				m := rec.Body().SetEmptyMap()
				m.PutInt("b\xff", 0)
				m.PutInt("b\xfe", 1)
			},
			want: emptyEnvelope + `,"body":{"structured":{"b` + r + `":0}}}`,
		},
		{
			name: "geo prefixes",
			set: func(rec plog.LogRecord) {
				a := rec.Attributes()
				a.PutDouble("a\xff.geo.location.lat", 1)
				a.PutDouble("a\xff.geo.location.lon", 2)
				a.PutDouble("a\xfe.geo.location.lat", 3)
				a.PutDouble("a\xfe.geo.location.lon", 4)
			},
			want: `,"attributes":{"a` + r + `.geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
		{
			name: "geo prefix and a plain key",
			set: func(rec plog.LogRecord) {
				a := rec.Attributes()
				a.PutDouble("a\xff.geo.location.lat", 1)
				a.PutDouble("a\xff.geo.location.lon", 2)
				a.PutStr("a\ufffd.geo.location", "later")
			},
			want: `,"attributes":{"a` + r + `.geo.location":[2.0,1.0]}` + emptyEnvelope + `}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := plog.NewLogRecord()
			tt.set(rec)
			e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
			got := e.AppendLog(nil, rec, DataStream{})
			checkDocument(t, got) // reports a repeated name
			if want := emptyLogPrefix + tt.want; string(got) != want {
				t.Errorf("AppendLog() = %q, want %q", got, want)
			}
			if rep := e.Repair(); rep != RepairInvalidUTF8 {
				t.Errorf("Repair() = %q, want %q", rep, RepairInvalidUTF8)
			}
		})
	}
}

func TestDeeplyNestedMaps(t *testing.T) {
	const depth = 1000
	rec := plog.NewLogRecord()
	m := rec.Attributes().PutEmptyMap("n")
	body := rec.Body().SetEmptyMap()
	for i := range depth - 1 {
		m.PutInt("i", int64(i))
		m = m.PutEmptyMap("n")
		body.PutStr("s", "x")
		body = body.PutEmptySlice("a").AppendEmpty().SetEmptyMap()
	}
	doc := encodeLog(t, rec)
	got := decodeDocument(t, doc)
	// Down to maxDepth the maps are objects; the next one is a JSON string holding the rest.
	n := got["attributes"].(map[string]any)
	levels := 0
	for {
		next, ok := n["n"].(map[string]any)
		if s, isStr := n["n"].(string); isStr && !ok {
			if levels != maxDepth {
				t.Fatalf("the map at level %d is a string, want level %d", levels+1, maxDepth+1)
			}
			if err := json.Unmarshal([]byte(s), &next); err != nil {
				t.Fatalf("the map at level %d is not a JSON object: %v", levels+1, err)
			}
			ok = true
		}
		if !ok {
			break
		}
		n = next
		levels++
	}
	if levels != depth {
		t.Errorf("attributes nest %d maps, want %d", levels, depth)
	}
}

func TestDeeplyNestedDuplicateKeys(t *testing.T) {
	const depth = 200
	var sb strings.Builder
	for range depth {
		sb.WriteString(`{"key":"k","value":{"kvlistValue":{"values":[{"key":"d","value":{"intValue":"1"}},{"key":"d","value":{"intValue":"2"}},`)
	}
	sb.WriteString(`{"key":"leaf","value":{"boolValue":true}}`)
	for range depth {
		sb.WriteString(`]}}}`)
	}
	rec := logRecordFromJSON(t, `{"attributes":[`+sb.String()+`]}`)
	doc := encodeLog(t, rec)
	// The maps below maxDepth are inside a JSON string, with their quotes escaped.
	if n := bytes.Count(doc, []byte(`"d":1`)) + bytes.Count(doc, []byte(`\"d\":1`)); n != depth {
		t.Errorf("found %d first values, want %d", n, depth)
	}
	if bytes.Contains(doc, []byte(`"d":2`)) || bytes.Contains(doc, []byte(`\"d\":2`)) {
		t.Errorf("a repeated key was written: %.200s...", doc)
	}
}

func TestManyKeysWithDuplicates(t *testing.T) {
	const keys = 10_000
	var sb strings.Builder
	sb.WriteString(`{"attributes":[`)
	for i := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		// Every fourth entry repeats the key written three entries before it.
		k := i
		if i%4 == 3 {
			k = i - 3
		}
		fmt.Fprintf(&sb, `{"key":"key.%d","value":{"intValue":"%d"}}`, k, i)
	}
	sb.WriteString(`],"body":{"kvlistValue":{"values":[`)
	for i := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"key":"b%d","value":{"intValue":"%d"}}`, i%(keys/2), i)
	}
	sb.WriteString(`]}}}`)
	rec := logRecordFromJSON(t, sb.String())

	e := newTestEncoder(pcommon.NewResource(), pcommon.NewInstrumentationScope())
	// Twice, so the reused key index is exercised after a reset.
	for range 2 {
		doc := e.AppendLog(nil, rec, DataStream{})
		got := decodeDocument(t, doc)
		attrs := got["attributes"].(map[string]any)
		if want := keys - keys/4; len(attrs) != want {
			t.Errorf("attributes has %d keys, want %d", len(attrs), want)
		}
		for i := 0; i < keys; i += 4 {
			if v := attrs["key."+strconv.Itoa(i)]; v != json.Number(strconv.Itoa(i)) {
				t.Fatalf("attributes[key.%d] = %v, want the first value %d", i, v, i)
			}
		}
		body := got["body"].(map[string]any)["structured"].(map[string]any)
		if len(body) != keys/2 {
			t.Errorf("body has %d keys, want %d", len(body), keys/2)
		}
		if v := body["b7"]; v != json.Number("7") {
			t.Errorf("body.b7 = %v, want the first value 7", v)
		}
	}
}

func TestNonFiniteGeoStaysPlain(t *testing.T) {
	var e Encoder
	rec := plog.NewLogRecord()
	rec.Attributes().PutDouble("geo.location.lat", math.NaN())
	rec.Attributes().PutDouble("geo.location.lon", 2)
	got := string(e.AppendLog(nil, rec, DataStream{}))
	want := `{"@timestamp":"0.0","observed_timestamp":"0.0","attributes":{"geo.location.lat":null,"geo.location.lon":2.0},"resource":{},"scope":{}}`
	if got != want {
		t.Errorf("AppendLog() = %s, want %s", got, want)
	}
}
