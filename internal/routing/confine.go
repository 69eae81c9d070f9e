// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Confinement: the attributes of a record choose its target, but never outside what the
// configuration allows. A sender could otherwise write, with the exporter's credentials, into
// system and hidden indices (.kibana_1, any new name that starts with "."), into another
// team's data stream, or into any index those credentials reach. Two rules, both checked on the
// name that routing builds, before the logstash_format date is appended:
//
//   - A name that elasticsearch.index gives may not start with "." unless
//     Settings.AllowDotTargets is set. (Data stream names start with their type.)
//   - When Settings.AllowedTargets is not empty, every name routed without a static index,
//     from attributes or from the defaults, must match one of its patterns.
//
// The static index of the configuration is the user's choice and is never confined.

// ErrorTypeTargetNotAllowed is the error.type of records whose target the confinement rules
// refuse.
const ErrorTypeTargetNotAllowed = "target_not_allowed"

// TargetNotAllowedError reports a target that the records' attributes chose and that the
// configuration does not allow. The documents routed to it must be rejected (and counted)
// instead of sent.
type TargetNotAllowedError struct {
	// Name is the refused name, verbatim.
	Name string
	// Source says which attributes chose the name and on which level (record, scope or
	// resource) each was found, e.g. "attribute elasticsearch.index on the scope".
	Source string
	// Reason says which rule refused it.
	Reason string
}

func (e *TargetNotAllowedError) Error() string {
	return "target " + strconv.Quote(e.Name) + " from " + e.Source + " is not allowed: " + e.Reason
}

// Reasons a target is not allowed.
const (
	reasonDotTarget  = `starts with "." (a system or hidden index); set dynamic_routing::allow_dot_targets to allow it`
	reasonNotAllowed = "matches no pattern of dynamic_routing::allowed_targets"
)

// levelNames name the levels an attribute is looked up on, in the order of the lookup.
var levelNames = [3]string{"the record", "the scope", "the resource"}

// patterns is a compiled dynamic_routing::allowed_targets: the literal parts of each pattern,
// split at its "*".
type patterns [][]string

// compilePatterns checks and compiles allowed. A pattern may hold "*", which matches any run
// of characters, the empty one included; the rest must be able to be part of an index name
// (lower case, none of the characters Elasticsearch refuses), so that no pattern is one that
// can never match.
func compilePatterns(allowed []string) (patterns, error) {
	if len(allowed) == 0 {
		return nil, nil
	}
	ps := make(patterns, 0, len(allowed))
	var errs []error
	for i, p := range allowed {
		if p == "" {
			errs = append(errs, fmt.Errorf("pattern %d is empty", i))
			continue
		}
		parts := strings.Split(p, "*")
		for _, part := range parts {
			if reason := charsProblem([]byte(part)); reason != "" {
				errs = append(errs, fmt.Errorf("pattern %q %s (only \"*\" is special)", p, reason))
				break
			}
		}
		ps = append(ps, parts)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return ps, nil
}

// allowedBefore reports whether name is the Target the Router returned last, which the rules
// allowed then and, the rules being fixed, allow now: a run of records routed to the same place
// is matched once. With logstash_format the Target is the checked name with a date appended,
// which the rules never saw: a name equal to it is matched like any other.
func (r *Router) allowedBefore(name []byte) bool {
	return r.valid && !r.logstash && string(name) == r.last.Index
}

// match reports whether name matches one of the patterns.
func (ps patterns) match(name []byte) bool {
	for _, parts := range ps {
		if matchParts(parts, name) {
			return true
		}
	}
	return false
}

// matchParts reports whether name is parts joined by runs of any characters: the first part a
// prefix, the last a suffix, the ones between found in order, each at its leftmost place (which
// is enough with "*" as the only wildcard).
func matchParts(parts []string, name []byte) bool {
	s := string(name) // no allocation: the conversion is only compared and sliced
	if len(parts) == 1 {
		return s == parts[0]
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return true
}

// confineIndex checks a name given by elasticsearch.index, found on levels[level].
func (r *Router) confineIndex(name []byte, level int) error {
	switch {
	case name[0] == '.' && !r.allowDot:
		return &TargetNotAllowedError{Name: string(name), Source: indexSource(level), Reason: reasonDotTarget}
	case r.allowed != nil && !r.allowedBefore(name) && !r.allowed.match(name):
		return &TargetNotAllowedError{Name: string(name), Source: indexSource(level), Reason: reasonNotAllowed}
	}
	return nil
}

// confineDataStream checks a data stream name whose dataset and namespace were found on the
// levels given (-1: not an attribute, but derived from the scope or the default).
func (r *Router) confineDataStream(name []byte, datasetLevel, namespaceLevel int) error {
	if r.allowed == nil || r.allowedBefore(name) || r.allowed.match(name) {
		return nil
	}
	var parts []string
	if datasetLevel >= 0 {
		parts = append(parts, "attribute data_stream.dataset on "+levelNames[datasetLevel])
	}
	if namespaceLevel >= 0 {
		parts = append(parts, "attribute data_stream.namespace on "+levelNames[namespaceLevel])
	}
	source := "the default dataset and namespace"
	if len(parts) > 0 {
		source = strings.Join(parts, " and ")
	}
	return &TargetNotAllowedError{Name: string(name), Source: source, Reason: reasonNotAllowed}
}

func indexSource(level int) string {
	return "attribute elasticsearch.index on " + levelNames[level]
}
