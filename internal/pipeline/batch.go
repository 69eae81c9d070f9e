// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
)

// add records the document just encoded at st.batch.Buf[start:] in the batch, counts its
// repair, and hands its data stream to the template check unless it is the one handed last in
// this push (the checker is cheap for a name it has seen, but is called only when the name changes).
func (st *pushState) add(start int, it bulk.Item) {
	st.batch.Add(start, it)
	if it.RequireDataStream && it.Index != st.lastDataStream && st.p.dataStreams != nil {
		st.lastDataStream = it.Index
		st.p.dataStreams.Observe(it.Index)
	}
	st.countRepair()
}

// addRecord adds a log record, span or span event document, with a content-derived _id when
// deterministic_ids is on and the record names none.
func (st *pushState) addRecord(start int, it bulk.Item) {
	if st.p.set.DeterministicIDs && it.DocumentID == "" {
		it.DocumentID = bulk.ContentID(st.batch.Buf[start:])
		it.DerivedID = true
	}
	st.add(start, it)
}
