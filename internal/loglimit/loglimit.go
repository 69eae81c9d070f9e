// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package loglimit rate-limits log lines: one per period, with the count of the lines held back.
package loglimit // import "github.com/otelcol-es/elasticsearchexporter/internal/loglimit"

import (
	"sync"
	"time"
)

// Limiter lets one log line through per period and counts the lines it held back. It is
// safe for concurrent use.
type Limiter struct {
	mu         sync.Mutex
	every      time.Duration
	last       time.Time
	suppressed int
}

// New returns a Limiter that allows one line per period; 0 allows every line.
func New(every time.Duration) *Limiter { return &Limiter{every: every} }

// Allow reports whether a line may be logged now, and how many were held back since the last
// one that was.
func (l *Limiter) Allow() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.suppressed++
		return 0, false
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return n, true
}
