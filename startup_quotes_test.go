// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/otelcol-es/elasticsearchexporter"
)

// quotedLineMatches takes a logged line for the quoted one when they differ only in keys in
// backticks, numbers and at most two other words, and finds a quote that starts with "..."
// anywhere in the line.
func TestQuotedLineMatches(t *testing.T) {
	const deprecatedPair = "`num_workers` (4) and its replacement `sending_queue::num_consumers` (8) are both set: `sending_queue::num_consumers` is used and `num_workers` is ignored, as in contrib; remove `num_workers`"
	for _, tt := range []struct {
		line, quote string
		want        bool
	}{
		{"`flush::interval` (5s) and its replacement `sending_queue::batch::flush_timeout` (2s) are both set: `sending_queue::batch::flush_timeout` is used and `flush::interval` is ignored, as in contrib; remove `flush::interval`", deprecatedPair, true},
		{"`mapping::mode` is raw and is ignored, as in contrib since v0.145", "`mapping::mode` is ecs and is ignored, as in contrib since v0.145", true},
		{"`auth::authenticator` (beatsauth/_agent-component/default) and `api_key` are both set", "`auth::authenticator` (bearertokenauth) and `user`/`password` are both set", true},
		{"x has no profile documents: profiles whose scope attribute y", "...has no profile documents: profiles whose scope attribute...", true},
		{
			"`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (mapped to sending_queue::batch::flush_timeout: 10s)",
			"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: `sending_queue::batch::sizer` is items, and `flush::bytes` counts bytes; remove `flush::bytes`)",
			false,
		},
		{"`timeout` is 0: bulk requests have no deadline, as in contrib", "`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`", false},
		{"`mapping::mode` is raw and is not ignored at all, unlike contrib", "`mapping::mode` is ecs and is ignored, as in contrib since v0.145", false},
	} {
		assert.Equal(t, tt.want, elasticsearchexporter.QuotedLineMatches(tt.line, tt.quote), "%q against %q", tt.line, tt.quote)
	}
}
