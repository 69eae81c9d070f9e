// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// MappingModeMetadataKey is the client metadata key that selects the mapping mode of a request.
// Client metadata keys are case-insensitive.
const MappingModeMetadataKey = "x-elastic-mapping-mode"

// Error types of records rejected for their mapping mode.
const (
	errorTypeInvalidMode = "invalid_mapping_mode"
	// ErrorTypeUnsupportedMode is the error.type of records whose mapping mode has no
	// documents of their signal.
	ErrorTypeUnsupportedMode = "unsupported_mapping_mode"
)

// modeNames lists the name of every mapping mode, in documentation order.
var modeNames = serializer.ModeNames()

// modeError tells why the records of a scope cannot be written in the mapping mode they ask for.
type modeError struct {
	errorType string
	msg       string
}

func (e *modeError) Error() string { return e.msg }

// DefaultMode returns the mapping mode of the records that neither a scope attribute nor the
// client metadata give a mode, as contrib chooses it: otel when mapping::allowed_modes lists it,
// else the first mode that it lists. mapping::mode plays no part, as in contrib since v0.145.
func DefaultMode(allowedModes []string) serializer.Mode {
	if slices.Contains(allowedModes, serializer.ModeOTel.String()) {
		return serializer.ModeOTel
	}
	for _, name := range allowedModes {
		if mode, ok := serializer.ParseMode(name); ok {
			return mode
		}
	}
	return serializer.ModeOTel // no mode listed: refused by Validate
}

// parseModes returns the modes listed in mapping::allowed_modes, which Validate has checked,
// and the default mode.
func parseModes(allowedModes []string) (allowed [serializer.NumModes]bool, defaultMode serializer.Mode) {
	for _, name := range allowedModes {
		if mode, ok := serializer.ParseMode(name); ok {
			allowed[mode] = true
		}
	}
	return allowed, DefaultMode(allowedModes)
}

// modes resolves the mapping mode of each scope of one request: the scope attribute
// elastic.mapping.mode, else the request's client metadata X-Elastic-Mapping-Mode, else the
// default mode (DefaultMode). A mode must be listed in mapping::allowed_modes and support the
// signal.
type modes struct {
	allowed      [serializer.NumModes]bool
	request      serializer.Mode
	requestError error // the request's metadata names a mode that cannot be used
	signal       signal.Kind
}

// newModes reads the request's mode from the client metadata of ctx.
func (p *Pipeline) newModes(ctx context.Context, sig signal.Kind) modes {
	m := modes{signal: sig, allowed: p.allowedModes, request: p.defaultMode}
	values := client.FromContext(ctx).Metadata.Get(MappingModeMetadataKey)
	switch len(values) {
	case 0:
		m.requestError = m.supported(m.request)
	case 1:
		m.request, m.requestError = m.check(values[0], "client metadata "+MappingModeMetadataKey)
	default:
		m.requestError = &modeError{
			errorType: errorTypeInvalidMode,
			msg:       fmt.Sprintf("client metadata %s has %d values %q; it must have one", MappingModeMetadataKey, len(values), values),
		}
	}
	return m
}

// check parses a mode name from source and checks that it is allowed and supports the signal.
func (m *modes) check(name, source string) (serializer.Mode, error) {
	mode, ok := serializer.ParseMode(strings.ToLower(strings.TrimSpace(name)))
	if !ok {
		return mode, &modeError{
			errorType: errorTypeInvalidMode,
			msg:       fmt.Sprintf("%s names mapping mode %q, which does not exist; valid: %s", source, name, strings.Join(modeNames, ", ")),
		}
	}
	if !m.allowed[mode] {
		return mode, &modeError{
			errorType: errorTypeInvalidMode,
			msg:       fmt.Sprintf("%s names mapping mode %q, which mapping::allowed_modes does not list", source, name),
		}
	}
	return mode, m.supported(mode)
}

func (m *modes) supported(mode serializer.Mode) error {
	if mode.Supports(m.signal) {
		return nil
	}
	return &modeError{
		errorType: ErrorTypeUnsupportedMode,
		msg:       fmt.Sprintf("mapping mode %s does not support %s", mode, m.signal),
	}
}

// scope returns the mapping mode of the records of a scope with the given attributes.
func (m *modes) scope(attrs pcommon.Map) (serializer.Mode, error) {
	if v, ok := attrs.Get(controlattr.MappingMode); ok {
		return m.check(pvalue.AsString(v), "scope attribute "+controlattr.MappingMode)
	}
	return m.request, m.requestError
}
