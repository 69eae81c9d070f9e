// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package pvalue answers, in bounded stack depth, questions about pdata values that pdata itself
// answers by recursing once per level of nesting: how deep a value nests, and its string form.
// Values built inside the collector (by processors and connectors) can nest maps and slices
// without limit.
package pvalue // import "github.com/otelcol-es/elasticsearchexporter/internal/pvalue"

import "go.opentelemetry.io/collector/pdata/pcommon"

// MaxNesting is how deep a map or a slice may nest for AsString to convert it as pdata does.
const MaxNesting = 100

// Deeper reports whether v nests more than n levels deep: a scalar nests 0 levels deep, and a
// map or a slice one level deeper than the deepest value it holds (an empty one 1 level). It
// descends at most n+1 levels into v.
func Deeper(v pcommon.Value, n int) bool {
	switch v.Type() {
	case pcommon.ValueTypeMap:
		if n <= 0 {
			return true
		}
		for _, el := range v.Map().All() {
			if Deeper(el, n-1) {
				return true
			}
		}
	case pcommon.ValueTypeSlice:
		if n <= 0 {
			return true
		}
		for _, el := range v.Slice().All() {
			if Deeper(el, n-1) {
				return true
			}
		}
	}
	return false
}

// AsString returns v.AsString(), except for a map or a slice nested more than MaxNesting levels
// deep, which pdata would convert by recursion: that converts to its type name, "Map" or
// "Slice".
func AsString(v pcommon.Value) string {
	if Deeper(v, MaxNesting) {
		return v.Type().String()
	}
	return v.AsString()
}
