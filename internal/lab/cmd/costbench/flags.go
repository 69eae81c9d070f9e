// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseRecords reads "logs=1000,spans=1000,metrics=2500", or one number for every signal.
func parseRecords(s string) (map[string]int, error) {
	out := map[string]int{}
	if n, err := strconv.Atoi(s); err == nil {
		for _, sig := range []string{"logs", "spans", "metrics"} {
			out[sig] = n
		}
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		sig, v, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not signal=records", item)
		}
		out[sig] = n
	}
	return out, nil
}

// parseDelays reads "0s,5ms,20ms"; empty is none.
func parseDelays(s string) ([]time.Duration, error) {
	var out []time.Duration
	if s == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(item))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a duration of 0 or more", item)
		}
		out = append(out, d)
	}
	return out, nil
}

// parseCompare reads "today=.bin/otelcol-es-today", or several of them comma-separated.
func parseCompare(s string) ([]namedCollector, error) {
	var out []namedCollector
	for item := range strings.SplitSeq(s, ",") {
		name, path, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || name == "" || path == "" || strings.ContainsAny(name, "/ ") {
			return nil, fmt.Errorf("%q is not name=path", item)
		}
		out = append(out, namedCollector{Name: name, Path: path})
	}
	return out, nil
}

// parseSizes reads "50,512"; empty is none.
func parseSizes(s string) ([]int, error) {
	var out []int
	if s == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(item)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a number of records", item)
		}
		out = append(out, n)
	}
	return out, nil
}
