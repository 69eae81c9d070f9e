// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"fmt"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// The serializer appends each record's documents straight to the batch's buffer (st.batch.Buf;
// bulk writes their action lines when it sends them); the encoder was set up for the scope by
// setScope. It repairs what it can (counted per document by add) and refuses a record it
// cannot write alone.

// rejectedByEncoder reports whether the encoder refused the record just given to it (it then
// wrote nothing after start), and counts the rejection.
func (st *pushState) rejectedByEncoder(start int) bool {
	rj := st.enc.Rejection()
	if rj.Reason == "" {
		return false
	}
	st.batch.Buf = st.batch.Buf[:start]
	var err error // only the first error of a type is logged: made once per push
	if _, ok := st.firstRejection[rj.Reason]; !ok {
		err = fmt.Errorf("mapping mode %s cannot write the record: %s", st.mode, rj.Reason)
	}
	st.reject(rj.Reason, rj.Records, err)
	return true
}

// countRepair counts the repair of the document just encoded, if it needed one.
func (st *pushState) countRepair() {
	if r := st.enc.Repair(); r != serializer.RepairNone {
		st.report.Repaired(string(r), 1)
	}
}
