// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import "slices"

// keySet remembers the keys written in one object. Small objects are checked by a linear scan;
// from linearMax keys on, an index map is used. Both are reused between objects.
type keySet struct {
	keys  []string
	index map[string]struct{}
}

const linearMax = 16

func (s *keySet) reset() {
	s.keys = s.keys[:0]
	if len(s.index) > 0 {
		clear(s.index)
	}
}

// remove forgets k, most often the last key added.
func (s *keySet) remove(k string) {
	for i, key := range slices.Backward(s.keys) {
		if key == k {
			s.keys = slices.Delete(s.keys, i, i+1)
			break
		}
	}
	delete(s.index, k)
}

// add records k and reports whether it was new.
func (s *keySet) add(k string) bool {
	if len(s.keys) < linearMax {
		if slices.Contains(s.keys, k) {
			return false
		}
		s.keys = append(s.keys, k)
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
	return true
}
