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
	"github.com/otelcol-es/elasticsearchexporter/internal/pvalue"
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
// elastic.mapping.mode, else the request's client metadata X-Elastic-Mapping-Mode, else the
// default mode (defaultModeOf). A mode must be listed in mapping::allowed_modes and support the
// signal.
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

// defaultModeOf returns the mapping mode of the records that neither a scope attribute nor the
// client metadata give a mode, as contrib chooses it: otel when mapping::allowed_modes lists it,
// else the first mode that it lists. mapping::mode plays no part, as in contrib since v0.145.
func defaultModeOf(allowedModes []string) serializer.Mode {
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

// modeIgnoredWarning returns the warning logged when the exporter is created with a
// mapping::mode other than otel, which is ignored, or "".
func (c *Config) modeIgnoredWarning() string {
	if c.Mapping.Mode == "" || c.Mapping.Mode == serializer.ModeOTel.String() {
		return ""
	}
	written := "otel"
	if def := defaultModeOf(c.Mapping.AllowedModes); def != serializer.ModeOTel {
		written = def.String() + ", the first of `mapping::allowed_modes`, which does not list otel"
	}
	return fmt.Sprintf("`mapping::mode` is %s and is ignored, as in contrib since v0.145: records whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are written in %s. "+
		"Choose the mode per scope with the scope attribute elastic.mapping.mode, or per request with the client metadata X-Elastic-Mapping-Mode "+
		"(an OTLP request header, passed on by a receiver with include_metadata: true); then remove `mapping::mode`", c.Mapping.Mode, written)
}

// modeFallbackWarning returns the warning to log when the pipeline of signal ("logs", "traces",
// "metrics" or "profiles") is created and the default mode (see defaultModeOf) cannot write it, or "".
func (c *Config) modeFallbackWarning(signal string) string {
	def := defaultModeOf(c.Mapping.AllowedModes)
	if def.Supports(signal) {
		return ""
	}
	return fmt.Sprintf("`mapping::allowed_modes` does not list otel, and %s, its first mode, has no %s documents: %s whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are rejected (%s); "+
		"add otel to `mapping::allowed_modes`", def, signalNoun(signal), signal, errorTypeUnsupportedMode)
}

// signalNoun names the documents of a signal in messages.
func signalNoun(signal string) string {
	switch signal {
	case "traces":
		return "span"
	case "metrics":
		return "metric"
	case profilesSignal:
		return "profile"
	}
	return "log"
}

// parseModes returns the modes listed in mapping::allowed_modes, which Validate has checked,
// and the default mode.
func parseModes(cfg *Config) (allowed [serializer.NumModes]bool, defaultMode serializer.Mode) {
	for _, name := range cfg.Mapping.AllowedModes {
		if mode, ok := serializer.ParseMode(name); ok {
			allowed[mode] = true
		}
	}
	return allowed, defaultModeOf(cfg.Mapping.AllowedModes)
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
		return m.check(pvalue.AsString(v), "scope attribute "+controlattr.MappingMode)
	}
	return m.request, m.requestError
}
