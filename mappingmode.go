// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// mappingModeMetadataKey is the client metadata key that selects the mapping mode of a request.
// Client metadata keys are case-insensitive.
const mappingModeMetadataKey = "x-elastic-mapping-mode"

// Error types of records rejected for their mapping mode.
const (
	errorTypeInvalidMode     = "invalid_mapping_mode"
	errorTypeUnsupportedMode = "unsupported_mapping_mode"
)

// modeError tells why the records of a scope cannot be written in the mapping mode they ask for.
type modeError struct {
	errorType string
	msg       string
}

func (e *modeError) Error() string { return e.msg }

// modes resolves the mapping mode of each scope of one request: the scope attribute
// elastic.mapping.mode, else the request's client metadata X-Elastic-Mapping-Mode, else
// mapping::mode. A mode must be listed in mapping::allowed_modes and support the signal.
type modes struct {
	allowed      [len(modeList)]bool
	request      serializer.Mode
	requestError error // the request's metadata names a mode that cannot be used
	signal       string
}

// modeList is every mode, indexed by its value.
var modeList = [...]serializer.Mode{
	serializer.ModeOTel, serializer.ModeECS, serializer.ModeNone, serializer.ModeRaw, serializer.ModeBodyMap,
}

// parseModes returns the modes listed in mapping::allowed_modes and mapping::mode, which
// Validate has checked.
func parseModes(cfg *Config) (allowed [len(modeList)]bool, defaultMode serializer.Mode) {
	for _, name := range cfg.Mapping.AllowedModes {
		if mode, ok := serializer.ParseMode(name); ok {
			allowed[mode] = true
		}
	}
	defaultMode, _ = serializer.ParseMode(cfg.Mapping.Mode)
	return allowed, defaultMode
}

// newModes reads the request's mode from the client metadata of ctx.
func (e *esExporter) newModes(ctx context.Context, signal string) modes {
	m := modes{signal: signal, allowed: e.allowedModes, request: e.defaultMode}
	values := client.FromContext(ctx).Metadata.Get(mappingModeMetadataKey)
	switch len(values) {
	case 0:
		m.requestError = m.supported(m.request)
	case 1:
		m.request, m.requestError = m.check(values[0], "client metadata "+mappingModeMetadataKey)
	default:
		m.requestError = &modeError{
			errorType: errorTypeInvalidMode,
			msg:       fmt.Sprintf("client metadata %s has %d values %q; it must have one", mappingModeMetadataKey, len(values), values),
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
			msg:       fmt.Sprintf("%s names mapping mode %q, which does not exist; valid: %s", source, name, strings.Join(mappingModes, ", ")),
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
		errorType: errorTypeUnsupportedMode,
		msg:       fmt.Sprintf("mapping mode %s does not support %s", mode, m.signal),
	}
}

// scope returns the mapping mode of the records of a scope with the given attributes.
func (m *modes) scope(attrs pcommon.Map) (serializer.Mode, error) {
	if v, ok := attrs.Get(controlattr.MappingMode); ok {
		return m.check(v.AsString(), "scope attribute "+controlattr.MappingMode)
	}
	return m.request, m.requestError
}
