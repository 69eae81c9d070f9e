// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/goleak"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// attrs builds a pcommon.Map from raw values (int, float64, bool, string, []byte, map, slice).
func attrs(tb testing.TB, raw map[string]any) pcommon.Map {
	tb.Helper()
	m := pcommon.NewMap()
	require.NoError(tb, m.FromRaw(raw))
	return m
}

// dataStream is the Target of the data stream typ-dataset-namespace; dataset includes ".otel".
func dataStream(typ, dataset, namespace string) Target {
	return Target{
		Index:      typ + "-" + dataset + "-" + namespace,
		DataStream: true,
		Type:       typ,
		Dataset:    dataset,
		Namespace:  namespace,
	}
}

func index(name string) Target { return Target{Index: name} }

// requireScopedRoute checks that RouteRecord, DocumentID and Pipeline of a Router set to the
// scope give what Route, DocumentID and Pipeline give, for a record routed first in its scope
// and again after a record without attributes has filled the scope's cache.
func requireScopedRoute(t *testing.T, settings Settings, typ signal.Kind, record, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) {
	t.Helper()
	for _, mode := range []struct{ otel, typeFromAttribute bool }{{true, false}, {false, false}, {false, true}} {
		full, err := NewRouter(settings)
		require.NoError(t, err)
		full.SetMode(mode.otel, mode.typeFromAttribute)
		want, wantErr := full.Route(typ, record, scope, resource, scopeName, ts)
		wantBare, wantBareErr := full.Route(typ, pcommon.NewMap(), scope, resource, scopeName, ts)

		scoped, err := NewRouter(settings)
		require.NoError(t, err)
		scoped.SetMode(mode.otel, mode.typeFromAttribute)
		scoped.SetScope(typ, scope, resource, scopeName)
		keys := ScanRecord(record)
		for range 2 {
			got, gotErr := scoped.RouteRecord(keys, record, ts)
			assert.Equal(t, want, got, "mode %+v", mode)
			assert.Equal(t, errString(wantErr), errString(gotErr), "mode %+v", mode)
			got, gotErr = scoped.RouteRecord(0, pcommon.NewMap(), ts)
			assert.Equal(t, wantBare, got, "mode %+v, bare record", mode)
			assert.Equal(t, errString(wantBareErr), errString(gotErr), "mode %+v, bare record", mode)
		}
		assert.Equal(t, DocumentID(record), scoped.DocumentID(keys, record))
		assert.Equal(t, Pipeline(record), scoped.Pipeline(keys, record))
	}
}

// ts2023 is 2023-12-02T10:10:10.000000001Z, a Saturday.
var ts2023 = pcommon.NewTimestampFromTime(time.Date(2023, 12, 2, 10, 10, 10, 1, time.UTC))

// errString returns the text of err, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
