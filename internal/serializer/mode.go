// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

// Mode is a mapping mode: the layout of the documents written.
type Mode uint8

// The mapping modes. The zero value is otel.
const (
	ModeOTel Mode = iota
	ModeECS
	ModeNone
	ModeRaw
	ModeBodyMap
)

var modeNames = [...]string{ModeOTel: "otel", ModeECS: "ecs", ModeNone: "none", ModeRaw: "raw", ModeBodyMap: "bodymap"}

// ParseMode returns the mode of a lower-case name; "no" is an alias of none.
func ParseMode(s string) (Mode, bool) {
	if s == "no" {
		return ModeNone, true
	}
	for m, name := range modeNames {
		if name == s {
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

// SeparateSpanEvents reports whether span events are documents of their own (otel, ecs) rather
// than fields of their span's document (none, raw).
func (m Mode) SeparateSpanEvents() bool { return m == ModeOTel || m == ModeECS }

// Supports reports whether the mode writes documents of a signal: "logs", "traces" or
// "metrics".
func (m Mode) Supports(signal string) bool {
	return m == ModeOTel && signal != ""
}

// SetMode sets the mode of the documents written next; call it before SetResource and SetScope.
func (e *Encoder) SetMode(Mode) {}

// Rejection returns why the last Append call wrote nothing, or "" when it wrote a document.
func (e *Encoder) Rejection() string { return "" }
