// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

// Check names one of the checks made at start, as the exporter's self-telemetry records it.
type Check string

// The checks made at start. connect, tls and auth are judged from the answers of the version
// check (GET /), version from the version it reads, privileges from
// _security/user/_has_privileges, template from each data stream's simulated template, snappy
// from the snappy probe.
const (
	CheckConnect    Check = "connect"
	CheckTLS        Check = "tls"
	CheckAuth       Check = "auth"
	CheckPrivileges Check = "privileges"
	CheckVersion    Check = "version"
	CheckTemplate   Check = "template"
	// CheckSnappy: with `compression: snappy`, whether the node decodes snappy (snappyprobe.go).
	CheckSnappy Check = "snappy"
)

// CheckRecorder records the result of a check: failed when it found a problem, which has then
// been logged with its fix. A check that could not be made is not recorded.
type CheckRecorder func(check Check, failed bool)

// record records a check's result when a recorder is set.
func (r CheckRecorder) record(check Check, failed bool) {
	if r != nil {
		r(check, failed)
	}
}
