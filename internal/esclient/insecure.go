// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"net/url"
	"strings"

	"go.uber.org/zap"
)

// warnInsecure warns, once per client (New is called once per component), about credentials
// sent over plain http:// and about a server certificate that is not verified. Credentials
// are user/password, api_key, a URL's user info and an Authorization header; what an auth
// extension sends cannot be seen, so it is not warned about.
func warnInsecure(cfg Config, urls []*url.URL, logger *zap.Logger) {
	var plain []string
	withUserInfo := false
	for _, u := range urls {
		if u.Scheme == "http" {
			plain = append(plain, u.Redacted())
			withUserInfo = withUserInfo || u.User != nil
		}
	}
	if len(plain) > 0 {
		var keys []string
		if cfg.User != "" && cfg.Password != "" { // one alone sends nothing
			keys = append(keys, "`user`/`password`")
		}
		if cfg.APIKey != "" {
			keys = append(keys, "`api_key`")
		}
		if withUserInfo {
			keys = append(keys, "the endpoint URL's user info")
		}
		for name := range cfg.HTTP.Headers.Iter {
			if strings.EqualFold(name, "Authorization") {
				keys = append(keys, "`headers::"+name+"`")
			}
		}
		if len(keys) > 0 {
			verb := " is"
			if len(keys) > 1 || keys[0] == "`user`/`password`" {
				verb = " are"
			}
			logger.Warn(strings.Join(keys, " and ") + verb + " sent over plain http:// to " + strings.Join(plain, ", ") +
				": anyone on the network path can read them. Use https:// endpoints")
		}
	}
	if cfg.HTTP.TLS.InsecureSkipVerify {
		logger.Warn("`tls::insecure_skip_verify` is true: the server's certificate is not verified, so anyone on the " +
			"network path can pose as Elasticsearch and read the credentials and documents. Set `tls::ca_file` instead")
	}
}
