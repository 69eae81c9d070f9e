// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTruncateReason(t *testing.T) {
	assert.Equal(t, "short", TruncateReason("short"))
	exact := strings.Repeat("a", MaxReason)
	assert.Equal(t, exact, TruncateReason(exact))
	long := strings.Repeat("é", MaxReason) // 2 bytes each
	got := TruncateReason(long)
	assert.LessOrEqual(t, len(got), MaxReason)
	assert.True(t, strings.HasSuffix(got, TruncatedMarker))
	kept := strings.TrimSuffix(got, TruncatedMarker)
	assert.Equal(t, long[:len(kept)], kept)
	assert.Equal(t, strings.Repeat("é", len(kept)/2), kept, "cut at a UTF-8 boundary")
	assert.True(t, json.Valid([]byte(strconv.Quote(got))))
}
