// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"
)

func TestDumpECS(t *testing.T) {
	pd, _, p := testProfile()
	var e Encoder
	e.SetMode(ModeECS)
	sink := &testSink{seen: map[string]bool{}, ecs: true}
	encodeProfile(t, &e, sink, pd, p)
	for _, d := range sink.docs {
		t.Logf("%s %s %s %s", d.kind, d.index, d.id, d.doc)
	}
}
