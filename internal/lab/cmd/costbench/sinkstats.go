// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
)

// sinkCounters are the counters that the bulk sink's and the OTLP sink's stats share (same
// names in JSON, TestSinkCounters), so that a run reads either sink alike.
type sinkCounters struct {
	Documents int64 `json:"documents"`
	Requests  int64 `json:"requests"`
	BodyBytes int64 `json:"body_bytes"`
	RawBytes  int64 `json:"raw_bytes"`
	CPUNanos  int64 `json:"cpu_nanos"`
	// Encodings counts the bulk requests by Content-Encoding (the bulk sink only).
	Encodings map[string]int64 `json:"encodings,omitempty"`
}

// bodyEncoding names the Content-Encoding of the bulk requests counted between two readings of
// the bulk sink's Encodings: the one name when all had the same ("gzip", "snappy", "none"),
// else each with its count, the most first ("snappy 412, gzip 3"); empty when there were none.
func bodyEncoding(before, after map[string]int64) string {
	type count struct {
		name string
		n    int64
	}
	var counts []count
	for name, n := range after {
		if d := n - before[name]; d > 0 {
			counts = append(counts, count{name, d})
		}
	}
	slices.SortFunc(counts, func(a, b count) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return strings.Compare(a.name, b.name)
	})
	if len(counts) == 1 {
		return counts[0].name
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = c.name + " " + strconv.FormatInt(c.n, 10)
	}
	return strings.Join(parts, ", ")
}

// counter reads what a destination took: documents, bytes and its CPU time.
type counter interface{ stats() (sinkCounters, error) }

// httpSink is the URL of the bulk sink or the OTLP sink, read through their stats.
type httpSink string

func (u httpSink) stats() (sinkCounters, error) { return sinkStats(string(u)) }

func sinkStats(url string) (sinkCounters, error) {
	var s sinkCounters
	resp, err := http.Get(url + bulksink.StatsPath)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// captureBody asks the sink to keep the next bulk body and returns it, uncompressed.
func captureBody(url string) ([]byte, error) {
	resp, err := http.Post(url+bulksink.CapturePath, "", http.NoBody)
	if err != nil {
		return nil, err
	}
	_ = resp.Body.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(url + bulksink.CapturePath)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusOK {
			return body, nil
		}
	}
	return nil, errors.New("the sink captured no bulk body within 30 s")
}

// fetchProfile takes a CPU profile of d through the pprof extension and writes it to path.
func fetchProfile(port int, d time.Duration, path string) error {
	return fetchPprof(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", port, int(d.Seconds())), d+30*time.Second, path)
}

// fetchPprof gets a profile from url within timeout and writes it to path.
func fetchPprof(url string, timeout time.Duration, path string) error {
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
