// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// hintSet is the set of mapping hints of a data point.
type hintSet uint8

const (
	hasAggregateMetricDouble hintSet = 1 << iota
	hasDocCount
	hasHistogramRaw
	hasNoIndex
)

// NoIndex reports whether attrs carry the _noindex mapping hint: the record, span, span event
// or data point is not indexed, and is counted as skipped.
func NoIndex(attrs pcommon.Map) bool { return hintsOf(attrs)&hasNoIndex != 0 }

// hintsOf reads the mapping hints attribute once; unknown hints are ignored.
func hintsOf(attrs pcommon.Map) hintSet {
	v, ok := attrs.Get(controlattr.MappingHints)
	if !ok {
		return 0
	}
	return hintsOfValue(v)
}

// hintsOfValue reads the hints of the value of the mapping hints attribute.
func hintsOfValue(v pcommon.Value) hintSet {
	if v.Type() != pcommon.ValueTypeSlice {
		return 0
	}
	var h hintSet
	s := v.Slice()
	for i := range s.Len() {
		if hv := s.At(i); hv.Type() == pcommon.ValueTypeStr {
			switch hv.Str() {
			case controlattr.HintAggregateMetricDouble:
				h |= hasAggregateMetricDouble
			case controlattr.HintDocCount:
				h |= hasDocCount
			case controlattr.HintHistogramRaw:
				h |= hasHistogramRaw
			case controlattr.HintNoIndex:
				h |= hasNoIndex
			}
		}
	}
	return h
}
