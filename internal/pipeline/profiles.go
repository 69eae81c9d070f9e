// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"strings"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// A profile becomes many documents (serializer's NextProfileDocument): events, and the stack
// traces, stack frames, executables and hosts they refer to, each of which the pipeline writes
// only when its profilecache.Cache says it was not written within its lifetime. The cache
// records a document when it is encoded, before it is stored; a push that does not store every
// one of its documents therefore forgets the documents it recorded (forgetUnstoredProfiles), so
// that the next profile that refers to them writes them again. Their ids are derived from their
// content: writing one again is a duplicate (409 to the create), counted, not a second document.

// profileRef is a content-addressed document that a push recorded in the cache.
type profileRef struct {
	kind serializer.ProfileDoc
	id   string
}

// ecsProfileKey prefixes the ecs mode's documents in the cache: the two modes derive the same
// ids for stack traces, frames and executables, and a profile of one mode does not write the
// other's documents.
const ecsProfileKey = "ecs/"

// walkProfiles encodes the profiles of pd, scope by scope. A malformed profile is rejected
// alone, whole, and counted as one record of its rejection's error.type.
func walkProfiles(_ context.Context, st *pushState, pd pprofile.Profiles) {
	dict := pd.Dictionary()
	rps := pd.ResourceProfiles()
	for i := range rps.Len() {
		rp := rps.At(i)
		res := rp.Resource()
		sps := rp.ScopeProfiles()
		for j := range sps.Len() {
			sp := sps.At(j)
			profiles := sp.Profiles()
			if !st.setScope(res, rp.SchemaUrl(), sp.Scope(), sp.SchemaUrl(), profiles.Len()) {
				continue
			}
			for k := range profiles.Len() {
				st.appendProfile(dict, profiles.At(k))
			}
		}
	}
}

// appendProfile adds the documents of profile p to the batch: each event, and each
// content-addressed document the cache has not had, to the index profileTarget chooses. A
// document with an id has it derived from its content: a 409 means it is stored.
func (st *pushState) appendProfile(dict pprofile.ProfilesDictionary, p pprofile.Profile) {
	st.enc.BeginProfile(dict, p)
	if st.rejectedByEncoder(len(st.batch.Buf)) {
		return
	}
	ecs := st.mode == serializer.ModeECS
	for {
		doc, ok := st.enc.NextProfileDocument()
		if !ok {
			return
		}
		var id string
		if doc.Kind != serializer.ProfileEvent {
			var seen bool
			if id, seen = st.seenProfile(doc, ecs); seen {
				continue
			}
		}
		start := len(st.batch.Buf)
		st.batch.Buf = st.enc.AppendProfileDocument(st.batch.Buf)
		index, dataStream := profileTarget(doc, ecs)
		st.add(start, bulk.Item{Index: index, RequireDataStream: dataStream, DocumentID: id, DerivedID: id != ""})
	}
}

// seenProfile reports whether the cache had the content-addressed document doc; when it had
// not, the cache records it now, the push records that it did, and seenProfile returns the
// document's id as a string of its own.
func (st *pushState) seenProfile(doc serializer.ProfileDocument, ecs bool) (string, bool) {
	key := doc.ID
	if ecs {
		st.profileKey = append(append(st.profileKey[:0], ecsProfileKey...), doc.ID...)
		// A view of st.profileKey, valid during the call: the cache copies what it records.
		key = unsafe.String(unsafe.SliceData(st.profileKey), len(st.profileKey))
	}
	if st.p.profiles.Seen(doc.Kind, key) {
		return "", true
	}
	key = strings.Clone(key)
	st.profileRefs = append(st.profileRefs, profileRef{kind: doc.Kind, id: key})
	if ecs {
		key = key[len(ecsProfileKey):]
	}
	return key, false
}

// profileTarget returns the index of a profiling document and whether it is a data stream: in
// the otel mode the data streams of Elasticsearch's OTel profiling templates, in the ecs mode
// the indices of Universal Profiling, an event's downsampled copies included.
func profileTarget(doc serializer.ProfileDocument, ecs bool) (string, bool) {
	if !ecs {
		switch doc.Kind {
		case serializer.ProfileHost:
			return routing.ProfilingHostsOTel, true
		case serializer.ProfileStacktrace:
			return routing.ProfilingStacktracesOTel, true
		case serializer.ProfileStackframe:
			return routing.ProfilingStackframesOTel, true
		case serializer.ProfileExecutable:
			return routing.ProfilingExecutablesOTel, true
		}
		return routing.ProfilingEventsOTel, true
	}
	switch doc.Kind {
	case serializer.ProfileHost:
		return routing.ProfilingHostsECS, false
	case serializer.ProfileStacktrace:
		return routing.ProfilingStacktracesECS, false
	case serializer.ProfileStackframe:
		return routing.ProfilingStackframesECS, false
	case serializer.ProfileExecutable:
		return routing.ProfilingExecutablesECS, false
	case serializer.ProfileSymbolizationQueue:
		if doc.Executable {
			return routing.ProfilingSQExecutablesECS, false
		}
		return routing.ProfilingSQLeafFramesECS, false
	}
	if doc.Level > 0 {
		return routing.ProfilingEventsDownsampledECS[doc.Level-1], false
	}
	return routing.ProfilingEventsECS, false
}

// forgetUnstoredProfiles makes the cache forget the profiling documents that the push recorded
// when not every document of the push was stored (res is what became of them).
func (st *pushState) forgetUnstoredProfiles(res bulk.Result) {
	if len(st.profileRefs) == 0 || res.Indexed+res.Duplicate >= st.batch.Len() {
		return
	}
	for _, r := range st.profileRefs {
		st.p.profiles.Forget(r.kind, r.id)
	}
}
