// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package loglimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLogLimiter(t *testing.T) {
	l := New(time.Hour)
	n, ok := l.Allow()
	assert.True(t, ok)
	assert.Zero(t, n)
	for range 3 {
		_, ok = l.Allow()
		assert.False(t, ok)
	}
	l.last = l.last.Add(-time.Hour)
	n, ok = l.Allow()
	assert.True(t, ok)
	assert.Equal(t, 3, n)

	every := New(0)
	for range 3 {
		n, ok := every.Allow()
		assert.True(t, ok)
		assert.Zero(t, n)
	}
}
