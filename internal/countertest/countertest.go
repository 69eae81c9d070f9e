// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package countertest reads the exporter's int64 counters out of a componenttest.Telemetry.
// Only tests import it: those of the root package, of internal/bulk and of the integrationtest
// module.
package countertest // import "github.com/otelcol-es/elasticsearchexporter/internal/countertest"

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Points returns the points of the int64 counter name, none when nothing was recorded under
// that name. It fails the test when name is not an int64 sum.
func Points(t testing.TB, tel *componenttest.Telemetry, name string) []metricdata.DataPoint[int64] {
	t.Helper()
	m, err := tel.GetMetric(name)
	if err != nil {
		return nil // nothing recorded
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok, "%s is %T, want an int64 sum", name, m.Data)
	return sum.DataPoints
}

// Sum adds up the points of the counter name whose attributes include all of want.
func Sum(t testing.TB, tel *componenttest.Telemetry, name string, want ...attribute.KeyValue) int64 {
	t.Helper()
	var total int64
	for _, dp := range Points(t, tel, name) {
		match := true
		for _, kv := range want {
			if v, ok := dp.Attributes.Value(kv.Key); !ok || v != kv.Value {
				match = false
			}
		}
		if match {
			total += dp.Value
		}
	}
	return total
}

// SumBy sums the points of the counter name by the values of the attributes keys, joined by
// spaces; a point without one of them has "" in its place.
func SumBy(t testing.TB, tel *componenttest.Telemetry, name string, keys ...string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, dp := range Points(t, tel, name) {
		k := make([]string, len(keys))
		for i, key := range keys {
			if v, ok := dp.Attributes.Value(attribute.Key(key)); ok {
				k[i] = v.String()
			}
		}
		out[strings.Join(k, " ")] += dp.Value
	}
	return out
}

// MustSumBy is SumBy for a counter that must have been recorded: it fails the test when
// nothing was recorded under name.
func MustSumBy(t testing.TB, tel *componenttest.Telemetry, name string, keys ...string) map[string]int64 {
	t.Helper()
	_, err := tel.GetMetric(name)
	require.NoError(t, err, "metric %s", name)
	return SumBy(t, tel, name, keys...)
}
