// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"math/rand/v2"
	"testing"
)

// TestSortRefOrder checks that the packed ranks of sortRef order keys as compareKeys does
// whenever they differ, for keys of bytes around '.'.
func TestSortRefOrder(t *testing.T) {
	alphabet := []byte{0, ' ', ',', '-', '.', '/', '0', 'a', 'z', 0x7f, 0x80, 0xc3, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() string {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 200000 {
		a, b := key(), key()
		ra, rb := newSortRef(a, 0), newSortRef(b, 0)
		want := compareKeys(a, b)
		var got int
		switch {
		case ra.hi != rb.hi:
			got = cmpUint(ra.hi, rb.hi)
		case ra.lo != rb.lo:
			got = cmpUint(ra.lo, rb.lo)
		default:
			continue
		}
		if got != want {
			t.Fatalf("keys %q and %q: packed ranks compare %d, compareKeys %d", a, b, got, want)
		}
	}
}

func cmpUint(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}
