// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"strconv"
	"testing"
)

// BenchmarkSend measures Send of small documents (about 400 bytes each) at gzip level 1,
// against an in-memory stub: adding the documents to the bulk request, compressing it and
// decoding the response (response=items). response=none measures the same without the
// response's items (see stubClient): an upper bound of what faster response decoding could
// give, not a way to run.
func BenchmarkSend(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, noItems := range []bool{false, true} {
			response := "items"
			if noItems {
				response = "none"
			}
			b.Run("docs="+strconv.Itoa(n)+"/response="+response, func(b *testing.B) {
				benchmarkSend(b, n, noItems)
			})
		}
	}
}

// BenchmarkSendSmallPushes measures many pushes of 50 documents at once (8 per GOMAXPROCS)
// under a cap of 2 bulk requests in flight, as a sending queue's consumers send them: the
// pushes that wait for a slot share a request.
func BenchmarkSendSmallPushes(b *testing.B) {
	b.SetParallelism(8)
	benchmarkSendWith(b, 50, false, ConcurrencyConfig{Max: 2})
}
