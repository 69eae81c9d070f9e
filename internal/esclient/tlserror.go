// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
)

// TLSConfigProblem tells whether err is a TLS handshake that failed on a setting, which
// waiting does not fix, and says which settings to check. Such failures are: a server
// certificate that cannot be verified; an alert from the server that refuses our client
// certificate or asks for one, or finds no TLS version, cipher suite or host name in common
// (handshake_failure, bad_certificate, certificate_required, protocol_version,
// insufficient_security, unrecognized_name...); an answer that is not TLS at all (an https://
// endpoint on a plain HTTP port); and the client's own refusal of the version or cipher suite
// the server chose. Alerts that say nothing about the settings (close_notify,
// internal_error, decode_error, bad_record_mac...) and every other network error are not such
// failures.
func TLSConfigProblem(err error) (hint string, ok bool) {
	if err == nil {
		return "", false
	}
	// crypto/tls wraps the x509 error in a *tls.CertificateVerificationError; the x509
	// errors are matched first, so that each one's own hint is given. Outside that wrapper
	// they come from a VerifyConnection or VerifyPeerCertificate callback.
	if _, ok := errors.AsType[x509.HostnameError](err); ok {
		return "the server's TLS certificate is not for the endpoint's host; check the endpoint or tls::server_name_override", true
	}
	if ci, ok := errors.AsType[x509.CertificateInvalidError](err); ok {
		if ci.Reason == x509.Expired {
			return "the server's TLS certificate has expired or is not valid yet (check the clocks); renew it on the server", true
		}
		return "the server's TLS certificate is not valid; check tls::ca_file", true
	}
	if errors.Is(err, errNoServerName) {
		return "with tls::ca_trusted_fingerprint, a connection through a proxy to an IP address has no host name to verify the " +
			"server's TLS certificate for; use a host name of the certificate in the endpoint, or in tls::server_name_override", true
	}
	if _, ok := errors.AsType[*caFingerprintMismatch](err); ok {
		return "tls::ca_trusted_fingerprint matches no CA certificate that the server sent" + sentChain(err, func(string) string {
			return "check the fingerprint against that CA's"
		}), true
	}
	if _, ok := errors.AsType[x509.UnknownAuthorityError](err); ok {
		return "the server's TLS certificate cannot be verified" +
			sentChain(err, func(fp string) string {
				return "if it is your cluster's CA, trust it with tls::ca_trusted_fingerprint: " + fp + ", or set tls::ca_file to its certificate"
			}), true
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return "the server's TLS certificate cannot be verified; check tls::ca_file", true
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return "the server does not answer TLS (an https:// endpoint on a plain HTTP port?); check the endpoint's scheme and port", true
	}
	if code, ok := receivedAlert(err); ok {
		return alertHint(code)
	}
	msg := err.Error()
	for _, local := range localTLSRefusals {
		if strings.Contains(msg, local) {
			return "the server chose a TLS version or cipher suite that tls::min_version, tls::max_version or tls::cipher_suites exclude", true
		}
	}
	return "", false
}

// sentChain describes the last certificate of the chain that the server sent (the one closest
// to the root), as crypto/tls's verification error holds it: its subject, and its SHA-256
// fingerprint when it is a CA, followed by what fix says for that fingerprint. A server
// whose chain holds no CA is told to set tls::ca_file instead, and an error without the chain
// (from a VerifyConnection callback of some other) to check it.
func sentChain(err error, fix func(fingerprint string) string) string {
	cv, ok := errors.AsType[*tls.CertificateVerificationError](err)
	if !ok || len(cv.UnverifiedCertificates) == 0 {
		return "; check tls::ca_file"
	}
	top := cv.UnverifiedCertificates[len(cv.UnverifiedCertificates)-1]
	if !top.IsCA {
		return fmt.Sprintf(": the server sent no CA certificate, its chain ends with %q, issued by %q; set tls::ca_file to the certificate of that CA",
			top.Subject.String(), top.Issuer.String())
	}
	fp := fingerprintOf(top).String()
	return fmt.Sprintf(": the CA certificate it sent is %q, SHA-256 fingerprint %s; %s", top.Subject.String(), fp, fix(fp))
}

// localTLSRefusals are the messages of crypto/tls's client when it refuses what the server
// chose; they have no type of their own.
var localTLSRefusals = []string{
	"tls: server selected unsupported protocol version",
	"tls: server chose an unconfigured cipher suite",
	"tls: no supported versions satisfy MinVersion and MaxVersion",
}

// TLS alerts (RFC 8446 section 6, RFC 5246 section 7.2) that the server sends when a setting
// of ours does not suit it.
const (
	alertHandshakeFailure       = 40
	alertBadCertificate         = 42
	alertUnsupportedCertificate = 43
	alertCertificateRevoked     = 44
	alertCertificateExpired     = 45
	alertCertificateUnknown     = 46
	alertUnknownCA              = 48
	alertAccessDenied           = 49
	alertProtocolVersion        = 70
	alertInsufficientSecurity   = 71
	alertUnrecognizedName       = 112
	alertCertificateRequired    = 116
	alertNoApplicationProtocol  = 120
)

// alertHint says what an alert from the server means for the settings, and whether it is
// about them at all.
func alertHint(code uint8) (string, bool) {
	switch code {
	case alertCertificateRequired:
		return "the server requires a TLS client certificate; set tls::cert_file and tls::key_file", true
	case alertBadCertificate, alertUnsupportedCertificate, alertCertificateRevoked, alertCertificateExpired,
		alertCertificateUnknown, alertUnknownCA, alertAccessDenied:
		return "the server refused the TLS client certificate, or wants one; check tls::cert_file and tls::key_file", true
	case alertProtocolVersion, alertInsufficientSecurity:
		return "the server and tls::min_version, tls::max_version and tls::cipher_suites have no TLS version or cipher suite in common", true
	case alertHandshakeFailure:
		return "the server refused the TLS handshake: no cipher suite or version in common, or a client certificate it requires; " +
			"check tls::cipher_suites, tls::min_version, tls::max_version, tls::cert_file and tls::key_file", true
	case alertUnrecognizedName:
		return "the server does not serve the TLS server name sent; check the endpoint's host or tls::server_name_override", true
	case alertNoApplicationProtocol:
		return "the server and the client have no application protocol (ALPN) in common", true
	}
	return "", false
}

// receivedAlert returns the code of the TLS alert that the server sent, if err is one.
// crypto/tls reports it as a *net.OpError "remote error" around an unexported alert type (a
// uint8); tls.AlertError is what it returns over QUIC, and perhaps elsewhere later.
func receivedAlert(err error) (uint8, bool) {
	if a, ok := errors.AsType[tls.AlertError](err); ok {
		return uint8(a), true
	}
	op, ok := errors.AsType[*net.OpError](err)
	if !ok || op.Op != "remote error" || op.Err == nil {
		return 0, false
	}
	v := reflect.ValueOf(op.Err)
	if t := v.Type(); t.PkgPath() != "crypto/tls" || t.Kind() != reflect.Uint8 {
		return 0, false
	}
	return uint8(v.Uint()), true
}
