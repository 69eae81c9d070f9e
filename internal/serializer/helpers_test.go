// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// The metric tests drive the encoder as the pipeline does (internal/pipeline/metrics.go): walk
// the resources, scopes, metrics and data points, skip a point with the _noindex hint, route
// each point (the tests' own routing functions stand in for internal/routing; a point without
// routing attributes takes the route of the scope's last such point at its timestamp), add it,
// then append every document, and count what was not written in a MetricsReport.

// MetricRouteFunc resolves the index of a data point from its attributes, its scope's and its
// resource's. ds is the zero DataStream for a plain index.
type MetricRouteFunc func(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (index string, ds DataStream, err error)

// MetricsSink receives each metric document after it is appended to the buffer.
type MetricsSink interface {
	// AddMetricsDocument records the document written at the end of the buffer from start on.
	// templates is only valid during the call.
	AddMetricsDocument(start int, index string, ds DataStream, templates []DynamicTemplate)
}

// RejectInvalidIndexName is the reason of the data points that the routing functions of the
// tests refuse (internal/routing's error.type).
const RejectInvalidIndexName = "invalid_index_name"

const numRejectReasons = 8

var rejectReasons = [numRejectReasons]string{
	RejectNoValue, RejectBucketMismatch, RejectScaleOutOfRange, RejectUnsupportedType, RejectInvalidIndexName,
	RejectFieldTaken, RejectBoundsNotIncreasing, RejectInvalidMetricName,
}

func rejectIndex(reason string) int { return slices.Index(rejectReasons[:], reason) }

// MetricsReport is what encodeMetricsPush could not write of a push.
type MetricsReport struct {
	// rejected counts data points not written, by reason, with the name of the first metric
	// rejected for each reason.
	rejected      [numRejectReasons]int
	rejectedNames [numRejectReasons]string
	NonFinite     int
	NonFiniteName string
	NoIndex       int
	// FirstError is the first routing error of the data points rejected with
	// RejectInvalidIndexName.
	FirstError error
}

func (r *MetricsReport) reject(reason int, name string) { r.rejectN(reason, name, 1) }

func (r *MetricsReport) rejectN(reason int, name string, n int) {
	if n == 0 {
		return
	}
	if r.rejected[reason] == 0 {
		r.rejectedNames[reason] = name
	}
	r.rejected[reason] += n
}

func (r *MetricsReport) rejectRoute(err error, name string) {
	r.reject(rejectIndex(RejectInvalidIndexName), name)
	if r.FirstError == nil {
		r.FirstError = err
	}
}

// document counts what AppendMetricsDocument reported of one document.
func (r *MetricsReport) document(d *MetricsDocument) {
	for _, rj := range d.Rejected {
		r.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
	}
	if d.NonFinite > 0 {
		if r.NonFinite == 0 {
			r.NonFiniteName = d.NonFiniteName
		}
		r.NonFinite += d.NonFinite
	}
}

// routeMemo is the route of the last data point of a scope without routing attributes, which
// the points of the scope without any at its timestamp take, as the pipeline's metricRoute.
type routeMemo struct {
	valid bool
	ts    pcommon.Timestamp
	index string
	ds    DataStream
	err   error
}

// encodeMetricsPush writes the documents of md to *buf as the pipeline does, calling sink for
// each, and reports the data points it could not write.
func encodeMetricsPush(e *Encoder, buf *[]byte, md pmetric.Metrics, route MetricRouteFunc, sink MetricsSink) MetricsReport {
	var rep MetricsReport
	e.BeginMetrics()
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		e.AddMetricsResource(rm)
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			e.AddMetricsScope(sm)
			scope := sm.Scope()
			var memo routeMemo
			ms := sm.Metrics()
			for k := range ms.Len() {
				n, rj := e.AddMetric(ms.At(k))
				if rj.Reason != "" {
					rep.rejectN(rejectIndex(rj.Reason), rj.Name, rj.Records)
					continue
				}
				for pi := range n {
					p := e.MetricPoint(pi)
					if p.NoIndex {
						rep.NoIndex++
						continue
					}
					index, ds, err := memo.index, memo.ds, memo.err
					if p.Routes || !memo.valid || memo.ts != p.Timestamp {
						index, ds, err = route(p.Attrs, scope.Attributes(), rm.Resource().Attributes(), scope.Name(), p.Timestamp)
						if !p.Routes {
							memo = routeMemo{valid: true, ts: p.Timestamp, index: index, ds: ds, err: err}
						}
					}
					if err != nil {
						rep.rejectRoute(err, ms.At(k).Name())
						continue
					}
					e.AddMetricPoint(index, ds)
				}
			}
		}
	}
	e.GroupMetrics()
	for {
		start := len(*buf)
		var d *MetricsDocument
		var more bool
		*buf, d, more = e.AppendMetricsDocument(*buf)
		if !more {
			return rep
		}
		rep.document(d)
		if d.Written {
			sink.AddMetricsDocument(start, d.Index, d.DataStream, d.Templates)
		}
	}
}

// The profile tests drive the encoder as the pipeline does (internal/pipeline/profiles.go):
// begin the profile, then append each document it names, skipping the content-addressed ones
// already written.

// profileDoc is one document a test sink received: where says which of its kind's indices it
// goes to (profileWhere).
type profileDoc struct {
	kind      ProfileDoc
	where, id string
	doc       string
	repair    Repair
}

// testSink drives the encoder's documents of a profile as the pipeline does: it appends every
// event and each content-addressed document its seen map has not had, and records them.
type testSink struct {
	enc  *Encoder
	buf  *[]byte
	docs []profileDoc
	seen map[string]bool
}

// encode begins profile p and appends its documents to s.buf; the encoder's Rejection says
// whether p was rejected.
func (s *testSink) encode(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	e := s.enc
	e.BeginProfile(dict, p)
	if e.Rejection().Reason != "" {
		return
	}
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return
		}
		if d.Kind != ProfileEvent {
			k := d.Kind.String() + "/" + d.ID
			if s.seen[k] {
				continue
			}
			s.seen[k] = true
		}
		start := len(*s.buf)
		*s.buf = e.AppendProfileDocument(*s.buf)
		s.docs = append(s.docs, profileDoc{d.Kind, profileWhere(d), strings.Clone(d.ID), string((*s.buf)[start:]), e.Repair()})
	}
}

// profileWhere names the index of its kind that a document goes to: for a symbolization queue
// entry, the queue (executables or leafframes); for an ecs-mode event's downsampled copy, the
// level (5pow01 for level 1); else "".
func profileWhere(d ProfileDocument) string {
	switch {
	case d.Kind == ProfileSymbolizationQueue && d.Executable:
		return "executables"
	case d.Kind == ProfileSymbolizationQueue:
		return "leafframes"
	case d.Level > 0:
		return fmt.Sprintf("5pow%02d", d.Level)
	}
	return ""
}

// testProfile builds a profile of two samples on one stack of two frames, leaf first: a
// native frame of libc with a build id, and a symbolized Go frame; the resource has host.id.
func testProfile() (pprofile.Profiles, pprofile.ProfilesDictionary, pprofile.Profile) {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	strs := dict.StringTable()
	for _, s := range []string{
		"", "samples", "count", "cpu", "nanoseconds", "/usr/lib/libc.so.6",
		"process.executable.build_id.htlhash", "profile.frame.type", "native", "go", "main.work", "main.go", "thread.name", "worker",
	} {
		strs.Append(s)
	}
	attrs := dict.AttributeTable()
	attrs.AppendEmpty() // 0: none
	kv := attrs.AppendEmpty()
	kv.SetKeyStrindex(6)
	kv.Value().SetStr("600dcafe600dcafe600dcafe600dcafe")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("native")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(7)
	kv.Value().SetStr("go")
	kv = attrs.AppendEmpty()
	kv.SetKeyStrindex(12)
	kv.Value().SetStr("worker")
	dict.MappingTable().AppendEmpty()
	m := dict.MappingTable().AppendEmpty()
	m.SetFilenameStrindex(5)
	m.AttributeIndices().Append(1)
	dict.FunctionTable().AppendEmpty()
	fn := dict.FunctionTable().AppendEmpty()
	fn.SetNameStrindex(10)
	fn.SetFilenameStrindex(11)
	dict.LocationTable().AppendEmpty()
	loc := dict.LocationTable().AppendEmpty() // 1: native, libc
	loc.SetMappingIndex(1)
	loc.SetAddress(0x1234)
	loc.AttributeIndices().Append(2)
	loc = dict.LocationTable().AppendEmpty() // 2: go, symbolized
	loc.AttributeIndices().Append(3)
	line := loc.Lines().AppendEmpty()
	line.SetFunctionIndex(1)
	line.SetLine(42)
	dict.StackTable().AppendEmpty()
	dict.StackTable().AppendEmpty().LocationIndices().Append(1, 2)

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("host.id", "h-1")
	rp.Resource().Attributes().PutStr("service.name", "svc")
	p := rp.ScopeProfiles().AppendEmpty().Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(1)
	p.SampleType().SetUnitStrindex(2)
	p.PeriodType().SetTypeStrindex(3)
	p.PeriodType().SetUnitStrindex(4)
	p.SetPeriod(50_000_000) // 20 Hz
	p.SetTime(pcommon.Timestamp(1_700_000_000_123_456_789))
	s := p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.AttributeIndices().Append(4)
	s.TimestampsUnixNano().Append(1_700_000_000_000_000_001, 1_700_000_000_500_000_000)
	s = p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.Values().Append(3)
	return pd, dict, p
}

func encodeProfile(t *testing.T, e *Encoder, sink *testSink, pd pprofile.Profiles, p pprofile.Profile) {
	t.Helper()
	var buf []byte
	sink.enc, sink.buf = e, &buf
	e.SetResource(pd.ResourceProfiles().At(0).Resource(), "")
	sink.encode(pd.Dictionary(), p)
	require.Empty(t, e.Rejection().Reason)
	for _, d := range sink.docs {
		require.True(t, json.Valid([]byte(d.doc)), d.doc)
	}
}

// appendProfileDocs appends the documents of profile p as the pipeline does, taking every
// content-addressed document as written already when allSeen (only the events are appended),
// else as never written, and returns the buffer and the number of documents appended.
func appendProfileDocs(e *Encoder, buf []byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, allSeen bool) ([]byte, int) {
	e.BeginProfile(dict, p)
	docs := 0
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return buf, docs
		}
		if allSeen && d.Kind != ProfileEvent {
			continue
		}
		buf = e.AppendProfileDocument(buf)
		docs++
	}
}
