// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"net/url"

	"go.uber.org/zap"
)

// Node discovery (elastic-transport-go v8.8.0) builds each discovered node's URL from its
// publish address and the scheme of the first endpoint, and nothing else: no path, no user
// info. A request to a discovered node is sent through the same HTTP transport (TLS settings,
// headers, auth extension) and authenticated from the client's user and password or API key,
// which a configured node's URL user info overrides for that node only.

// userInfoCredentials returns the user and password written in the endpoints' URLs, for the
// nodes discovery finds: when no `user` or `api_key` is set, the endpoints' user info is the
// only credential, and discovered nodes would get none. It returns nothing when no URL has
// user info with a password (the client sends basic authentication from its settings only
// with a password), or when URLs carry different user info, which it warns about when
// discovery is on.
func userInfoCredentials(cfg Config, urls []*url.URL, logger *zap.Logger) (user, password string) {
	if cfg.User != "" || cfg.APIKey != "" {
		return cfg.User, cfg.Password
	}
	var found *url.Userinfo
	for _, u := range urls {
		if u.User == nil {
			continue
		}
		if found != nil && found.String() != u.User.String() {
			if cfg.DiscoverOnStart || cfg.DiscoverInterval > 0 {
				logger.Warn("The endpoint URLs carry different user info, so nodes found by discovery are sent no " +
					"credentials; set `user` and `password` or `api_key`")
			}
			return "", ""
		}
		found = u.User
	}
	if found == nil {
		return "", ""
	}
	password, _ = found.Password()
	if password == "" {
		return "", ""
	}
	return found.Username(), password
}
