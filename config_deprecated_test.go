// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

func TestLogDeprecations(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	cfg, err := loadConfig(t, "config.yaml", "deprecated")
	require.NoError(t, err)

	core, logs := observer.New(zap.WarnLevel)
	cfg.logDeprecations(zap.New(core))
	require.Equal(t, len(cfg.deprecations), logs.Len())
	for i, entry := range logs.All() {
		assert.Equal(t, cfg.deprecations[i], entry.Message)
	}
}
