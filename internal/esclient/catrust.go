// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
)

// CAFingerprint is the SHA-256 digest of a certificate's DER encoding: the fingerprint by which
// tls::ca_trusted_fingerprint names the CA to trust.
type CAFingerprint [sha256.Size]byte

// CAFingerprintForm says what ParseCAFingerprint reads, for the errors of a value it refuses.
const CAFingerprintForm = "the SHA-256 fingerprint of a CA certificate: 64 hexadecimal digits, in either case, " +
	"bare (as Elasticsearch prints its HTTP CA's at its first start) or with a colon between each pair " +
	"(as `openssl x509 -noout -fingerprint -sha256` prints it)"

// ParseCAFingerprint reads a fingerprint in one of the forms CAFingerprintForm names. Spaces
// around it are ignored.
func ParseCAFingerprint(s string) (CAFingerprint, error) {
	var fp CAFingerprint
	digits := strings.TrimSpace(s)
	if strings.Contains(digits, ":") {
		pairs := strings.Split(digits, ":")
		for _, p := range pairs {
			if len(p) != 2 {
				return fp, fmt.Errorf("must be %s; got %q", CAFingerprintForm, s)
			}
		}
		digits = strings.Join(pairs, "")
	}
	if len(digits) != hex.EncodedLen(len(fp)) {
		return fp, fmt.Errorf("must be %s; got %q (%d digits)", CAFingerprintForm, s, len(digits))
	}
	if _, err := hex.Decode(fp[:], []byte(digits)); err != nil {
		return fp, fmt.Errorf("must be %s; got %q", CAFingerprintForm, s)
	}
	return fp, nil
}

// String returns the fingerprint as Elasticsearch prints it: 64 lowercase hexadecimal digits.
func (f CAFingerprint) String() string { return hex.EncodeToString(f[:]) }

// fingerprintOf returns the SHA-256 fingerprint of cert.
func fingerprintOf(cert *x509.Certificate) CAFingerprint { return sha256.Sum256(cert.Raw) }

// caTrust verifies a server's certificate chain as crypto/tls does (validity, key usage, the
// host name, a chain to a trusted root), trusting besides the roots of tls::ca_file (the
// system's without it) each CA certificate of the chain the server sent whose fingerprint is
// tls::ca_trusted_fingerprint. That is what Beats and Elastic Agent do with their
// ca_trusted_fingerprint: a certificate that matches but is not a CA is not trusted, and a
// chain with no match is verified against the other roots alone.
type caTrust struct {
	fingerprint CAFingerprint
	roots       *x509.CertPool
}

// errNoServerName is the error of a connection through a proxy to an IP address, whose
// certificate caTrust cannot verify for want of the host.
var errNoServerName = errors.New("no host name to verify the server's certificate for")

// caFingerprintMismatch is the error of a chain that no root trusts and in which no CA
// certificate has the fingerprint of tls::ca_trusted_fingerprint.
type caFingerprintMismatch struct {
	want CAFingerprint
	err  x509.UnknownAuthorityError
}

func (e *caFingerprintMismatch) Error() string {
	return "no CA certificate that the server sent has the SHA-256 fingerprint " + e.want.String() +
		" of tls::ca_trusted_fingerprint: " + e.err.Error()
}

func (e *caFingerprintMismatch) Unwrap() error { return e.err }

// verify verifies certs, the chain a server sent (its own certificate first), for serverName.
// Its errors are *tls.CertificateVerificationError, as crypto/tls's own, holding the chain.
func (v *caTrust) verify(certs []*x509.Certificate, serverName string) error {
	if len(certs) == 0 {
		return errors.New("tls: the server sent no certificate")
	}
	if serverName == "" {
		// crypto/tls gives the connection's server name only as the SNI, which is never an IP
		// address: this is a connection through a proxy to an IP address.
		return &tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: errNoServerName}
	}
	roots := v.roots.Clone()
	pinned := false
	for _, c := range certs {
		if c.IsCA && fingerprintOf(c) == v.fingerprint {
			roots.AddCert(c)
			pinned = true
		}
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: serverName, Intermediates: x509.NewCertPool()}
	for _, c := range certs[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := certs[0].Verify(opts)
	if err == nil {
		return nil
	}
	if ua, ok := errors.AsType[x509.UnknownAuthorityError](err); ok && !pinned {
		err = &caFingerprintMismatch{want: v.fingerprint, err: ua}
	}
	return &tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: err}
}

// install makes t verify servers' certificates with v in place of crypto/tls's own
// verification, keeping every other TLS setting of t (client certificate, server name,
// versions, cipher suites). A direct connection is made by t.DialTLSContext, which knows the
// host dialed, IP address or name, and verifies the certificate for it (or for
// tls::server_name_override). Through a proxy, t makes the TLS connection itself with
// t.TLSClientConfig, whose VerifyConnection learns the host name only from the connection's SNI.
func (v *caTrust) install(t *http.Transport) {
	cfg := &tls.Config{}
	if t.TLSClientConfig != nil {
		cfg = t.TLSClientConfig.Clone()
	}
	v.roots = cfg.RootCAs
	if v.roots == nil {
		// crypto/tls verifies with the system's roots when tls::ca_file is not set.
		sys, err := x509.SystemCertPool()
		if err != nil {
			sys = x509.NewCertPool()
		}
		v.roots = sys
	}
	// Verified by VerifyConnection instead, which checks all that crypto/tls checks.
	cfg.InsecureSkipVerify = true
	cfg.VerifyConnection = func(cs tls.ConnectionState) error { return v.verify(cs.PeerCertificates, cs.ServerName) }
	t.TLSClientConfig = cfg

	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := t.TLSClientConfig.Clone()
		if c.ServerName == "" {
			c.ServerName, _, _ = net.SplitHostPort(addr)
		}
		name := c.ServerName
		c.VerifyConnection = func(cs tls.ConnectionState) error { return v.verify(cs.PeerCertificates, name) }
		hctx := ctx
		if t.TLSHandshakeTimeout > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, t.TLSHandshakeTimeout)
			defer cancel()
		}
		tc := tls.Client(conn, c)
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return tc, nil
	}
}

// caTrustMiddlewareID is the ID under which New hands caTrustMiddleware to confighttp.
var caTrustMiddlewareID = component.MustNewID("elasticsearch_ca_trusted_fingerprint")

// caTrustMiddleware installs a caTrust on the HTTP transport that confighttp builds. confighttp
// loads the TLS settings into the transport inside ClientConfig.ToClient; the HTTP client
// middlewares it is given are the one place where the transport is handed out before any
// request. New lists this one last, so that it is handed the transport itself.
type caTrustMiddleware struct {
	component.StartFunc
	component.ShutdownFunc
	trust *caTrust
}

var _ extensionmiddleware.HTTPClient = caTrustMiddleware{}

func (m caTrustMiddleware) GetHTTPRoundTripper(context.Context) (extensionmiddleware.WrapHTTPRoundTripperFunc, error) {
	return func(_ context.Context, base http.RoundTripper) (http.RoundTripper, error) {
		t, ok := base.(*http.Transport)
		if !ok {
			return nil, fmt.Errorf("tls::ca_trusted_fingerprint: the HTTP client's transport is a %T, not the *http.Transport whose verification it replaces", base)
		}
		m.trust.install(t)
		return t, nil
	}, nil
}
