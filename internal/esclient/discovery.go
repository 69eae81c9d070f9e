// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"net/url"
	"time"

	"go.uber.org/zap"
)

// Node discovery (elastic-transport-go v8.8.0) builds each discovered node's URL from its
// publish address and the scheme of the first endpoint, and nothing else: no path, no user
// info. A request to a discovered node is sent through the same HTTP transport (TLS settings,
// headers, auth extension) and authenticated from the client's user and password or API key,
// which a configured node's URL user info overrides for that node only.

// userInfoCredentials returns the user and password written in the endpoints' URLs, for the
// nodes discovery finds: when no `user`/`password` pair or `api_key` is set, the endpoints'
// user info is the only credential, and discovered nodes would get none. Else it returns
// `user`/`password` as configured. It returns nothing when no URL has
// user info with a password (the client sends basic authentication from its settings only
// with a password), or when URLs carry different user info, which it warns about when
// discovery is on.
func userInfoCredentials(cfg Config, urls []*url.URL, logger *zap.Logger) (user, password string) {
	if (cfg.User != "" && cfg.Password != "") || cfg.APIKey != "" {
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

// askNodes calls ask until it reports that a node answered, at most once per node in use, or
// until ctx ends. Each request of ask goes to the next node in the transport's round-robin
// order, so one node that does not answer is followed at once by the next.
func (c *Client) askNodes(ctx context.Context, ask func() (answered bool)) {
	for range max(1, len(c.transport.URLs())) {
		if ask() || ctx.Err() != nil {
			return
		}
	}
}

// discover asks the nodes in use for the cluster's nodes until one answers (askNodes): a
// discovery fails only when none of them answers. The transport's discovery asks one node, the
// next in round-robin order, so with one node down every other discovery would fail while the
// others answer.
func (c *Client) discover(ctx context.Context) error {
	var err error
	c.askNodes(ctx, func() bool {
		err = c.transport.DiscoverNodesContext(ctx)
		return err == nil
	})
	return err
}

// discoverEvery discovers the cluster's nodes every interval until ctx ends, each discovery
// bounded by the interval. The transport's own periodic discovery drops its errors; this one
// warns at the first failure of a run of failures (no node in use answered; the nodes in use
// are kept meanwhile) and says when discovery works again.
func (c *Client) discoverEvery(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		dctx, cancel := context.WithTimeout(ctx, interval)
		err := c.discover(dctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			failing = true
			c.logger.Warn("Elasticsearch node discovery failed; the nodes in use are kept, and discovery is tried again at each `discover::interval`",
				zap.Strings("nodes", c.RedactedURLs()), zap.Error(redactError(err)))
		case err == nil && failing:
			failing = false
			c.logger.Info("Elasticsearch node discovery works again", zap.Strings("nodes", c.RedactedURLs()))
		}
	}
}
