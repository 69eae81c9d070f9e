// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// unauthorizedHint says, for an answer 401, which credentials the requests carried and what to
// check, never a secret: a user's name, an API key's id, an extension's ID. The credentials are
// those that end on the wire, in the order they are set on a request: the elastic-transport
// client sets the Authorization header from an endpoint URL's user info, else from `api_key`,
// else from `user`/`password`; an Authorization header under `headers` is set after it and
// replaces it; an authenticator extension handles the request last. A client certificate
// (`tls::cert_file` or `tls::cert_pem`) is sent in the TLS handshake beside all of them and is
// named by its subject.
func unauthorizedHint(cfg Config, urls []*url.URL) string {
	sent, fix := "none", "set `user` and `password`, or `api_key`, or `auth::authenticator`"
	switch {
	case urlUser(urls) != nil:
		sent = fmt.Sprintf("user %q from the endpoint URL", urlUser(urls).Username())
		fix = "check the user and password in the endpoint URL"
	case cfg.APIKey != "":
		sent = "an API key whose id cannot be read (`api_key`)"
		if id, ok := apiKeyID(cfg.APIKey); ok {
			sent = fmt.Sprintf("API key id %q (`api_key`)", id)
		}
		fix = "check `api_key`: the key must exist in this cluster, be neither expired nor invalidated, " +
			"and be given whole (its encoded value, or id:api_key)"
	case cfg.User != "" && cfg.Password != "":
		sent = fmt.Sprintf("user %q (`user`/`password`)", cfg.User)
		fix = "check `user` and `password`: the user must exist in a realm of the cluster (native or file) with this password"
	}
	for name := range cfg.HTTP.Headers.Iter {
		if strings.EqualFold(name, "Authorization") {
			sent = "the Authorization header of `headers`"
			fix = "check the Authorization header under `headers`"
		}
	}
	if auth := cfg.HTTP.Auth.Get(); auth != nil {
		if sent == "none" {
			sent = fmt.Sprintf("what the authenticator extension %q sets (`auth::authenticator`)", auth.AuthenticatorID)
		} else {
			sent = fmt.Sprintf("what the authenticator extension %q sets (`auth::authenticator`), over %s", auth.AuthenticatorID, sent)
		}
		fix = fmt.Sprintf("check the credentials of the extension %q", auth.AuthenticatorID)
	}
	if subject, key, ok := clientCertSubject(cfg); ok {
		cert := fmt.Sprintf("the client certificate with subject %q (`%s`)", subject, key)
		certFix := "check that a PKI realm of the cluster trusts the certificate's CA and takes a user name " +
			"from its subject (the realm's username_pattern; CN by default)"
		if sent == "none" {
			sent, fix = cert, certFix
		} else {
			sent, fix = sent+", and "+cert, fix+"; or "+certFix
		}
	}
	return "the credentials were refused; sent: " + sent + "; " + fix
}

// clientCertSubject is the subject of the first certificate of the configured client
// certificate and the key it was configured with, `tls::cert_pem` or the file `tls::cert_file`;
// false when none is configured or it cannot be read. Only the certificate is read, never the key.
func clientCertSubject(cfg Config) (subject, key string, ok bool) {
	tls := cfg.HTTP.TLS
	data, key := []byte(string(tls.CertPem)), "tls::cert_pem"
	if len(data) == 0 && tls.CertFile != "" {
		b, err := os.ReadFile(tls.CertFile)
		if err != nil {
			return "", "", false
		}
		data, key = b, "tls::cert_file"
	}
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return "", "", false
		}
		return cert.Subject.String(), key, true
	}
	return "", "", false
}

// urlUser is the user info of the first endpoint URL that carries one.
func urlUser(urls []*url.URL) *url.Userinfo {
	for _, u := range urls {
		if u.User != nil {
			return u.User
		}
	}
	return nil
}

// apiKeyID is the id of an API key given in any form EncodeAPIKey reads: the part before the
// ':' of what it encodes. The secret after it is never returned.
func apiKeyID(k string) (string, bool) {
	enc, err := EncodeAPIKey(k)
	if err != nil || enc == "" {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	id, _, ok := strings.Cut(string(b), ":")
	return id, ok
}
