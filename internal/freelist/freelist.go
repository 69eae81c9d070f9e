// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package freelist keeps reusable objects that hold large buffers (a push's batch, a bulk
// session's gzip writer and buffers) between the operations that use them.
//
// A sync.Pool is emptied by the garbage collector: an object survives at most two collections
// in it. Under load a collector runs tens of collections a second, driven by its receivers'
// allocations, so a pooled object is rarely there when the next push wants it, and the push
// grows its multi-megabyte buffers from nothing again. A List keeps what it is given, up to a
// number of objects (the number of pushes that run at once, sending_queue::num_consumers) and
// a number of bytes of their buffers, until it is taken again.
package freelist // import "github.com/otelcol-es/elasticsearchexporter/internal/freelist"

import "sync"

// List is a bounded last-in, first-out list of objects kept for reuse. It is safe for
// concurrent use. The zero value keeps nothing.
type List[T any] struct {
	mu       sync.Mutex
	items    []entry[T]
	maxItems int
	maxBytes int64
	bytes    int64
}

type entry[T any] struct {
	v    T
	size int64
}

// New returns a List that keeps at most maxItems objects whose sizes, as given to Put, add up
// to at most maxBytes; maxBytes 0 or less leaves the bytes unbounded.
func New[T any](maxItems int, maxBytes int64) *List[T] {
	return &List[T]{items: make([]entry[T], 0, max(maxItems, 0)), maxItems: maxItems, maxBytes: maxBytes}
}

// Get takes the object put last, or returns false when the list is empty.
func (l *List[T]) Get() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.items)
	if n == 0 {
		var zero T
		return zero, false
	}
	e := l.items[n-1]
	l.items[n-1] = entry[T]{} // no reference kept
	l.items = l.items[:n-1]
	l.bytes -= e.size
	return e.v, true
}

// Put keeps v, which holds size bytes of buffers, and reports whether it did: it does not when
// the list holds maxItems objects already, or when v would take the bytes kept over maxBytes.
// The caller resets v before Put; an object not kept is left to the garbage collector.
func (l *List[T]) Put(v T, size int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) >= l.maxItems || (l.maxBytes > 0 && l.bytes+size > l.maxBytes) {
		return false
	}
	l.items = append(l.items, entry[T]{v: v, size: size})
	l.bytes += size
	return true
}

// Len returns the number of objects kept.
func (l *List[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.items)
}

// Bytes returns the sum of the sizes of the objects kept.
func (l *List[T]) Bytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}
