// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"time"
)

// The exporter's own heap. Peak RSS above the debug exporter's is not the exporter's share
// alone: a collector whose exporter is slower than its senders holds a full sending queue and
// the requests of the senders that wait for room in it, where the debug exporter, faster than
// the generator, leaves its queue empty. So every run also takes a heap profile at the end of
// its window (the pprof extension's /debug/pprof/heap?gc=1: what is live after a collection
// run for it; without it, the profile may be two collections old, and count the batches of
// pushes that have ended)
// and splits what is in use by who allocated it, as the CPU profile is split (split.go):
// the exporter's part is its batches of encoded documents, their metadata, the bulk sessions,
// compressors, request and response buffers; the receiver's holds the requests' bodies and
// pdata, wherever they wait (receiver, queue, pushes).

// heapShare is the live heap of a run, in bytes, and the part of it that the exporter
// allocated.
type heapShare struct {
	Live     float64
	Exporter float64
}

// takeHeapProfile writes the collector's heap profile to path, through the pprof extension.
func takeHeapProfile(port int, path string) error {
	return fetchPprof(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap?gc=1", port), 30*time.Second, path)
}

// splitHeapFile reads a heap profile and returns its live bytes and the exporter's share.
func splitHeapFile(path string) (heapShare, error) {
	p, err := readProfile(path)
	if err != nil {
		return heapShare{}, err
	}
	s := splitProfileBy(p, "inuse_space", classify)
	return heapShare{Live: s.Total, Exporter: s.Parts[partExporter]}, nil
}
