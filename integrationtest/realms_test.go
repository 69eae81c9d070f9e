// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// realmsVar is a variable of the realms node's env (scripts/es.sh with ES_REALMS=1); the test
// is skipped when the node's env is not that of the realms node.
func realmsVar(t *testing.T, name string) string {
	t.Helper()
	if v, err := estest.Var("ES_REALMS"); err != nil || v != "1" {
		t.Skip("not the realms node (its env has no ES_REALMS=1): start it with 'ES_REALMS=1 scripts/es.sh start' " +
			"and point ES_ENV_FILE at <repo>/.es-realms/env; scripts/integration.sh runs these tests in its realms pass")
	}
	v, err := estest.Var(name)
	require.NoError(t, err)
	require.NotEmpty(t, v, "the realms node's env has no %s", name)
	return v
}

// assertNoKey fails when a log line holds one of the base64 lines of the PEM key file keyFile.
func (s *suite) assertNoKey(t *testing.T, keyFile string) {
	t.Helper()
	b, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	n := 0
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "-----") {
			s.assertNoSecret(t, line)
			n++
		}
	}
	require.Positive(t, n, "no key lines in %s", keyFile)
}

// certSuite is a suite whose exporter authenticates with the client certificate certFile and
// key keyFile only: no user, password or API key.
func certSuite(t *testing.T, certFile, keyFile string) (*suite, *elasticsearchexporter.Config) {
	t.Helper()
	s := newSuite(t)
	cfg := s.config()
	cfg.Authentication.User, cfg.Authentication.Password, cfg.Authentication.APIKey = "", "", ""
	cfg.TLS.CertFile, cfg.TLS.KeyFile = certFile, keyFile
	cfg.Retry.AuthGracePeriod = 0
	return s, cfg
}

// authenticate is the node's _security/_authenticate answer to a request with the header
// Authorization: auth.
func authenticate(t *testing.T, es *estest.Client, auth string) (int, map[string]any) {
	t.Helper()
	pem, err := os.ReadFile(es.CACert)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(http.MethodGet, es.Endpoint+"/_security/_authenticate", http.NoBody)
	require.NoError(t, err)
	req.Header.Set("Authorization", auth)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

// PKI realm: the exporter indexes with a client certificate whose DN is mapped to a role that
// holds the privileges it needs, and nothing else.
func TestRealmsPKIClientCertificate(t *testing.T) {
	certFile, keyFile := realmsVar(t, "ES_PKI_CERT"), realmsVar(t, "ES_PKI_KEY")
	s, cfg := certSuite(t, certFile, keyFile)
	exp := s.logsExporter(t, cfg)
	s.waitConnected(t)
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(5)))
	assert.Equal(t, int64(5), s.docs(t, "indexed"))
	index := "logs-" + s.id + ".otel-default"
	s.es.Refresh(t, index)
	assert.Equal(t, 5, s.es.Count(t, index), "documents in %s", index)
	want := map[string]int64{"connect": 0, "tls": 0, "auth": 0, "privileges": 0, "version": 0}
	assert.Eventually(t, func() bool { return assert.ObjectsAreEqual(want, s.startupChecks(t)) }, 30*time.Second, 20*time.Millisecond)
	assert.Zero(t, s.logs.FilterMessageSnippet("The credentials lack").Len())
	s.assertNoKey(t, keyFile)
}

// A certificate of the trusted CA whose DN no role mapping names: the PKI realm authenticates
// it, and the start-up check names each privilege it lacks.
func TestRealmsPKIUnmappedCertificate(t *testing.T) {
	certFile, keyFile := realmsVar(t, "ES_PKI_UNMAPPED_CERT"), realmsVar(t, "ES_PKI_UNMAPPED_KEY")
	s, cfg := certSuite(t, certFile, keyFile)
	s.logsExporter(t, cfg)
	const user = "otelcol-es-pki-unmapped"
	want := []string{lackMonitorLine(user), lackIndexLine("auto_configure", user), lackIndexLine("create_doc", user)}
	var lines []string
	assert.Eventually(t, func() bool {
		lines = s.lackLines()
		return assert.ObjectsAreEqual(want, lines)
	}, 30*time.Second, 20*time.Millisecond)
	assert.Equal(t, want, lines)
	for _, l := range lines {
		t.Log(l)
	}
	s.assertNoKey(t, keyFile)
}

// A certificate of the trusted CA without a CN: the PKI realm finds no user name in it, the
// node answers 401, and the start-up line names the certificate's subject.
func TestRealmsPKICertificateWithoutCN(t *testing.T) {
	certFile, keyFile := realmsVar(t, "ES_PKI_NOCN_CERT"), realmsVar(t, "ES_PKI_NOCN_KEY")
	s, cfg := certSuite(t, certFile, keyFile)
	s.logsExporter(t, cfg)
	require.Eventually(t, func() bool { return s.logs.FilterMessageSnippet("version check failed with HTTP 401").Len() == 1 },
		30*time.Second, 20*time.Millisecond)
	warning := s.logs.FilterMessageSnippet("version check failed with HTTP 401").All()[0]
	line := fmt.Sprintf("%s %v", warning.Message, warning.ContextMap())
	t.Log(line)
	assert.Contains(t, line, `HTTP 401, the credentials were refused; sent: the client certificate with subject "OU=no common name,O=otelcol-es" (`+"`tls::cert_file`)")
	assert.Contains(t, line, "missing authentication credentials", "the node's answer is quoted")
	s.assertNoKey(t, keyFile)
}

// jwtCollectorConfig is a collector configuration whose exporter authenticates with the
// bearertokenauth extension, whose token the collector reads from ES_JWT_TOKEN.
func jwtCollectorConfig(t *testing.T, httpAddr string) string {
	t.Helper()
	return pipelineConfig{
		httpAddr: httpAddr,
		exporter: "    auth:\n      authenticator: bearertokenauth\n    tls:\n      ca_file: ${env:ES_CA_CERT}\n" +
			"    retry:\n      auth_grace_period: 0s\n" + flushTimeout("1s"),
		extension:      "bearertokenauth",
		extensionLines: "    token: ${env:ES_JWT_TOKEN}\n",
	}.write(t)
}

// JWT realm: the collector binary's exporter authenticates with contrib's bearertokenauth
// extension, whose JWT the jwt1 realm accepts; the documents are indexed.
func TestRealmsJWTThroughBearerTokenAuth(t *testing.T) {
	jwt := realmsVar(t, "ES_JWT")
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)

	status, who := authenticate(t, es, "Bearer "+jwt)
	require.Equal(t, http.StatusOK, status, "%v", who)
	t.Logf("_security/_authenticate with the JWT: %v", who)
	assert.Equal(t, "jwt1", field(who, "authentication_realm", "name"))
	assert.Equal(t, realmsVar(t, "ES_JWT_PRINCIPAL"), who["username"])

	const records = 20
	run := newLogsRun(t, "jwt")
	col := startCollector(t, bin, jwtCollectorConfig(t, run.httpAddr), append(collectorEnv(es.Config), "ES_JWT_TOKEN="+jwt))
	col.waitListening(t, run.httpAddr)
	n := run.sendAndCount(t, es, col, records, records, "jwt-test")
	assert.Equal(t, records, n, "documents in %s", run.index)
	_, err := col.stop(30 * time.Second)
	require.NoError(t, err)
	out := col.output()
	assert.Contains(t, out, "Connected to Elasticsearch")
	assert.NotContains(t, out, "The credentials lack")
	assert.NotContains(t, out, jwt, "a log line holds the JWT")
	for _, p := range col.problems() {
		t.Log(p)
	}
}

// A JWT whose signature is not that of the realm's key: the node answers 401, and the
// collector's start-up line says that the extension's credentials were refused.
func TestRealmsForgedJWT(t *testing.T) {
	jwt := realmsVar(t, "ES_JWT")
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	// The same header and claims with another signature.
	dot := strings.LastIndexByte(jwt, '.')
	forged := jwt[:dot+1] + strings.Repeat("A", len(jwt)-dot-1)
	status, body := authenticate(t, es, "Bearer "+forged)
	require.Equal(t, http.StatusUnauthorized, status)
	t.Logf("_security/_authenticate with the forged JWT: %v", body)

	httpAddr := freeAddr(t)
	col := startCollector(t, bin, jwtCollectorConfig(t, httpAddr), append(collectorEnv(es.Config), "ES_JWT_TOKEN="+forged))
	col.waitListening(t, httpAddr)
	const want = "HTTP 401, the credentials were refused; sent: what the authenticator extension"
	require.Eventually(t, func() bool { return strings.Contains(col.output(), want) || col.exited() },
		60*time.Second, 200*time.Millisecond)
	_, err := col.stop(30 * time.Second)
	require.NoError(t, err)
	var lines []string
	for line := range strings.Lines(col.output()) {
		if strings.Contains(line, "HTTP 401") {
			lines = append(lines, strings.TrimSpace(line))
			t.Log(strings.TrimSpace(line))
		}
	}
	require.NotEmpty(t, lines)
	assert.Contains(t, lines[0], want)
	assert.Contains(t, lines[0], "bearertokenauth")
	out := col.output()
	assert.NotContains(t, out, forged, "a log line holds the JWT")
	assert.NotContains(t, out, jwt[dot+1:], "a log line holds the real JWT's signature")
}
