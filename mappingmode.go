// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"
	"slices"
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
	allowed      [serializer.NumModes]bool
	request      serializer.Mode
	requestError error // the request's metadata names a mode that cannot be used
	signal       string
}

// mappingModes lists the name of every mapping mode, in documentation order. The names are the
// serializer's.
var mappingModes = serializer.ModeNames()

// canonicalMappingMode lowercases a mode name and resolves the "no" alias
// that contrib accepts for "none".
func canonicalMappingMode(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "no" {
		return serializer.ModeNone.String()
	}
	return name
}

// isMappingMode reports whether name is the canonical name of a mapping mode.
func isMappingMode(name string) bool { return slices.Contains(mappingModes, name) }

// signalDefaultMode returns the mapping mode of the records of signal that neither a scope
// attribute nor the client metadata give a mode: mapping::mode, or otel when mapping::mode
// cannot write the signal (none, raw and bodymap have no metric documents, bodymap no span
// documents). Contrib ignores mapping::mode and writes otel; this exporter keeps mapping::mode
// for the signals it can write, and starts with the others in otel rather than refusing them.
func signalDefaultMode(mode serializer.Mode, signal string) serializer.Mode {
	if mode.Supports(signal) {
		return mode
	}
	return serializer.ModeOTel
}

// modeFallbackWarning returns the warning to log when the pipeline of signal ("logs",
// "traces" or "metrics") is created with a mapping::mode that cannot write it, or "".
func (c *Config) modeFallbackWarning(signal string) string {
	mode, ok := serializer.ParseMode(c.Mapping.Mode)
	if !ok || mode.Supports(signal) {
		return "" // an unknown mode is reported by Validate
	}
	return fmt.Sprintf("`mapping::mode` is %s, which has no %s documents: %s are written in the otel mapping mode, as contrib writes them (contrib ignores `mapping::mode`); "+
		"a scope attribute elastic.mapping.mode or the client metadata X-Elastic-Mapping-Mode may still choose ecs", c.Mapping.Mode, signalNoun(signal), signal)
}

// modeDivergenceNote returns the Info line logged when the exporter is created with a
// mapping::mode other than otel, which contrib would ignore, or "".
func (c *Config) modeDivergenceNote() string {
	if c.Mapping.Mode == "" || c.Mapping.Mode == serializer.ModeOTel.String() {
		return ""
	}
	return fmt.Sprintf("`mapping::mode` is %s: records that neither a scope attribute elastic.mapping.mode nor the client metadata X-Elastic-Mapping-Mode give a mode are written in %s (logs and traces; metrics only in otel or ecs). "+
		"Contrib ignores `mapping::mode` since v0.145 and writes them in otel", c.Mapping.Mode, c.Mapping.Mode)
}

// signalNoun names the documents of a signal in messages.
func signalNoun(signal string) string {
	switch signal {
	case "traces":
		return "span"
	case "metrics":
		return "metric"
	}
	return "log"
}

// parseModes returns the modes listed in mapping::allowed_modes and mapping::mode, which
// Validate has checked.
func parseModes(cfg *Config) (allowed [serializer.NumModes]bool, defaultMode serializer.Mode) {
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
	m := modes{signal: signal, allowed: e.allowedModes, request: signalDefaultMode(e.defaultMode, signal)}
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
