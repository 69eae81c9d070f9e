// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"strconv"
)

// jsonScanner reads the JSON of a bulk response without decoding it.
type jsonScanner struct {
	src []byte
	i   int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c, after white space, when it comes next.
func (s *jsonScanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i < len(s.src) {
		return s.src[s.i]
	}
	return 0
}

// str reads a string and returns its content as written, escapes not decoded.
func (s *jsonScanner) str() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '"':
			s.i++
			return s.src[start : s.i-1], true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return nil, false
		default:
			s.i++
		}
	}
	return nil, false
}

// skip reads any value; nesting deeper than maxItemNesting is refused.
func (s *jsonScanner) skip(depth int) bool {
	if depth > maxItemNesting {
		return false
	}
	switch s.peek() {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		s.i++
		for n := 0; !s.eat('}'); n++ {
			if n > 0 && !s.eat(',') {
				return false
			}
			if _, ok := s.str(); !ok || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
		}
		return true
	case '[':
		s.i++
		for n := 0; !s.eat(']'); n++ {
			if n > 0 && !s.eat(',') {
				return false
			}
			if !s.skip(depth + 1) {
				return false
			}
		}
		return true
	}
	_, _, ok := s.scalar()
	return ok
}

// scalar reads a number, true, false or null, and returns the value of an integer that fits
// in an int.
func (s *jsonScanner) scalar() (n int, isInt, ok bool) {
	start := s.i
	for s.i < len(s.src) {
		c := s.src[s.i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && c != '-' && c != '+' && c != '.' && c != 'E' {
			break
		}
		s.i++
	}
	lit := s.src[start:s.i]
	switch string(lit) {
	case "":
		return 0, false, false
	case "true", "false", "null":
		return 0, false, true
	}
	v, err := strconv.ParseInt(string(lit), 10, 32)
	if err == nil {
		return int(v), true, true
	}
	_, err = strconv.ParseFloat(string(lit), 64)
	return 0, false, err == nil
}

// item reads an item of the items array.
func (s *jsonScanner) item() (responseItem, bool) {
	var it responseItem
	if s.peek() != '{' {
		return it, s.skip(1)
	}
	it.object = true
	s.i++
	for ; !s.eat('}'); it.actions++ {
		if it.actions > 0 && !s.eat(',') {
			return it, false
		}
		action, ok := s.str()
		if !ok || !s.eat(':') {
			return it, false
		}
		if it.actions > 0 || s.peek() != '{' {
			if !s.skip(2) {
				return it, false
			}
			continue
		}
		it.action, it.inner = action, true
		s.i++
		for n := 0; !s.eat('}'); n++ {
			if n > 0 && !s.eat(',') {
				return it, false
			}
			key, ok := s.str()
			if !ok || !s.eat(':') {
				return it, false
			}
			switch string(key) {
			case "status":
				if s.peek() == '"' || s.peek() == '{' || s.peek() == '[' {
					it.hasStatus, it.status = true, -1
					if !s.skip(3) {
						return it, false
					}
					continue
				}
				start := s.i
				v, isInt, ok := s.scalar()
				switch {
				case !ok:
					return it, false
				case string(s.src[start:s.i]) == "null":
					it.hasStatus = false
				case isInt:
					it.hasStatus, it.status = true, v
				default:
					it.hasStatus, it.status = true, -1
				}
			case "failure_store":
				if s.peek() == '"' {
					v, ok := s.str()
					if !ok {
						return it, false
					}
					switch string(v) {
					case failureStoreUsed:
						it.failureStore = failureStoreUsed
					case failureStoreFailed:
						it.failureStore = failureStoreFailed
					case failureStoreNotEnabled:
						it.failureStore = failureStoreNotEnabled
					}
					continue
				}
				if !s.skip(3) {
					return it, false
				}
			case "error":
				it.hasError = true
				if !s.skip(3) {
					return it, false
				}
			default:
				if !s.skip(3) {
					return it, false
				}
			}
		}
	}
	return it, true
}
