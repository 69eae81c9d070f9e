// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"errors"
	"math"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// RecordKeys is the set of control attributes found on a record's attributes by [ScanRecord].
type RecordKeys uint8

const (
	// RecordRoutes is set by data_stream.type, data_stream.dataset, data_stream.namespace or
	// elasticsearch.index.
	RecordRoutes RecordKeys = 1 << iota
	// RecordDocumentID is set by elasticsearch.document_id.
	RecordDocumentID
	// RecordPipeline is set by elasticsearch.ingest_pipeline or elasticsearch.document_pipeline.
	RecordPipeline
	// RecordMappingHints is set by elasticsearch.mapping.hints.
	RecordMappingHints
)

// ScanRecord returns which control attributes record holds, in one pass over its keys. Most
// records hold none, and then everything that routing derives for them is the same for the
// whole scope (see [Router.SetScope]).
func ScanRecord(record pcommon.Map) RecordKeys {
	var keys RecordKeys
	for k := range record.All() {
		// The control attributes a record carries start with "data_stream." or
		// "elasticsearch.", data_stream.type being the shortest; the length and the first
		// byte rule out most other keys before the switch compares whole strings.
		if len(k) < len(controlattr.DataStreamType) || (k[0] != 'd' && k[0] != 'e') {
			continue
		}
		switch k {
		case controlattr.DataStreamType, controlattr.DataStreamDataset, controlattr.DataStreamNamespace, controlattr.Index:
			keys |= RecordRoutes
		case controlattr.DocumentID:
			keys |= RecordDocumentID
		case controlattr.IngestPipeline, controlattr.DocumentPipeline:
			keys |= RecordPipeline
		case controlattr.MappingHints:
			keys |= RecordMappingHints
		}
	}
	return keys
}

// errNoScope is returned by RouteRecord before any call to SetScope.
var errNoScope = errors.New("routing: RouteRecord called before SetScope")

// scopeState is what a Router knows of the scope whose records it routes, see SetScope.
type scopeState struct {
	set             bool
	typ             signal.Kind
	scope, resource pcommon.Map
	scopeName       string

	// ready tells whether target and err hold the route of a record without routing
	// attributes; for logstash_format, that of the records whose timestamps fall in period.
	ready  bool
	period uint64
	target Target
	err    error
}

// SetScope prepares the Router for the records of one scope: typ, scope, resource and
// scopeName are as for [Router.Route], and are the same for every record of the scope. It must
// be called again for every new scope, even one that looks the same, because the prepared
// results are derived from the contents of scope and resource, which routing does not watch.
func (r *Router) SetScope(typ signal.Kind, scope, resource pcommon.Map, scopeName string) {
	r.scope = scopeState{set: true, typ: typ, scope: scope, resource: resource, scopeName: scopeName}
}

// RouteRecord returns what [Router.Route] returns for a record of the scope set by
// [Router.SetScope]; keys must be ScanRecord(record). When the record holds none of the routing
// attributes, its route depends only on the scope, and on the date of ts with logstash_format:
// it is resolved once per scope (and per period of the date format) and then returned as is.
func (r *Router) RouteRecord(keys RecordKeys, record pcommon.Map, ts pcommon.Timestamp) (Target, error) {
	s := &r.scope
	if !s.set {
		return Target{}, errNoScope
	}
	if keys&RecordRoutes != 0 {
		return r.Route(s.typ, record, s.scope, s.resource, s.scopeName, ts)
	}
	var period uint64
	if r.logstash {
		// Timestamps beyond time.Time's int64 range wrap around in AsTime; their date does not
		// follow the period, so they are routed one by one.
		if uint64(ts) > math.MaxInt64 {
			return r.Route(s.typ, r.empty, s.scope, s.resource, s.scopeName, ts)
		}
		period = uint64(ts) / r.datePeriod
	}
	if !s.ready || s.period != period {
		s.target, s.err = r.Route(s.typ, r.empty, s.scope, s.resource, s.scopeName, ts)
		s.period = period
		s.ready = true
	}
	return s.target, s.err
}

// DocumentID returns what [DocumentID] returns for record; keys must be ScanRecord(record).
func (r *Router) DocumentID(keys RecordKeys, record pcommon.Map) string {
	if keys&RecordDocumentID == 0 {
		return ""
	}
	return DocumentID(record)
}

// Pipeline returns what [Pipeline] returns for record; keys must be ScanRecord(record).
func (r *Router) Pipeline(keys RecordKeys, record pcommon.Map) string {
	if keys&RecordPipeline == 0 {
		return ""
	}
	return Pipeline(record)
}

// datePeriod returns the span of time, in nanoseconds, over which the date formatted by verbs
// does not change, counted from the Unix epoch in UTC: a day, unless the format has an hour
// (%H, %I, or %p, which changes at noon), a minute or a second. The week, month and year verbs
// change at midnight too.
func datePeriod(verbs []dateVerb) uint64 {
	period := uint64(24 * time.Hour)
	for _, v := range verbs {
		var p uint64
		switch v.verb {
		case 'H', 'I', 'p':
			p = uint64(time.Hour)
		case 'M':
			p = uint64(time.Minute)
		case 'S':
			p = uint64(time.Second)
		default:
			continue
		}
		period = min(period, p)
	}
	return period
}
