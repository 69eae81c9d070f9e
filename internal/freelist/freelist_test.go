// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package freelist

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListKeepsAtMostMaxItems(t *testing.T) {
	l := New[*int](2, 0)
	a, b, c := new(1), new(2), new(3)
	assert.True(t, l.Put(a, 10))
	assert.True(t, l.Put(b, 10))
	assert.False(t, l.Put(c, 10), "a third object is over maxItems")
	assert.Equal(t, 2, l.Len())
	assert.Equal(t, int64(20), l.Bytes())

	got, ok := l.Get()
	require.True(t, ok)
	assert.Same(t, b, got, "the object put last comes first")
	got, ok = l.Get()
	require.True(t, ok)
	assert.Same(t, a, got)
	_, ok = l.Get()
	assert.False(t, ok, "empty")
	assert.Equal(t, 0, l.Len())
	assert.Equal(t, int64(0), l.Bytes())
}

func TestListKeepsAtMostMaxBytes(t *testing.T) {
	l := New[*int](10, 100)
	assert.True(t, l.Put(new(1), 60))
	assert.False(t, l.Put(new(2), 41), "60 + 41 is over 100 bytes")
	assert.True(t, l.Put(new(3), 40), "60 + 40 is not")
	assert.True(t, l.Put(new(4), 0), "an object without buffers always fits while there is room for one")
	assert.Equal(t, 3, l.Len())
	assert.Equal(t, int64(100), l.Bytes())
	_, _ = l.Get()
	_, _ = l.Get()
	assert.Equal(t, int64(60), l.Bytes(), "taking an object gives its bytes back")
	assert.True(t, l.Put(new(5), 40))
}

func TestZeroListKeepsNothing(t *testing.T) {
	var l List[*int]
	assert.False(t, l.Put(new(1), 0))
	_, ok := l.Get()
	assert.False(t, ok)
}

func TestListDropsItsReference(t *testing.T) {
	l := New[*int](1, 0)
	require.True(t, l.Put(new(1), 0))
	_, _ = l.Get()
	assert.Nil(t, l.items[:1][0].v, "the slot of an object taken holds no reference")
}

// Under the race detector: objects taken and put back by many goroutines at once are each held
// by one goroutine at a time, and the list never holds more than it may.
func TestListConcurrentUse(t *testing.T) {
	const maxItems, workers, rounds = 4, 8, 2000
	l := New[*[]byte](maxItems, 4*64)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				b, ok := l.Get()
				if !ok {
					b = new(make([]byte, 0, 64))
				}
				*b = append((*b)[:0], 'x') // written while held: the race detector sees sharing
				*b = (*b)[:0]
				l.Put(b, int64(cap(*b)))
				if n := l.Len(); n > maxItems {
					t.Errorf("%d objects kept, at most %d", n, maxItems)
				}
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, l.Len(), maxItems)
	assert.LessOrEqual(t, l.Bytes(), int64(4*64))
}
