// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// compression: snappy, end to end against the fake: once the start-up check has found that
// the node decodes snappy, bulk requests are snappy; before, and when it does not (a proxy
// that drops the header, DropSnappy), gzip, with one Warn line. The real node's answers are in
// integrationtest/snappy_test.go.
func TestCompressionSnappy(t *testing.T) {
	t.Run("decoded", func(t *testing.T) {
		srv := fakees.New(t)
		set, logs := observed()
		exp := newLogsExporter(t, newTestConfig(srv.URL, withSnappy), set)
		require.Eventually(t, func() bool {
			return logs.FilterMessage("Elasticsearch decodes snappy request bodies; bulk requests are sent with snappy").Len() == 1
		}, 10*time.Second, 5*time.Millisecond)
		require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
		assert.Equal(t, "snappy", srv.LastRequest().Header.Get("Content-Encoding"))
		assert.Len(t, srv.Accepted(), 3)
		assert.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "no Warn line")
	})
	t.Run("not passed on", func(t *testing.T) {
		srv := fakees.New(t)
		srv.DropSnappy = true
		set, logs := observed()
		exp := newLogsExporter(t, newTestConfig(srv.URL, withSnappy), set)
		require.Eventually(t, func() bool {
			return logs.FilterMessageSnippet("`compression: snappy` is not possible").Len() == 1
		}, 10*time.Second, 5*time.Millisecond)
		require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
		assert.Equal(t, "gzip", srv.LastRequest().Header.Get("Content-Encoding"))
		assert.Len(t, srv.Accepted(), 3)
	})
	t.Run("answer that tells nothing", func(t *testing.T) {
		// A proxy in front of the node answers every snappy bulk request 200 and passes the
		// rest on: the start-up check cannot tell, bulk requests stay on gzip, and one Warn
		// line says so.
		srv := fakees.New(t)
		srv.SnappyAnswersNothing = true
		set, logs := observed()
		exp := newLogsExporter(t, newTestConfig(srv.URL, withSnappy), set)
		require.Eventually(t, func() bool {
			return logs.FilterMessageSnippet("`compression: snappy` is not used yet").Len() == 1
		}, 10*time.Second, 5*time.Millisecond)
		line := logs.FilterMessageSnippet("`compression: snappy` is not used yet").All()[0]
		assert.Equal(t, zapcore.WarnLevel, line.Level)
		require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(3)))
		assert.Equal(t, "gzip", srv.LastRequest().Header.Get("Content-Encoding"))
		assert.Len(t, srv.Accepted(), 3)
	})
}
