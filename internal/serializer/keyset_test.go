// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"strconv"
	"testing"
)

// TestKeySet checks keySet against a map on keys that share lengths, first and last bytes,
// across linearMax, with removals that take it back below linearMax and more adds after.
func TestKeySet(t *testing.T) {
	var keys []string
	for _, p := range []string{"", "a", "ab.", "service.", "service.name.x"} {
		for i := range 3 * linearMax {
			keys = append(keys, p+strconv.Itoa(i)+p, p+"k"+p)
		}
	}
	var s keySet
	for round := range 3 {
		s.reset()
		want := map[string]bool{}
		for i, k := range keys {
			if got := s.add(k); got != !want[k] {
				t.Fatalf("round %d: add(%q) = %v, want %v", round, k, got, !want[k])
			}
			want[k] = true
			if i%7 == 6 && round > 0 {
				last := s.keys[len(s.keys)-1]
				s.remove(last)
				delete(want, last)
				if !s.add(last) {
					t.Fatalf("round %d: add(%q) after remove = false, want true", round, last)
				}
				want[last] = true
			}
			if round == 2 && len(s.keys) == linearMax+2 {
				for range 4 {
					last := s.keys[len(s.keys)-1]
					s.remove(last)
					delete(want, last)
				}
			}
		}
	}
}
