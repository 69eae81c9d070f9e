// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package esclient reaches Elasticsearch for the exporter: it builds the HTTP transport from
// the collector's HTTP client settings (TLS, proxy, headers, auth extensions) and the CA
// trusted by its fingerprint, the
// elastic-transport client over the configured endpoints with basic or API key
// authentication and the exporter's user agent, checks the server's version and the index
// templates of the data streams written to, and logs request and response bodies on demand.
// It knows nothing about documents or bulk requests: the bulk package sends through it.
package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.uber.org/zap"
)

// Config is what a Client is built from.
type Config struct {
	// HTTP holds the collector HTTP client settings. Its compression and timeout are not
	// applied to the HTTP client: the bulk indexer compresses request bodies itself and bounds
	// each bulk request by the timeout.
	HTTP confighttp.ClientConfig

	// Endpoints says where Elasticsearch is.
	Endpoints Endpoints

	// User and Password are HTTP basic authentication.
	User, Password string

	// APIKey is an Elasticsearch API key, in one of the forms EncodeAPIKey reads.
	APIKey string

	// CATrustedFingerprint, when set, is the fingerprint (in one of the forms
	// ParseCAFingerprint reads) of a CA certificate that is trusted when a server sends it in
	// its chain, besides the roots of HTTP.TLS (caTrust).
	CATrustedFingerprint string

	// DiscoverOnStart discovers the cluster's nodes before the version check.
	DiscoverOnStart bool

	// DiscoverInterval, when positive, rediscovers the cluster's nodes periodically.
	DiscoverInterval time.Duration

	// LogRequestBody and LogResponseBody log each request and response body at debug level.
	LogRequestBody, LogResponseBody bool

	// Writes are the indices and data streams the configuration writes to, whose privileges
	// CheckServer checks.
	Writes []Write

	// OTelMode is set when mapping mode otel may be used; OTelMetrics when metrics may be
	// written in it, to time series data streams. CheckServer checks the server's version for
	// them.
	OTelMode, OTelMetrics bool

	// Checks, when set, records the result of each check that the client makes at start (the
	// template check returns its results instead: TemplateChecker.Next).
	Checks CheckRecorder
}

// Client sends requests to Elasticsearch, round-robin over its endpoints, authenticated. It
// implements elastictransport.Interface, and is safe for concurrent use. Retries are left to
// the caller: the client sends each request once, also when it fails on a node that dies,
// which it then sets aside (transport_test.go pins the elastic-transport behavior relied
// on), and logs when a node stops and starts answering (nodewatch.go).
type Client struct {
	transport *elastictransport.Client
	http      *http.Client
	logger    *zap.Logger

	// proxies says which proxy a request goes through, for the version check's errors.
	proxies proxyRoute

	discoverOnStart bool

	// unauthorized says which credentials were sent and what to check, for an answer 401.
	unauthorized string

	// What CheckServer checks, and where it records its results (Config).
	writes                []Write
	otelMode, otelMetrics bool
	https                 bool
	checks                CheckRecorder

	// stopDiscovery ends periodic discovery; discovering is done when it has ended.
	stopDiscovery context.CancelFunc
	discovering   sync.WaitGroup
}

var _ elastictransport.Interface = (*Client)(nil)

// New builds a Client. It is called from the exporter's start, because auth extensions exist
// only once the host has started them. Its errors are final: a bad setting, not an unreachable
// server, which New never contacts.
func New(ctx context.Context, cfg Config, host component.Host, set component.TelemetrySettings, build component.BuildInfo) (*Client, error) {
	urls, err := cfg.Endpoints.URLs()
	if err != nil {
		return nil, err
	}
	apiKey, err := EncodeAPIKey(cfg.APIKey)
	if err != nil {
		// A key in none of the forms is sent as it is, as contrib sends it; the exporter's
		// start-up line says so.
		apiKey = strings.TrimSpace(cfg.APIKey)
	}
	warnInsecure(cfg, urls, set.Logger)
	// The bulk indexer compresses request bodies itself; the HTTP client must not do it again.
	httpCfg := cfg.HTTP
	httpCfg.Compression = ""
	httpCfg.Timeout = 0 // applied per bulk request instead
	extensions := host.GetExtensions()
	if cfg.CATrustedFingerprint != "" {
		fp, fpErr := ParseCAFingerprint(cfg.CATrustedFingerprint)
		if fpErr != nil {
			return nil, fmt.Errorf("`tls::ca_trusted_fingerprint` %w", fpErr)
		}
		if _, taken := extensions[caTrustMiddlewareID]; taken {
			return nil, fmt.Errorf("tls::ca_trusted_fingerprint: an extension is named %s, the ID it needs for itself", caTrustMiddlewareID)
		}
		extensions = maps.Clone(extensions)
		if extensions == nil {
			extensions = map[component.ID]component.Component{}
		}
		extensions[caTrustMiddlewareID] = caTrustMiddleware{trust: &caTrust{fingerprint: fp}}
		// Last, so that it is handed the transport itself (caTrustMiddleware).
		httpCfg.Middlewares = append(slices.Clone(httpCfg.Middlewares), configmiddleware.Config{ID: caTrustMiddlewareID})
	}
	hc, err := httpCfg.ToClient(ctx, extensions, set)
	if err != nil {
		// proxy_url is parsed here, and the error quotes it.
		return nil, fmt.Errorf("building the HTTP client: %w", redactError(err))
	}

	transport := hc.Transport
	if hc.Jar != nil {
		// `cookies` is set: the jar is on the http.Client, which the transport below bypasses.
		transport = &cookieJar{next: transport, jar: hc.Jar}
	}
	if cfg.LogRequestBody || cfg.LogResponseBody {
		transport = &bodyLogger{
			next: transport, logger: set.Logger,
			request: cfg.LogRequestBody, response: cfg.LogResponseBody,
		}
	}
	// Outermost: the node watch sees the errors the client's connection pool judges nodes by.
	transport = newNodeWatch(transport, set.Logger)
	user, password := userInfoCredentials(cfg, urls, set.Logger)
	// Periodic discovery is run by the Client (discovery.go), which logs its failures, not by
	// the transport (DiscoverNodesInterval), which drops them.
	tc, err := elastictransport.New(elastictransport.Config{
		URLs:               urls,
		Username:           user,
		Password:           password,
		APIKey:             apiKey,
		Transport:          transport,
		DisableRetry:       true, // retries happen in the bulk indexer, per document
		ConnectionPoolFunc: (&nodePool{}).set,
		UserAgent:          userAgent(build),
	})
	if err != nil {
		hc.CloseIdleConnections()
		return nil, fmt.Errorf("building the Elasticsearch client: %w", redactError(err))
	}
	c := &Client{
		transport: tc, http: hc, logger: set.Logger,
		proxies:         newProxyRoute(cfg.HTTP.ProxyURL),
		discoverOnStart: cfg.DiscoverOnStart,
		unauthorized:    unauthorizedHint(cfg, urls),
		stopDiscovery:   func() {},
		writes:          cfg.Writes,
		otelMode:        cfg.OTelMode,
		otelMetrics:     cfg.OTelMetrics,
		https:           anyHTTPS(urls),
		checks:          cfg.Checks,
	}
	if cfg.DiscoverInterval > 0 {
		var discoverCtx context.Context
		discoverCtx, c.stopDiscovery = context.WithCancel(context.Background())
		c.discovering.Go(func() { c.discoverEvery(discoverCtx, cfg.DiscoverInterval) })
	}
	return c, nil
}

// Perform sends req to one of the endpoints. Its error never holds a URL's password.
func (c *Client) Perform(req *http.Request) (*http.Response, error) {
	resp, err := c.transport.Perform(req)
	return resp, redactError(err)
}

// UnauthorizedHint says, for an answer 401, which credentials the requests carry (a user's
// name, an API key's id, an authenticator extension's ID, or none; never a secret) and what to
// check.
func (c *Client) UnauthorizedHint() string { return c.unauthorized }

// URLs returns the endpoints in use. They may hold passwords: log RedactedURLs instead.
func (c *Client) URLs() []*url.URL { return c.transport.URLs() }

// RedactedURLs returns the endpoints in use, each with its password replaced by "xxxxx".
func (c *Client) RedactedURLs() []string {
	urls := c.URLs()
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = u.Redacted()
	}
	return out
}

// Close stops node discovery and closes the idle connections.
func (c *Client) Close(ctx context.Context) error {
	c.stopDiscovery()
	c.discovering.Wait()
	err := c.transport.Close(ctx)
	c.http.CloseIdleConnections()
	return err
}

// anyHTTPS tells whether one of urls is https.
func anyHTTPS(urls []*url.URL) bool {
	for _, u := range urls {
		if u.Scheme == "https" {
			return true
		}
	}
	return false
}

// userAgent names the collector, its version and the exporter, e.g.
// "otelcol-es/0.1.0 elasticsearchexporter".
func userAgent(b component.BuildInfo) string {
	cmd := b.Command
	if cmd == "" {
		cmd = "otelcol"
	}
	return cmd + "/" + b.Version + " elasticsearchexporter"
}
