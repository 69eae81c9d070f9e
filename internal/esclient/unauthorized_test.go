// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.uber.org/zap/zapcore"
)

// A server that answers 401: the version check's warning says which credentials were sent (a
// user's name, an API key's id, the Authorization header of `headers`, or none), never the
// secret, and what to check.
func TestVersionCheck401NamesTheCredentials(t *testing.T) {
	const secret = "s3cret-part"
	tests := []struct {
		name     string
		userInfo string
		edit     func(*Config)
		want     []string
	}{
		{
			name: "user", edit: func(c *Config) { c.User, c.Password = "writer", secret },
			want: []string{`sent: user "writer" (` + "`user`/`password`)", "check `user` and `password`"},
		},
		{
			name: "api_key id:key", edit: func(c *Config) { c.APIKey = "VuaCfGcBCdbkQm-e5aOx:" + secret },
			want: []string{`sent: API key id "VuaCfGcBCdbkQm-e5aOx" (` + "`api_key`)", "check `api_key`"},
		},
		{
			name: "api_key encoded", edit: func(c *Config) {
				c.APIKey = base64.StdEncoding.EncodeToString([]byte("VuaCfGcBCdbkQm-e5aOx:" + secret))
			},
			want: []string{`sent: API key id "VuaCfGcBCdbkQm-e5aOx"`},
		},
		{
			name: "URL user info", userInfo: "urluser:" + secret + "@", edit: func(*Config) {},
			want: []string{`sent: user "urluser" from the endpoint URL`, "check the user and password in the endpoint URL"},
		},
		{name: "headers", edit: func(c *Config) {
			c.User, c.Password = "writer", secret
			c.HTTP.Headers = configopaque.MapList{{Name: "authorization", Value: "Bearer " + secret}}
		}, want: []string{"sent: the Authorization header of `headers`", "check the Authorization header under `headers`"}},
		{
			name: "none", edit: func(*Config) {},
			want: []string{"sent: none; set `user` and `password`, or `api_key`, or `auth::authenticator`"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("X-Elastic-Product", "Elasticsearch")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":{"type":"security_exception","reason":"unable to authenticate"},"status":401}`)
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig(strings.Replace(srv.URL, "http://", "http://"+tt.userInfo, 1))
			tt.edit(&cfg)
			c, logs := newTestClient(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, ok := c.CheckServer(ctx)
			assert.False(t, ok)
			warnings := logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("version check").All()
			require.Len(t, warnings, 1)
			assert.Equal(t, "Elasticsearch version check failed with HTTP 401; documents are sent meanwhile, and the check is "+
				"repeated at growing intervals, up to every 10m0s", warnings[0].Message)
			line := fmt.Sprintf("%s %v", warnings[0].Message, warnings[0].ContextMap())
			t.Log(line)
			assert.Contains(t, line, "GET /: HTTP 401, the credentials were refused; ")
			for _, w := range tt.want {
				assert.Contains(t, line, w)
			}
			assert.Contains(t, line, "unable to authenticate", "the server's answer is quoted")
			assert.NotContains(t, line, secret)
		})
	}
}

// With an authenticator extension, the hint names its ID, and what the client set before it.
func TestUnauthorizedHintNamesTheExtension(t *testing.T) {
	cfg := testConfig("http://es:9200")
	cfg.HTTP.Auth = configoptional.Some(configauth.Config{AuthenticatorID: component.MustNewIDWithName("bearertokenauth", "es")})
	assert.Equal(t, `the credentials were refused; sent: what the authenticator extension "bearertokenauth/es" sets `+
		"(`auth::authenticator`); check the credentials of the extension \"bearertokenauth/es\"", unauthorizedHint(cfg, nil))
	cfg.APIKey = "abc:def"
	assert.Equal(t, `the credentials were refused; sent: what the authenticator extension "bearertokenauth/es" sets `+
		"(`auth::authenticator`), over API key id \"abc\" (`api_key`); check the credentials of the extension \"bearertokenauth/es\"",
		unauthorizedHint(cfg, nil))
}

// With a client certificate, the hint names the certificate's subject, alone or beside the
// other credentials, and never the key.
func TestUnauthorizedHintNamesTheClientCertificate(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "collector-1", Organization: []string{"otelcol-es"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	require.NoError(t, os.WriteFile(keyFile, keyPEM, 0o600))

	cfg := testConfig("https://es:9200")
	cfg.HTTP.TLS.CertFile, cfg.HTTP.TLS.KeyFile = certFile, keyFile
	hint := unauthorizedHint(cfg, nil)
	assert.Equal(t, `the credentials were refused; sent: the client certificate with subject "CN=collector-1,O=otelcol-es" `+
		"(`tls::cert_file`); check that a PKI realm of the cluster trusts the certificate's CA and takes a user name "+
		"from its subject (the realm's username_pattern; CN by default)", hint)

	cfg.User, cfg.Password = "writer", "s3cret"
	hint = unauthorizedHint(cfg, nil)
	assert.Contains(t, hint, `sent: user "writer" (`+"`user`/`password`), and the client certificate with subject \"CN=collector-1,O=otelcol-es\"")
	assert.NotContains(t, hint, "s3cret")
	for line := range strings.Lines(string(keyPEM)) {
		if !strings.HasPrefix(line, "-----") {
			assert.NotContains(t, hint, strings.TrimSpace(line))
		}
	}

	// A certificate file that cannot be read: no subject, the other credentials only.
	cfg.HTTP.TLS.CertFile = filepath.Join(dir, "missing.crt")
	assert.NotContains(t, unauthorizedHint(cfg, nil), "client certificate")

	// The certificate inline: the hint names tls::cert_pem.
	cfg.HTTP.TLS.CertFile = ""
	cfg.HTTP.TLS.CertPem = configopaque.String(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	assert.Contains(t, unauthorizedHint(cfg, nil), `the client certificate with subject "CN=collector-1,O=otelcol-es" (`+"`tls::cert_pem`)")
}
