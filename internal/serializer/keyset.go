// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"

	"github.com/otelcol-es/elasticsearchexporter/internal/jsonstr"
)

// keySet remembers the keys written in one object. Small objects are checked by a linear scan
// of the keys' fingerprints, comparing the keys themselves only where the fingerprints match;
// from linearMax keys on, an index map is used. All are reused between objects.
type keySet struct {
	keys []string
	// prints holds the fingerprint of each key of keys, at the same index.
	prints []uint64
	index  map[string]struct{}
}

const linearMax = 32

// fingerprint returns a word that equal keys share and different keys seldom do: a key of up
// to seven bytes with its length, a longer one its first and last eight bytes mixed with its
// length.
func fingerprint(k string) uint64 {
	if len(k) < 8 {
		f := uint64(len(k)) << 56
		for i := range len(k) {
			f |= uint64(k[i]) << (8 * i)
		}
		return f
	}
	return jsonstr.Load64(k, 0) ^ (jsonstr.Load64(k, len(k)-8)<<29 | jsonstr.Load64(k, len(k)-8)>>35) ^ uint64(len(k))<<56
}

func (s *keySet) reset() {
	s.keys = s.keys[:0]
	s.prints = s.prints[:0]
	if len(s.index) > 0 {
		clear(s.index)
	}
}

// remove forgets k, most often the last key added.
func (s *keySet) remove(k string) {
	for i, key := range slices.Backward(s.keys) {
		if key == k {
			s.keys = slices.Delete(s.keys, i, i+1)
			s.prints = slices.Delete(s.prints, i, i+1)
			break
		}
	}
	delete(s.index, k)
}

// add records k and reports whether it was new.
func (s *keySet) add(k string) bool {
	if len(s.keys) < linearMax {
		f := fingerprint(k)
		for i, g := range s.prints {
			if g == f && s.keys[i] == k {
				return false
			}
		}
		s.keys = append(s.keys, k)
		s.prints = append(s.prints, f)
		if len(s.index) > 0 {
			// Fewer than linearMax keys after removals: the index stays whole for when
			// there are more again.
			s.index[k] = struct{}{}
		}
		return true
	}
	if s.index == nil {
		s.index = make(map[string]struct{}, 2*linearMax)
	}
	if len(s.index) == 0 {
		for _, seen := range s.keys {
			s.index[seen] = struct{}{}
		}
	}
	if _, ok := s.index[k]; ok {
		return false
	}
	s.index[k] = struct{}{}
	s.keys = append(s.keys, k)
	s.prints = append(s.prints, fingerprint(k))
	return true
}
