// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// startupChecks reads otelcol.elasticsearch.startup_check: the value per check recorded.
func startupChecks(tel *componenttest.Telemetry) map[string]int64 {
	m, err := tel.GetMetric("otelcol.elasticsearch.startup_check")
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		v, _ := dp.Attributes.Value("check")
		out[v.AsString()] = dp.Value
	}
	return out
}

// A server too old for mapping mode otel, without a template for the data stream written to:
// the version and template checks record 1, connect and auth 0; tls is not recorded for an
// http endpoint, privileges not for a server that does not answer _has_privileges (the fake;
// the real node's answers are in integrationtest/privileges_test.go).
func TestStartupChecksAreRecorded(t *testing.T) {
	srv := fakees.New(t)
	srv.Version = "8.15.3"
	srv.HasTemplate = func(string) bool { return false }
	set, tel := elasticsearchexporter.WithTelemetry(t)
	exp := elasticsearchexporter.NewLogsExporter(t, elasticsearchexporter.NewTestConfig(srv.URL), set)
	_ = exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1))
	want := map[string]int64{"connect": 0, "auth": 0, "version": 1, "template": 1}
	require.Eventually(t, func() bool { return len(startupChecks(tel)) == len(want) }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, want, startupChecks(tel))
}
