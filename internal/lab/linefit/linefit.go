// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package linefit fits a straight line through measurements: the benchmark tools read a fixed
// cost per request as the intercept of cost against documents per request, and a memory
// growth as the slope of RSS against time.
package linefit // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/linefit"

// Fit returns the intercept and slope of the least-squares line through the points (xs[i],
// ys[i]). ok is false when there are fewer than two points or every x is the same.
func Fit(xs, ys []float64) (intercept, slope float64, ok bool) {
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0, 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, 0, false
	}
	slope = sxy / sxx
	return my - slope*mx, slope, true
}
