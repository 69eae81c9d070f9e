// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"net/url"
	"slices"
	"strings"

	"go.uber.org/zap"
)

// warnInsecure warns, once per client (New is called once per component), about credentials
// sent over plain http:// and about a server certificate that is not verified. The credentials
// named are those each plain http:// request carries, in the order the Authorization header is
// set (see unauthorizedHint): an Authorization header under `headers`, else the URL's user
// info, else `api_key`, else `user`/`password`; the others are not sent, so not named. What an
// auth extension sends cannot be seen, so it is not warned about.
func warnInsecure(cfg Config, urls []*url.URL, logger *zap.Logger) {
	var header string
	for name := range cfg.HTTP.Headers.Iter {
		if strings.EqualFold(name, "Authorization") {
			header = "`headers::" + name + "`"
		}
	}
	var plain, keys []string
	for _, u := range urls {
		if u.Scheme != "http" {
			continue
		}
		plain = append(plain, u.Redacted())
		var key string
		switch {
		case header != "":
			key = header
		case u.User != nil:
			key = "the endpoint URL's user info"
		case cfg.APIKey != "":
			key = "`api_key`"
		case cfg.User != "" && cfg.Password != "": // one alone sends nothing
			key = "`user`/`password`"
		}
		if key != "" && !slices.Contains(keys, key) {
			keys = append(keys, key)
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
	if cfg.HTTP.TLS.InsecureSkipVerify {
		logger.Warn("`tls::insecure_skip_verify` is true: the server's certificate is not verified, so anyone on the " +
			"network path can pose as Elasticsearch and read the credentials and documents. Set `tls::ca_file` instead")
	}
}
