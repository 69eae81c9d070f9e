// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const input = `goos: linux
cpu: Test CPU @ 2.00GHz
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	  3000 cpu-ns/event	    250000 events/s	  134000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	  2500 cpu-ns/event	    270000 events/s	  136000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	  1000 cpu-ns/event	    900000 events/s	  138000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=serializer-2   	    1023	   1463019 ns/op	 269.91 MB/s	  1250 cpu-ns/event	    500000 events/s	       0 B/op	       0 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=gzip-2         	    1023	   1463019 ns/op	 269.91 MB/s	   750 cpu-ns/event	    750000 events/s	       0 B/op	       0 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=otlpjson-2     	    1023	   1463019 ns/op	 269.91 MB/s	  1500 cpu-ns/event	    400000 events/s	       0 B/op	       3 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=otlpproto-2    	    1023	   1463019 ns/op	 269.91 MB/s	   250 cpu-ns/event	   2700000 events/s	       0 B/op	       1 allocs/op
BenchmarkPush/signal=logs/corpus=realistic/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	  3100 cpu-ns/event	    250000 events/s	  134000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/corpus=realistic/records=1000/impl=serializer-2   	    1023	   1463019 ns/op	 269.91 MB/s	  1000 cpu-ns/event	    500000 events/s	       0 B/op	       0 allocs/op
BenchmarkRequestCost/corpus=realistic/records=1/impl=push-2         	    2000	    203448 ns/op	    120000 cpu-ns/req	   13048 B/op	     137 allocs/op
BenchmarkPushParallel/signal=spans/records=10/impl=push-2  	     346	   4018926 ns/op	  98.26 MB/s	    100000 events/s	   13590 B/op	      52 allocs/op
BenchmarkPushParallel/signal=spans/records=10/impl=serializer-2  	     346	   4018926 ns/op	  98.26 MB/s	    400000 events/s	   0 B/op	      0 allocs/op
BenchmarkEncodeLogs/records=10/impl=ours-2                 	  100000	     12000 ns/op	    800000 events/s	       0 B/op	       0 allocs/op
BenchmarkRequestCost/records=1/impl=push-2         	    2000	    203448 ns/op	    110000 cpu-ns/req	   13048 B/op	     137 allocs/op
BenchmarkRequestCost/records=1/impl=post-2         	    2000	     91692 ns/op	     60000 cpu-ns/req	    5071 B/op	      64 allocs/op
BenchmarkRequestCost/records=10/impl=push-2        	    2000	    200310 ns/op	    119000 cpu-ns/req	   13162 B/op	     146 allocs/op
BenchmarkRequestCost/records=10/impl=post-2        	    2000	    158212 ns/op	     60000 cpu-ns/req	    5143 B/op	      64 allocs/op
BenchmarkRequestCost/records=100/impl=push-2       	    2000	    318395 ns/op	    209000 cpu-ns/req	   14135 B/op	     236 allocs/op
BenchmarkRequestCost/records=100/impl=post-2       	    2000	    121857 ns/op	     60000 cpu-ns/req	    5096 B/op	      64 allocs/op
PASS
`

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(strings.NewReader(input), &out))
	got := out.String()
	assert.Contains(t, got, "GOMAXPROCS=2, Test CPU @ 2.00GHz")
	// Medians: push 270k/s and 2,500 ns per document; ratios of CPU per document against
	// 1,250, 1,500 and 250 ns; a ceiling of 1250/(1250+750) = 0.62; 2500/(1250+750) = 1.25
	// for encoding and gzip; 136000 B and 5000 allocs per 1,000 documents.
	assert.Contains(t, got, "| logs | 1000 | 270k | 2500 | 1250 | 750 | 1500 | 250 | 0.50 | 0.62 | 1.25 | 0.60 | 0.10 | 136.00 | 5.00 |")
	// Without cpu-ns/event, the ratios come from events/s.
	assert.Contains(t, got, "| spans | 10 | 100k | 10000 | 2500 | – | – | – | 0.25 | – | – | – | – | 1359.00 | 5.20 |")
	assert.NotContains(t, got, "ours")
	// Fixed cost: push 110, 119, 209 µs at 1, 10, 100 records: 1 µs and 1 allocation per
	// document on top of 109 µs and 136 allocations; the bare POST is flat at 60 µs and 64.
	assert.Contains(t, got, "| impl | CPU µs @1 | CPU µs @10 | CPU µs @100 | fixed CPU µs | CPU µs/doc | allocs @1 | allocs @10 | allocs @100 | fixed allocs | allocs/doc |")
	assert.Contains(t, got, "| push | 110.0 | 119.0 | 209.0 | 109.0 | 1.00 | 137 | 146 | 236 | 136 | 1.00 |")
	assert.Contains(t, got, "| post | 60.0 | 60.0 | 60.0 | 60.0 | 0.00 | 64 | 64 | 64 | 64 | 0.00 |")
	// A corpus names its own rows.
	assert.Contains(t, got, "| logs, realistic | 1000 | 250k | 3100 | 1000 | – | – | – | 0.32 |")
	assert.Contains(t, got, "| push, realistic | 120.0 | – | – |")
}

func TestRunWithoutResults(t *testing.T) {
	var out strings.Builder
	require.Error(t, run(strings.NewReader("PASS\n"), &out))
}
