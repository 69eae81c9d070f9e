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
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	    250000 events/s	  134000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	    270000 events/s	  136000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=push-2         	     379	   4000000 ns/op	  98.46 MB/s	    900000 events/s	  138000 B/op	    5000 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=serializer-2   	    1023	   1463019 ns/op	 269.91 MB/s	    500000 events/s	       0 B/op	       0 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=gzip-2         	    1023	   1463019 ns/op	 269.91 MB/s	    750000 events/s	       0 B/op	       0 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=otlpjson-2     	    1023	   1463019 ns/op	 269.91 MB/s	    400000 events/s	       0 B/op	       3 allocs/op
BenchmarkPush/signal=logs/records=1000/impl=otlpproto-2    	    1023	   1463019 ns/op	 269.91 MB/s	   2700000 events/s	       0 B/op	       1 allocs/op
BenchmarkPushParallel/signal=spans/records=10/impl=push-2  	     346	   4018926 ns/op	  98.26 MB/s	    100000 events/s	   13590 B/op	      52 allocs/op
BenchmarkEncodeLogs/records=10/impl=ours-2                 	  100000	     12000 ns/op	    800000 events/s	       0 B/op	       0 allocs/op
PASS
`

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(strings.NewReader(input), &out))
	got := out.String()
	assert.Contains(t, got, "GOMAXPROCS=2, Test CPU @ 2.00GHz")
	// Medians: push 270k; ratios against 500k, 400k and 2.7M; a ceiling of
	// 750k/(500k+750k) = 0.60; 136000 B and 5000 allocs per 1,000 documents.
	assert.Contains(t, got, "| logs | 1000 | 270k | 500k | 750k | 400k | 2700k | 0.54 | 0.60 | 0.68 | 0.10 | 136.00 | 5.00 |")
	// A row without baselines still prints the push rate.
	assert.Contains(t, got, "| spans | 10 | 100k | – | – | – | – | – | – | – | – | 1359.00 | 5.20 |")
	assert.NotContains(t, got, "ours")
}

func TestRunWithoutResults(t *testing.T) {
	var out strings.Builder
	require.Error(t, run(strings.NewReader("PASS\n"), &out))
}
