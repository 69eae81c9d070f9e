// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package profilecache

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clock is a time the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newCache(b Bounds) (*Cache, *clock) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	return New(Config{Stacktraces: b, Stackframes: b, Executables: b, Hosts: b, Queue: b, Lifetime: time.Hour, Now: clk.now}), clk
}

func TestSeenRecordsOnce(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 10, Bytes: 1 << 20})
	assert.False(t, c.Seen(serializer.ProfileStacktrace, "a"))
	assert.True(t, c.Seen(serializer.ProfileStacktrace, "a"))
	// kinds are apart
	assert.False(t, c.Seen(serializer.ProfileStackframe, "a"))
	assert.True(t, c.Seen(serializer.ProfileStackframe, "a"))
	// events are never seen
	assert.False(t, c.Seen(serializer.ProfileEvent, "a"))
	assert.False(t, c.Seen(serializer.ProfileEvent, "a"))
}

func TestSeenCopiesID(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 10, Bytes: 1 << 20})
	b := []byte("abc")
	assert.False(t, c.Seen(serializer.ProfileHost, string(b)))
	b[0] = 'x' // the caller's bytes change; the record keeps "abc"
	assert.True(t, c.Seen(serializer.ProfileHost, "abc"))
	assert.False(t, c.Seen(serializer.ProfileHost, "xbc"))
}

func TestLifetimeFromRecording(t *testing.T) {
	c, clk := newCache(Bounds{Entries: 10, Bytes: 1 << 20})
	require.False(t, c.Seen(serializer.ProfileExecutable, "e"))
	clk.t = clk.t.Add(59 * time.Minute)
	assert.True(t, c.Seen(serializer.ProfileExecutable, "e"), "within the lifetime")
	clk.t = clk.t.Add(time.Minute)
	assert.False(t, c.Seen(serializer.ProfileExecutable, "e"), "a hit does not extend the lifetime")
	assert.True(t, c.Seen(serializer.ProfileExecutable, "e"), "recorded again when written again")
	entries, _ := c.Len(serializer.ProfileExecutable)
	assert.Equal(t, 1, entries)
}

func TestEntryBoundEvictsLeastRecentlySeen(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 3, Bytes: 1 << 20})
	for _, id := range []string{"a", "b", "c"} {
		require.False(t, c.Seen(serializer.ProfileStacktrace, id))
	}
	require.True(t, c.Seen(serializer.ProfileStacktrace, "a")) // b is now the least recent
	require.False(t, c.Seen(serializer.ProfileStacktrace, "d"))
	assert.False(t, c.Seen(serializer.ProfileStacktrace, "b"), "evicted") // evicts c
	assert.True(t, c.Seen(serializer.ProfileStacktrace, "a"))
	assert.True(t, c.Seen(serializer.ProfileStacktrace, "d"))
	entries, bytes := c.Len(serializer.ProfileStacktrace)
	assert.Equal(t, 3, entries)
	assert.Equal(t, 3*(1+entryOverhead), bytes)
}

func TestByteBound(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 1000, Bytes: 2*(22+entryOverhead) + 10})
	for i := range 5 {
		require.False(t, c.Seen(serializer.ProfileStackframe, fmt.Sprintf("%022d", i)))
		_, bytes := c.Len(serializer.ProfileStackframe)
		assert.LessOrEqual(t, bytes, 2*(22+entryOverhead)+10)
	}
	entries, _ := c.Len(serializer.ProfileStackframe)
	assert.Equal(t, 2, entries)
	assert.True(t, c.Seen(serializer.ProfileStackframe, fmt.Sprintf("%022d", 4)))
	assert.False(t, c.Seen(serializer.ProfileStackframe, fmt.Sprintf("%022d", 0)))
	// an id larger than the whole bound is never kept, and pushes nothing out
	assert.False(t, c.Seen(serializer.ProfileStackframe, string(make([]byte, 400))))
	entries, _ = c.Len(serializer.ProfileStackframe)
	assert.Equal(t, 2, entries)
}

func TestDefaults(t *testing.T) {
	d := Defaults()
	assert.Equal(t, 24*time.Hour, d.Lifetime)
	total := d.Stacktraces.Bytes + d.Stackframes.Bytes + d.Executables.Bytes + d.Hosts.Bytes + d.Queue.Bytes
	assert.Equal(t, 52<<20, total)
	c := New(d)
	for _, kind := range []serializer.ProfileDoc{serializer.ProfileHost, serializer.ProfileSymbolizationQueue} {
		assert.False(t, c.Seen(kind, "h"), kind)
		assert.True(t, c.Seen(kind, "h"), kind)
	}
	assert.False(t, c.Seen(serializer.ProfileEvent, "h"))
	assert.False(t, c.Seen(serializer.ProfileEvent, "h"), "events are never recorded")
}

func TestConcurrentSeen(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 64, Bytes: 1 << 20})
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := map[string]int{}
	for range 4 {
		wg.Go(func() {
			for i := range 32 {
				id := strconv.Itoa(i)
				if !c.Seen(serializer.ProfileStacktrace, id) {
					mu.Lock()
					firsts[id]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i := range 32 {
		assert.Equal(t, 1, firsts[strconv.Itoa(i)], "id %d recorded once", i)
	}
}

func TestForget(t *testing.T) {
	c, _ := newCache(Bounds{Entries: 10, Bytes: 1 << 20})
	require.False(t, c.Seen(serializer.ProfileStacktrace, "a"))
	require.False(t, c.Seen(serializer.ProfileStacktrace, "b"))
	c.Forget(serializer.ProfileStacktrace, "a")
	c.Forget(serializer.ProfileStacktrace, "never")
	c.Forget(serializer.ProfileEvent, "a")
	n, bytes := c.Len(serializer.ProfileStacktrace)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1+entryOverhead, bytes)
	assert.False(t, c.Seen(serializer.ProfileStacktrace, "a"), "forgotten: written again")
	assert.True(t, c.Seen(serializer.ProfileStacktrace, "b"))
}
