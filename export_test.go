// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

// The test helpers that the black-box suites (package elasticsearchexporter_test: the fault,
// concurrency, telemetry and bad-response scenarios) share with the package's own tests. Each
// is the helper itself, written once in this package's test files; none is part of the
// package's API, since test files are not.
var (
	NewTestConfig   = newTestConfig
	TestSettings    = testSettings
	NewLogsExporter = newLogsExporter
	WithTelemetry   = withTelemetry
	TestLogs        = testLogs
	Fate            = fate
	Outcome         = outcome
	BulkServer      = bulkServer
)

// CATrustedFingerprintKey is the key that Unmarshal takes out of the confighttp `tls` section.
const CATrustedFingerprintKey = caTrustedFingerprintKey
