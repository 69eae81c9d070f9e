// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoIndexHintSkipsThePoint(t *testing.T) {
	md, ms := newMetrics()
	gaugeInt(ms, "skipped", 1, "k", "v", "elasticsearch.mapping.hints", hints("_noindex"))
	histogram(ms, "skipped.too", 1, 1, nil, nil, "k", "v", "elasticsearch.mapping.hints", hints("aggregate_metric_double", "_noindex"))
	gaugeInt(ms, "kept", 2, "k", "v")
	docs, rep := encodeMetrics(t, md)
	require.Len(t, docs, 1)
	assert.Equal(t, 2, rep.NoIndex)
	keys, err := objectKeys(docs[0].fields(t)["metrics"])
	require.NoError(t, err)
	assert.Equal(t, []string{"kept"}, keys)
}
