// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer

import (
	"testing"

	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		ok   bool
	}{
		{in: "otel", want: ModeOTel, ok: true},
		{in: "ecs", want: ModeECS, ok: true},
		{in: "none", want: ModeNone, ok: true},
		{in: "no", want: ModeNone, ok: true},
		{in: "raw", want: ModeRaw, ok: true},
		{in: "bodymap", want: ModeBodyMap, ok: true},
		{in: "ECS", want: ModeOTel},
		{in: "", want: ModeOTel},
		{in: "dedot", want: ModeOTel},
	}
	for _, tt := range tests {
		got, ok := ParseMode(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseMode(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && tt.in != "no" && got.String() != tt.in {
			t.Errorf("ParseMode(%q).String() = %q", tt.in, got.String())
		}
	}
	if s := Mode(200).String(); s != "unknown" {
		t.Errorf("Mode(200).String() = %q, want unknown", s)
	}
}

func TestModeSupports(t *testing.T) {
	tests := []struct {
		mode                   Mode
		logs, traces, metrics  bool
		profiles               bool
		separateSpanEventsDocs bool
	}{
		{mode: ModeOTel, logs: true, traces: true, metrics: true, profiles: true, separateSpanEventsDocs: true},
		{mode: ModeECS, logs: true, traces: true, metrics: true, profiles: true, separateSpanEventsDocs: true},
		{mode: ModeNone, logs: true, traces: true},
		{mode: ModeRaw, logs: true, traces: true},
		{mode: ModeBodyMap, logs: true},
	}
	for _, tt := range tests {
		for k, want := range map[signal.Kind]bool{signal.Logs: tt.logs, signal.Traces: tt.traces, signal.Metrics: tt.metrics, signal.Profiles: tt.profiles} {
			if got := tt.mode.Supports(k); got != want {
				t.Errorf("%v.Supports(%s) = %v, want %v", tt.mode, k, got, want)
			}
		}
		if got := tt.mode.SeparateSpanEvents(); got != tt.separateSpanEventsDocs {
			t.Errorf("%v.SeparateSpanEvents() = %v, want %v", tt.mode, got, tt.separateSpanEventsDocs)
		}
	}
}
