// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// Mode is a mapping mode: the layout of the documents an Encoder writes. Every mode is written
// by the same writer; a mode differs only in the fields it emits.
type Mode uint8

const (
	// ModeOTel writes the documents of Elasticsearch's OTel-native data streams. The zero Mode.
	ModeOTel Mode = iota
	// ModeECS writes Elastic Common Schema fields, de-dotted into nested objects.
	ModeECS
	// ModeNone writes the legacy flat layout, record attributes below "Attributes.".
	ModeNone
	// ModeRaw writes the legacy flat layout, record attributes at the top level.
	ModeRaw
	// ModeBodyMap writes the map body of a log record as the whole document.
	ModeBodyMap
)

// NumModes is the number of mapping modes; their values are 0 to NumModes-1, so that a
// [NumModes]T array holds one T per mode.
const NumModes = int(ModeBodyMap) + 1

// ModeNames returns the name of every mapping mode, in the order of their values, which is the
// order in which the configuration reference lists them. The caller owns the slice.
func ModeNames() []string { return slices.Clone(modeNames[:]) }

var modeNames = [...]string{ModeOTel: "otel", ModeECS: "ecs", ModeNone: "none", ModeRaw: "raw", ModeBodyMap: "bodymap"}

// ParseMode returns the mode of a lower-case name: otel, ecs, none (or its alias no), raw or
// bodymap.
func ParseMode(s string) (Mode, bool) {
	if s == "no" {
		return ModeNone, true
	}
	for m, name := range modeNames {
		if s == name {
			return Mode(m), true
		}
	}
	return ModeOTel, false
}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// SeparateSpanEvents reports whether span events are documents of their own (AppendSpanEvent),
// as in otel and ecs; none and raw write them inside the span's document.
func (m Mode) SeparateSpanEvents() bool { return m == ModeOTel || m == ModeECS }

// Supports reports whether the mode writes documents of the signal k.
func (m Mode) Supports(k signal.Kind) bool {
	switch m {
	case ModeOTel, ModeECS:
		return k < signal.Count
	case ModeNone, ModeRaw:
		return k == signal.Logs || k == signal.Traces
	case ModeBodyMap:
		return k == signal.Logs
	}
	return false
}
