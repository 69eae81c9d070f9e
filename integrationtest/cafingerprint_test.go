// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// nodeCA returns the node's CA certificate, read from ES_CA_CERT, and its SHA-256 fingerprint as
// Elasticsearch prints it.
func nodeCA(t *testing.T, es *estest.Client) (*x509.Certificate, string) {
	t.Helper()
	if !strings.HasPrefix(es.Endpoint, "https://") || es.CACert == "" {
		estest.SkipOrFail(t, "the node is not served over HTTPS with a CA file (ES_CA_CERT)", "start one with `scripts/es.sh start`")
	}
	b, err := os.ReadFile(es.CACert)
	require.NoError(t, err)
	block, _ := pem.Decode(b)
	require.NotNil(t, block, "%s holds no PEM certificate", es.CACert)
	ca, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	sum := sha256.Sum256(ca.Raw)
	return ca, hex.EncodeToString(sum[:])
}

// versionCheckError waits for the exporter's warning that the version check failed, and
// returns its error field, after checking that no line of the run holds the password.
func (s *suite) versionCheckError(t *testing.T) string {
	t.Helper()
	const msg = "Elasticsearch version check failed; documents are sent meanwhile, and the check is repeated at " +
		"growing intervals, up to every 10m0s"
	require.Eventually(t, func() bool { return s.logs.FilterMessage(msg).Len() > 0 }, time.Minute, 20*time.Millisecond)
	for _, e := range s.logs.All() {
		line := fmt.Sprintf("%s %v", e.Message, e.ContextMap())
		if s.es.Password != "" {
			assert.NotContains(t, line, s.es.Password)
		}
		if s.es.APIKey != "" {
			assert.NotContains(t, line, s.es.APIKey)
		}
	}
	errField, _ := s.logs.FilterMessage(msg).All()[0].ContextMap()["error"].(string)
	t.Logf("%s: error=%q", msg, errField)
	return errField
}

// The node's CA, trusted by its fingerprint alone (no tls::ca_file), takes documents; without
// either, the start-up check names the CA that the node sent with the same fingerprint.
func TestCATrustedFingerprintOnTheNode(t *testing.T) {
	es := estest.FromEnv(t)
	ca, fp := nodeCA(t, es)

	t.Run("fingerprint_only", func(t *testing.T) {
		s := newSuite(t)
		cfg := s.config()
		cfg.TLS.CAFile = ""
		cfg.CATrustedFingerprint = fp
		exp := s.logsExporter(t, cfg)
		s.waitConnected(t)
		require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(3)))
		docs := s.search(t, "logs-"+s.id+".otel-default", s.id)
		assert.Len(t, docs, 3)
		assert.Equal(t, int64(3), s.docs(t, "indexed"))
	})

	t.Run("neither_ca_file_nor_fingerprint", func(t *testing.T) {
		s := newSuite(t)
		cfg := s.config()
		cfg.TLS.CAFile = ""
		s.logsExporter(t, cfg)
		got := s.versionCheckError(t)
		assert.Equal(t, fmt.Sprintf(`GET /: the server's TLS certificate cannot be verified: the CA certificate it sent is %q, `+
			"SHA-256 fingerprint %s; if it is your cluster's CA, trust it with tls::ca_trusted_fingerprint: %s, or set "+
			"tls::ca_file to its certificate: tls: failed to verify certificate: x509: certificate signed by unknown authority",
			ca.Subject.String(), fp, fp), got)
	})

	t.Run("another_fingerprint", func(t *testing.T) {
		s := newSuite(t)
		cfg := s.config()
		cfg.TLS.CAFile = ""
		cfg.CATrustedFingerprint = strings.Repeat("ab", sha256.Size)
		s.logsExporter(t, cfg)
		got := s.versionCheckError(t)
		assert.Contains(t, got, fmt.Sprintf("GET /: tls::ca_trusted_fingerprint matches no CA certificate that the server sent: "+
			"the CA certificate it sent is %q, SHA-256 fingerprint %s; check the fingerprint against that CA's", ca.Subject.String(), fp))
	})

	t.Run("fingerprint_and_another_host_name", func(t *testing.T) {
		s := newSuite(t)
		cfg := s.config()
		cfg.TLS.CAFile = ""
		cfg.CATrustedFingerprint = fp
		cfg.TLS.ServerName = "elsewhere.example"
		s.logsExporter(t, cfg)
		got := s.versionCheckError(t)
		assert.Contains(t, got, "GET /: the server's TLS certificate is not for the endpoint's host; check the endpoint or "+
			"tls::server_name_override: tls: failed to verify certificate: x509: certificate is valid for localhost, not elsewhere.example")
	})
}

// The collector binary loads tls::ca_trusted_fingerprint from its YAML, pasted in the form
// openssl prints it, and with it alone (no tls::ca_file) writes what it receives to the node.
func TestCollectorCATrustedFingerprint(t *testing.T) {
	const records = 50
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)
	ca, _ := nodeCA(t, es)
	sum := sha256.Sum256(ca.Raw)
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = fmt.Sprintf("%02X", b)
	}

	run := newLogsRun(t, "fp")
	auth, _ := exporterAuthYAML(es.Config)
	cfgPath := pipelineConfig{
		httpAddr: run.httpAddr,
		exporter: auth + fmt.Sprintf("    tls:\n      ca_trusted_fingerprint: %q\n", strings.Join(pairs, ":")) + flushTimeout("1s"),
	}.write(t)

	col := startCollector(t, bin, cfgPath, collectorEnv(es.Config))
	col.waitListening(t, run.httpAddr)
	n := run.sendAndCount(t, es, col, records, 10, "fingerprint-test")
	assert.Equal(t, records, n, "log records in %s", run.index)
	out := col.output()
	assert.Contains(t, out, "Connected to Elasticsearch")
	assert.NotContains(t, out, "version check failed")
	if es.Password != "" {
		assert.NotContains(t, out, es.Password)
	}
}
