// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"strings"

	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// A profile becomes many documents (serializer's AppendProfile): events, and the stack traces,
// stack frames, executables and hosts they refer to, each of which is written only when the
// pipeline's profilecache.Cache says it was not written within its lifetime. The cache records
// a document when it is encoded, before it is stored; a push that does not store every one of
// its documents therefore forgets the documents it recorded (forgetUnstoredProfiles), so that
// the next profile that refers to them writes them again. Their ids are derived from their
// content: writing one again is a duplicate (409 to the create), counted, not a second document.

// profileRef is a content-addressed document that a push recorded in the cache.
type profileRef struct {
	kind serializer.ProfileDoc
	id   string
}

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
				start, recorded := len(st.batch.Buf), len(st.profileRefs)
				st.enc.AppendProfile(&st.batch.Buf, dict, profiles.At(k), st, st)
				if st.rejectedByEncoder(start) {
					// A rejected profile writes nothing, so it recorded nothing either.
					st.profileRefs = st.profileRefs[:recorded]
				}
			}
		}
	}
}

// Seen is the push's serializer.ProfilesSeen: the pipeline's cache, and the push's record of
// what it added to the cache.
func (st *pushState) Seen(kind serializer.ProfileDoc, id string) bool {
	if st.p.profiles.Seen(kind, id) {
		return true
	}
	if kind != serializer.ProfileEvent {
		st.profileRefs = append(st.profileRefs, profileRef{kind: kind, id: strings.Clone(id)})
	}
	return false
}

// AddProfileDocument is the push's serializer.ProfilesSink: it adds a profiling document to the
// batch. A document with an id has it derived from its content: a 409 means it is stored.
func (st *pushState) AddProfileDocument(start int, _ serializer.ProfileDoc, index, id string, dataStream bool) {
	it := bulk.Item{Index: index, RequireDataStream: dataStream}
	if id != "" {
		// id is valid only during the call; the recorded copy has the same bytes.
		if n := len(st.profileRefs); n > 0 && st.profileRefs[n-1].id == id {
			it.DocumentID = st.profileRefs[n-1].id
		} else {
			it.DocumentID = strings.Clone(id)
		}
		it.DerivedID = true
	}
	st.add(start, it)
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
