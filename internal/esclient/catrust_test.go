// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/zap/zapcore"
)

func TestParseCAFingerprint(t *testing.T) {
	ca := newTestCA(t, "parse CA")
	want := CAFingerprint(sha256.Sum256(ca.cert.Raw))
	for _, s := range []string{
		fingerprint(ca.cert),
		strings.ToUpper(fingerprint(ca.cert)),
		opensslFingerprint(ca.cert),
		strings.ToLower(opensslFingerprint(ca.cert)),
		" " + fingerprint(ca.cert) + "\n",
	} {
		got, err := ParseCAFingerprint(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	assert.Equal(t, fingerprint(ca.cert), want.String())

	for _, s := range []string{
		"",
		fingerprint(ca.cert)[:62],       // 31 bytes
		fingerprint(ca.cert) + "00",     // 33 bytes
		"zz" + fingerprint(ca.cert)[2:], // not hexadecimal
		opensslFingerprint(ca.cert)[1:], // a pair cut short
		"SHA256 Fingerprint=" + opensslFingerprint(ca.cert),
		strings.ReplaceAll(opensslFingerprint(ca.cert), ":", " "),
		hex.EncodeToString(make([]byte, 20)), // a SHA-1 fingerprint's length
	} {
		_, err := ParseCAFingerprint(s)
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), "must be the SHA-256 fingerprint of a CA certificate: 64 hexadecimal digits", s)
	}
}

// The chain a server sends is trusted when one of its CA certificates has the fingerprint,
// and all else is verified as without it. Each case is a real handshake.
func TestCATrustedFingerprint(t *testing.T) {
	ca := newTestCA(t, "cluster CA")
	other := newTestCA(t, "other CA")
	leaf := ca.issue(t, nil)
	otherLeaf := other.issue(t, nil)
	otherCAFile := writePEM(t, "other.pem", &pem.Block{Type: "CERTIFICATE", Bytes: other.cert.Raw})
	clientCA := newTestCA(t, "client CA")
	client := clientCA.issue(t, func(c *x509.Certificate) { c.Subject.CommonName = "collector" })
	clientCert := writePEM(t, "client.pem", &pem.Block{Type: "CERTIFICATE", Bytes: client.Certificate[0]})
	keyDER, err := x509.MarshalPKCS8PrivateKey(client.PrivateKey)
	require.NoError(t, err)
	clientKey := writePEM(t, "client.key", &pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	requireClientCert := func(c *tls.Config) {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = x509.NewCertPool()
		c.ClientCAs.AddCert(clientCA.cert)
	}

	tests := []struct {
		name   string
		cert   tls.Certificate
		server func(*tls.Config)
		host   string // the endpoint's host, 127.0.0.1 by default
		client func(*Config)
		hint   string // empty: the request succeeds
	}{
		{
			name:   "the CA's fingerprint, as Elasticsearch prints it",
			cert:   leaf,
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(ca.cert) },
		},
		{
			name:   "the CA's fingerprint, as openssl prints it, to a host name",
			cert:   leaf,
			host:   "localhost",
			client: func(c *Config) { c.CATrustedFingerprint = opensslFingerprint(ca.cert) },
		},
		{
			name:   "another CA's fingerprint",
			cert:   leaf,
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(other.cert) },
			hint: `tls::ca_trusted_fingerprint matches no CA certificate that the server sent: the CA certificate it sent is "CN=cluster CA", ` +
				"SHA-256 fingerprint " + fingerprint(ca.cert) + "; check the fingerprint against that CA's",
		},
		{
			name:   "the server certificate's own fingerprint, which is not a CA's",
			cert:   leaf,
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(leaf.Leaf) },
			hint:   "tls::ca_trusted_fingerprint matches no CA certificate that the server sent",
		},
		{
			name:   "a server that sends no CA",
			cert:   tls.Certificate{Certificate: leaf.Certificate[:1], PrivateKey: leaf.PrivateKey},
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(ca.cert) },
			hint: `tls::ca_trusted_fingerprint matches no CA certificate that the server sent: the server sent no CA certificate, ` +
				`its chain ends with "CN=localhost", issued by "CN=cluster CA"; set tls::ca_file to the certificate of that CA`,
		},
		{
			name: "the host name is still verified: tls::server_name_override",
			cert: leaf,
			client: func(c *Config) {
				c.CATrustedFingerprint = fingerprint(ca.cert)
				c.HTTP.TLS.ServerName = "elsewhere.example"
			},
			hint: "the server's TLS certificate is not for the endpoint's host",
		},
		{
			name:   "the host name is still verified: an IP address",
			cert:   ca.issue(t, func(c *x509.Certificate) { c.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 2)} }),
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(ca.cert) },
			hint:   "the server's TLS certificate is not for the endpoint's host",
		},
		{
			name:   "the validity is still verified",
			cert:   ca.issue(t, func(c *x509.Certificate) { c.NotAfter = time.Now().Add(-time.Minute) }),
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(ca.cert) },
			hint:   "the server's TLS certificate has expired or is not valid yet",
		},
		{
			name: "tls::ca_file's CAs are trusted too",
			cert: otherLeaf,
			client: func(c *Config) {
				c.CATrustedFingerprint = fingerprint(ca.cert)
				c.HTTP.TLS.CAFile = otherCAFile
			},
		},
		{
			name: "the fingerprint beside tls::ca_file of another CA",
			cert: leaf,
			client: func(c *Config) {
				c.CATrustedFingerprint = fingerprint(ca.cert)
				c.HTTP.TLS.CAFile = otherCAFile
			},
		},
		{
			name:   "the client certificate is still sent",
			cert:   leaf,
			server: requireClientCert,
			client: func(c *Config) {
				c.CATrustedFingerprint = fingerprint(ca.cert)
				c.HTTP.TLS.CertFile, c.HTTP.TLS.KeyFile = clientCert, clientKey
			},
		},
		{
			name:   "without the client certificate, the server refuses",
			cert:   leaf,
			server: requireClientCert,
			client: func(c *Config) { c.CATrustedFingerprint = fingerprint(ca.cert) },
			hint:   "the server requires a TLS client certificate; set tls::cert_file and tls::key_file",
		},
		{
			name:   "tls::min_version still applies",
			cert:   leaf,
			server: func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 },
			client: func(c *Config) {
				c.CATrustedFingerprint = fingerprint(ca.cert)
				c.HTTP.TLS.MinVersion = "1.3"
			},
			hint: "the server and tls::min_version, tls::max_version and tls::cipher_suites have no TLS version or cipher suite in common",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := chainServer(t, tt.cert, tt.server)
			if tt.host != "" {
				url = strings.Replace(url, "127.0.0.1", tt.host, 1)
			}
			cfg := testConfig(url)
			tt.client(&cfg)
			c, _ := newTestClient(t, cfg)
			_, _, _, err := c.serverVersion(context.Background())
			if tt.hint == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "GET /: "+tt.hint)
		})
	}
}

// Through a proxy, the TLS connection is the transport's own: the fingerprint is trusted there
// too, and a host that is an IP address, which the connection does not name, is refused.
func TestCATrustedFingerprintThroughAProxy(t *testing.T) {
	ca := newTestCA(t, "cluster CA")
	url := chainServer(t, ca.issue(t, nil), nil)
	proxy := connectProxy(t, http.StatusOK)

	cfg := testConfig(strings.Replace(url, "127.0.0.1", "localhost", 1))
	cfg.HTTP.ProxyURL = proxy.URL
	cfg.CATrustedFingerprint = fingerprint(ca.cert)
	c, _ := newTestClient(t, cfg)
	_, _, _, err := c.serverVersion(context.Background())
	require.NoError(t, err)

	cfg.HTTP.TLS.ServerName = "elsewhere.example"
	err = versionError(t, cfg)
	assert.Contains(t, err.Error(), "GET /: the server's TLS certificate is not for the endpoint's host")

	cfg = testConfig(url)
	cfg.HTTP.ProxyURL = proxy.URL
	cfg.CATrustedFingerprint = fingerprint(ca.cert)
	err = versionError(t, cfg)
	assert.Contains(t, err.Error(), "GET /: with tls::ca_trusted_fingerprint, a connection through a proxy to an IP address "+
		"has no host name to verify the server's TLS certificate for")
}

// A fingerprint that New cannot read is refused, naming the form expected.
func TestCATrustedFingerprintMalformed(t *testing.T) {
	cfg := testConfig("https://127.0.0.1:9200")
	cfg.CATrustedFingerprint = "72:34:8B"
	_, err := New(context.Background(), cfg, testHost{}, componenttest.NewNopTelemetrySettings(), component.NewDefaultBuildInfo())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "`tls::ca_trusted_fingerprint` must be the SHA-256 fingerprint of a CA certificate")
}

// Without tls::ca_file or the fingerprint, the version check's warning names the CA that the
// server sent and its fingerprint, which tls::ca_trusted_fingerprint then trusts.
func TestUnknownAuthorityWarningNamesTheCA(t *testing.T) {
	ca := newTestCA(t, "cluster CA")
	leaf := ca.issue(t, nil)
	url := chainServer(t, leaf, nil)

	c, logs := newTestClient(t, testConfig(url))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		c.CheckServer(ctx)
	}()
	const msg = "Elasticsearch version check failed; documents are sent meanwhile, and the check is repeated at " +
		"growing intervals, up to every 10m0s"
	require.Eventually(t, func() bool { return logs.FilterMessage(msg).Len() > 0 }, time.Minute, 10*time.Millisecond)
	cancel()
	<-checked
	warnings := logs.FilterMessage(msg).All()
	require.Len(t, warnings, 1)
	assert.Equal(t, zapcore.WarnLevel, warnings[0].Level)
	assert.Equal(t, `GET /: the server's TLS certificate cannot be verified: the CA certificate it sent is "CN=cluster CA", `+
		"SHA-256 fingerprint "+fingerprint(ca.cert)+"; if it is your cluster's CA, trust it with tls::ca_trusted_fingerprint: "+
		fingerprint(ca.cert)+", or set tls::ca_file to its certificate: "+
		"tls: failed to verify certificate: x509: certificate signed by unknown authority", warnings[0].ContextMap()["error"])

	cfg := testConfig(url)
	cfg.CATrustedFingerprint = fingerprint(ca.cert)
	pinned, _ := newTestClient(t, cfg)
	_, _, _, err := pinned.serverVersion(context.Background())
	require.NoError(t, err)

	// A server that sends its own certificate only: there is no CA to name.
	alone := chainServer(t, tls.Certificate{Certificate: leaf.Certificate[:1], PrivateKey: leaf.PrivateKey}, nil)
	err = versionError(t, testConfig(alone))
	assert.Contains(t, err.Error(), `GET /: the server's TLS certificate cannot be verified: the server sent no CA certificate, `+
		`its chain ends with "CN=localhost", issued by "CN=cluster CA"; set tls::ca_file to the certificate of that CA`)
}
