// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

func TestEnvelope(t *testing.T) {
	tests := []struct {
		name              string
		build             func(pcommon.Resource, pcommon.InstrumentationScope)
		resURL, scopeURL  string
		wantRes, wantScop string
	}{
		{name: "empty", build: func(pcommon.Resource, pcommon.InstrumentationScope) {}, wantRes: `{}`, wantScop: `{}`},
		{
			name: "only control attributes",
			build: func(r pcommon.Resource, s pcommon.InstrumentationScope) {
				r.Attributes().PutStr("data_stream.namespace", "prod")
				s.Attributes().PutStr("elasticsearch.index", "idx")
			},
			wantRes: `{"attributes":{}}`, wantScop: `{"attributes":{}}`,
		},
		{
			name: "schema urls only",
			build: func(pcommon.Resource, pcommon.InstrumentationScope) {
			},
			resURL: "r", scopeURL: "s",
			wantRes: `{"schema_url":"r"}`, wantScop: `{"schema_url":"s"}`,
		},
		{
			name: "version without name",
			build: func(_ pcommon.Resource, s pcommon.InstrumentationScope) {
				s.SetVersion("v1")
			},
			wantRes: `{}`, wantScop: `{"version":"v1"}`,
		},
		{
			name: "dropped counts only",
			build: func(r pcommon.Resource, s pcommon.InstrumentationScope) {
				r.SetDroppedAttributesCount(4)
				s.SetDroppedAttributesCount(5)
			},
			wantRes: `{"dropped_attributes_count":4}`, wantScop: `{"dropped_attributes_count":5}`,
		},
		{
			name: "geo pair in the resource",
			build: func(r pcommon.Resource, _ pcommon.InstrumentationScope) {
				r.Attributes().PutDouble("host.geo.location.lat", 1)
				r.Attributes().PutDouble("host.geo.location.lon", 2)
			},
			wantRes: `{"attributes":{"host.geo.location":[2.0,1.0]}}`, wantScop: `{}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, scope := pcommon.NewResource(), pcommon.NewInstrumentationScope()
			tt.build(res, scope)
			var e Encoder
			e.SetResource(res, tt.resURL)
			e.SetScope(scope, tt.scopeURL)
			got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
			checkDocument(t, got)
			want := emptyLogPrefix + `,"resource":` + tt.wantRes + `,"scope":` + tt.wantScop + `}`
			if string(got) != want {
				t.Errorf("AppendLog() = %s, want %s", got, want)
			}
		})
	}
}

func TestSetResourceReplacesPrevious(t *testing.T) {
	var e Encoder
	r1 := pcommon.NewResource()
	r1.Attributes().PutStr("service.name", "a-long-service-name")
	e.SetResource(r1, "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	buf := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	r2 := pcommon.NewResource()
	r2.Attributes().PutStr("service.name", "b")
	e.SetResource(r2, "")
	start := len(buf)
	buf = e.AppendLog(buf, plog.NewLogRecord(), DataStream{})
	first, second := buf[:start], buf[start:]
	checkDocument(t, first)
	checkDocument(t, second)
	if want := emptyLogPrefix + `,"resource":{"attributes":{"service.name":"a-long-service-name"}},"scope":{}}`; string(first) != want {
		t.Errorf("first document = %s, want %s", first, want)
	}
	if want := emptyLogPrefix + `,"resource":{"attributes":{"service.name":"b"}},"scope":{}}`; string(second) != want {
		t.Errorf("second document = %s, want %s", second, want)
	}
}

func TestInvalidUTF8KeysInResource(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("k\xff", "first")
	res.Attributes().PutStr("k\xfe", "second")
	var e Encoder
	e.SetResource(res, "")
	e.SetScope(pcommon.NewInstrumentationScope(), "")
	got := e.AppendLog(nil, plog.NewLogRecord(), DataStream{})
	checkDocument(t, got)
	want := emptyLogPrefix + `,"resource":{"attributes":{"k` + "\ufffd" + `":"first"}},"scope":{}}`
	if string(got) != want {
		t.Errorf("AppendLog() = %q, want %q", got, want)
	}
	if r := e.Repair(); r != RepairInvalidUTF8 {
		t.Errorf("Repair() = %q, want %q", r, RepairInvalidUTF8)
	}
}
