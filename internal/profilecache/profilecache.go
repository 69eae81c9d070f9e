// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package profilecache remembers the content-addressed profiling documents (stack traces,
// stack frames, executables, hosts, and the ecs mode's symbolization queue entries) already
// written, so that each is written once within its lifetime: the pipeline asks a Cache about
// each such document the serializer names, and appends only those the Cache has not had.
//
// Each kind has a cache of its own, least recently seen first out, bounded in entries and in
// bytes (an entry counts its id's length plus entryOverhead). With Defaults:
//
//	stack traces   131072 entries  16 MiB
//	stack frames   131072 entries  16 MiB
//	executables     16384 entries   2 MiB
//	hosts           16384 entries   2 MiB
//	queue entries  131072 entries  16 MiB
//
// so at most 52 MiB in all. Queue entries are the ecs mode's symbolization queues: the ids of
// unsymbolized leaf frames and of the executables of unsymbolized frames, one cache for both
// (a frame id and a file id differ in length, so they cannot be confused). An entry lives at most Lifetime (24 hours by default) from the time
// it was recorded, however often it is seen meanwhile: a document still in use is written again
// at least once a day, into the data stream's current backing index, so that it outlives the
// deletion of old backing indices by the data stream's retention (60 days in Elasticsearch's
// profiling templates). An entry leaves earlier when the bounds push it out; its document is
// then written again the next time it is seen, which the document's content-derived _id makes a
// duplicate, not a second document. A restart forgets everything in the same way.
package profilecache // import "github.com/otelcol-es/elasticsearchexporter/internal/profilecache"

import (
	"strings"
	"sync"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// entryOverhead is what an entry costs beside its id's bytes, counted against the byte bound:
// its list node, its map slot and the string headers.
const entryOverhead = 96

// Bounds are the limits of one kind's cache.
type Bounds struct {
	Entries int
	Bytes   int
}

// Config sets the caches' bounds and the entries' lifetime.
type Config struct {
	Stacktraces, Stackframes, Executables, Hosts, Queue Bounds
	// Lifetime is how long an entry is remembered at most after it was recorded.
	Lifetime time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Defaults returns the bounds of the package comment: contrib's exporter's entry counts for
// stack traces, frames and executables (it keeps 1Mi hosts; 16Ki hosts is our choice, bounded
// in bytes like the others), and its 24-hour refresh.
func Defaults() Config {
	return Config{
		Stacktraces: Bounds{Entries: 128 << 10, Bytes: 16 << 20},
		Stackframes: Bounds{Entries: 128 << 10, Bytes: 16 << 20},
		Executables: Bounds{Entries: 16 << 10, Bytes: 2 << 20},
		Hosts:       Bounds{Entries: 16 << 10, Bytes: 2 << 20},
		Queue:       Bounds{Entries: 128 << 10, Bytes: 16 << 20},
		Lifetime:    24 * time.Hour,
	}
}

// Cache is the record of profiling documents written. It is safe for concurrent use.
type Cache struct {
	kinds [serializer.ProfileSymbolizationQueue + 1]*lru
	now   func() time.Time
	life  time.Duration
}

// New returns an empty Cache with the given configuration.
func New(cfg Config) *Cache {
	c := &Cache{now: cfg.Now, life: cfg.Lifetime}
	if c.now == nil {
		c.now = time.Now
	}
	c.kinds[serializer.ProfileStacktrace] = newLRU(cfg.Stacktraces)
	c.kinds[serializer.ProfileStackframe] = newLRU(cfg.Stackframes)
	c.kinds[serializer.ProfileExecutable] = newLRU(cfg.Executables)
	c.kinds[serializer.ProfileHost] = newLRU(cfg.Hosts)
	c.kinds[serializer.ProfileSymbolizationQueue] = newLRU(cfg.Queue)
	return c
}

// Seen reports whether the document of kind with id was recorded within the lifetime, and
// records it as written now when it was not. Kinds without a cache (events) are never seen.
func (c *Cache) Seen(kind serializer.ProfileDoc, id string) bool {
	if int(kind) >= len(c.kinds) || c.kinds[kind] == nil {
		return false
	}
	return c.kinds[kind].seen(id, c.now(), c.life)
}

// Forget drops the record of the document of kind with id, if any, so that the next profile
// that refers to it writes it again.
func (c *Cache) Forget(kind serializer.ProfileDoc, id string) {
	if int(kind) >= len(c.kinds) || c.kinds[kind] == nil {
		return
	}
	c.kinds[kind].forget(id)
}

// Len returns the number of entries and their bytes in the cache of kind.
func (c *Cache) Len(kind serializer.ProfileDoc) (entries, bytes int) {
	if int(kind) >= len(c.kinds) || c.kinds[kind] == nil {
		return 0, 0
	}
	l := c.kinds[kind]
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.index), l.bytes
}

// node is an entry of an lru, in its list, most recently seen at the front.
type node struct {
	id         string
	recorded   time.Time
	prev, next *node
}

type lru struct {
	mu     sync.Mutex
	bounds Bounds
	index  map[string]*node
	root   node // root.next is the front, root.prev the back
	bytes  int
}

func newLRU(b Bounds) *lru {
	l := &lru{bounds: b, index: make(map[string]*node)}
	l.root.next, l.root.prev = &l.root, &l.root
	return l
}

func (l *lru) seen(id string, now time.Time, life time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.index[id]; ok {
		l.unlink(n)
		l.pushFront(n)
		if now.Sub(n.recorded) < life {
			return true
		}
		n.recorded = now // expired: written again now
		return false
	}
	cost := len(id) + entryOverhead
	if l.bounds.Entries <= 0 || cost > l.bounds.Bytes {
		return false // the cache keeps nothing of this size
	}
	for len(l.index) >= l.bounds.Entries || l.bytes+cost > l.bounds.Bytes {
		back := l.root.prev
		l.unlink(back)
		delete(l.index, back.id)
		l.bytes -= len(back.id) + entryOverhead
	}
	n := &node{id: strings.Clone(id), recorded: now}
	l.index[n.id] = n
	l.pushFront(n)
	l.bytes += cost
	return false
}

func (l *lru) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.index[id]; ok {
		l.unlink(n)
		delete(l.index, id)
		l.bytes -= len(id) + entryOverhead
	}
}

func (l *lru) unlink(n *node) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}

func (l *lru) pushFront(n *node) {
	n.prev, n.next = &l.root, l.root.next
	l.root.next.prev = n
	l.root.next = n
}
