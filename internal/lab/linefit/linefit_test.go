// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package linefit

import (
	"math"
	"testing"
)

func TestFit(t *testing.T) {
	tests := []struct {
		name          string
		xs, ys        []float64
		intercept, sl float64
		ok            bool
	}{
		{name: "exact line", xs: []float64{1, 10, 100}, ys: []float64{205, 250, 700}, intercept: 200, sl: 5, ok: true},
		{name: "flat", xs: []float64{0, 60, 120}, ys: []float64{98, 98, 98}, intercept: 98, sl: 0, ok: true},
		{name: "noisy points", xs: []float64{0, 1, 2, 3}, ys: []float64{1, 2, 2, 3}, intercept: 1.1, sl: 0.6, ok: true},
		{name: "one point", xs: []float64{1}, ys: []float64{2}},
		{name: "one x", xs: []float64{3, 3, 3}, ys: []float64{1, 2, 3}},
		{name: "lengths differ", xs: []float64{1, 2, 3}, ys: []float64{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, ok := Fit(tt.xs, tt.ys)
			if ok != tt.ok || math.Abs(a-tt.intercept) > 1e-9 || math.Abs(b-tt.sl) > 1e-9 {
				t.Fatalf("Fit = %v, %v, %v; want %v, %v, %v", a, b, ok, tt.intercept, tt.sl, tt.ok)
			}
		})
	}
}
