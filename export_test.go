// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

// The test helpers that the black-box suites (package elasticsearchexporter_test: the fault,
// concurrency, telemetry, bad-response, drop-in, cookies and documentation scenarios) share
// with the package's own tests. Each is the helper itself, written once in helpers_test.go;
// none is part of the package's API, since test files are not.
var (
	DefaultWith     = defaultWith
	NewTestConfig   = newTestConfig
	FaultConfig     = faultConfig
	LoadConfig      = loadConfig
	TestSettings    = testSettings
	NewLogsExporter = newLogsExporter
	WithTelemetry   = withTelemetry
	TestLogs        = testLogs
	Decode          = decode
	Fate            = fate
	Outcome         = outcome
	StartAllSignals = startAllSignals
	FaultLogBatch   = faultLogBatch
)

// The docs' paths and the helpers that read them, for the suites that check the docs against
// the code.
const (
	ConfigDoc = configDoc
	MovingDoc = movingDoc
)

var (
	DocKeyCell        = docKeyCell
	DocTableSeparator = docTableSeparator
	ConfigDocRows     = configDocRows
	FirstCell         = firstCell
	ForMarkdownLines  = forMarkdownLines
	MovingDocQuotes   = movingDocQuotes
	QuotedLineMatches = quotedLineMatches
)

// CATrustedFingerprintKey is the key that Unmarshal takes out of the confighttp `tls` section.
const CATrustedFingerprintKey = caTrustedFingerprintKey

// DeprecationsOf is the deprecated keys' warnings that Unmarshal keeps in cfg (unexported: a user
// never sets them), for the drop-in suite that compares whole loaded configurations.
func DeprecationsOf(cfg *Config) *[]string { return &cfg.deprecations }

// WithoutKeysSet returns a copy of cfg without the record of which keys its configuration sets
// (unexported: a user never sets it), for the drop-in suite that compares whole loaded
// configurations with DefaultWith; TestKeysSet tests the record.
func WithoutKeysSet(cfg *Config) *Config { return cfg.withoutKeysSet() }
