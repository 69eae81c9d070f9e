// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Version is an Elasticsearch version: major, minor, patch.
type Version [3]int

// minOTelVersion is the first Elasticsearch version with the OTel-native data stream templates
// (logs-*.otel-*, traces-*.otel-*) that the otel mapping mode writes for.
var minOTelVersion = Version{8, 16, 0}

// minTSDBMetricNamesVersion is the first 8.17 patch whose time series data streams take the
// document's _metric_names_hash into the series identity; 8.18 and later take it too. Before
// it, two metric documents with the same dimensions and timestamp but different metrics
// collide, and the second is answered 409.
var minTSDBMetricNamesVersion = Version{8, 17, 6}

// minIncludeSourceVersion is the first Elasticsearch version that takes the bulk parameter
// include_source_on_error.
var minIncludeSourceVersion = Version{8, 18, 0}

// TakesIncludeSourceOnError reports whether a server of this version takes the bulk parameter
// include_source_on_error.
func (v Version) TakesIncludeSourceOnError() bool { return !less(v, minIncludeSourceVersion) }

// firstVersionRetry is the wait after the first failed version check; maxVersionRetry caps
// the wait, which doubles after each failure.
const (
	firstVersionRetry = 30 * time.Second
	maxVersionRetry   = 10 * time.Minute
)

// nextVersionRetry is the wait after d between two version checks.
func nextVersionRetry(d time.Duration) time.Duration { return min(2*d, maxVersionRetry) }

// CheckServer discovers the cluster's nodes first when Config.DiscoverOnStart is set, then
// reads the server's version, logs it, and warns when it is older than the otel mapping mode
// needs. A node that does not answer is followed at once by the next node in use. A check that
// fails (no node answers, or an answer such as 403 for credentials without the
// monitor cluster privilege) is a warning, not a failure: documents are sent meanwhile, and
// CheckServer asks again after 30 seconds, doubling the wait after each failure up to 10
// minutes, until the server answers or ctx ends. It warns once for each kind of failure
// in a row (no answer, 401, 403, another status). It returns the version, and false when ctx
// ended first or the version could not be read.
func (c *Client) CheckServer(ctx context.Context) (Version, bool) {
	if c.discoverOnStart {
		if err := c.discover(ctx); err != nil {
			c.logger.Warn("Elasticsearch node discovery failed; using the configured endpoints", zap.Error(redactError(err)))
		}
	}
	var version, cluster string
	warned := -1 // the status last warned about, one of failureKind's
	checkedPrivileges := false
	for retry := firstVersionRetry; ; retry = nextVersionRetry(retry) {
		var status int
		var err error
		// A node that does not answer is followed at once by the next node in use, as in a
		// discovery: the check fails when none answers.
		c.askNodes(ctx, func() bool {
			reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			version, cluster, status, err = c.serverVersion(reqCtx)
			return err == nil || status != 0
		})
		if ctx.Err() != nil && err != nil {
			return Version{}, false
		}
		c.recordReach(status, err)
		if !checkedPrivileges && (err == nil || status == http.StatusForbidden) {
			// The credentials were accepted: ask which of the privileges they hold.
			checkedPrivileges = true
			c.checkPrivileges(ctx)
		}
		if err == nil {
			break
		}
		if kind := failureKind(status); kind != warned {
			warned = kind
			msg := "Elasticsearch version check failed"
			switch status {
			case http.StatusUnauthorized:
				msg = "Elasticsearch version check failed with HTTP 401"
			case http.StatusForbidden:
				msg = "Elasticsearch version check not permitted: GET / needs the `monitor` cluster privilege, which the credentials lack"
			}
			c.logger.Warn(msg+"; documents are sent meanwhile, and the check is repeated at growing intervals, up to every "+
				maxVersionRetry.String(), zap.Strings("endpoints", c.RedactedURLs()), zap.Error(err))
		}
		if wait(ctx, retry) != nil {
			return Version{}, false
		}
	}
	c.logger.Info("Connected to Elasticsearch", zap.String("version", version), zap.String("cluster", cluster))
	v, ok := parseVersion(version)
	if !ok {
		c.logger.Warn("Elasticsearch's version could not be read; the version is not checked", zap.String("version", version))
		return v, false
	}
	c.checks.record(CheckVersion, c.warnVersion(v, version))
	return v, true
}

// warnVersion warns when the server's version is too old for the mapping modes configured,
// and tells whether it did.
func (c *Client) warnVersion(v Version, version string) bool {
	if !c.otelMode {
		return false
	}
	if less(v, minOTelVersion) {
		c.logger.Warn(fmt.Sprintf("Elasticsearch %s is older than 8.16, the first version with the OTel-native "+
			"templates that mapping mode otel writes for; documents may be mapped by other templates, "+
			"and require_data_stream needs 8.13. Upgrade Elasticsearch to 8.16 or later, or list only "+
			"modes written for older servers in `mapping::allowed_modes` (ecs, raw, none)", version))
		return true
	}
	if c.otelMetrics && less(v, minTSDBMetricNamesVersion) {
		c.logger.Warn(fmt.Sprintf("Elasticsearch %s is older than 8.17.6: its time series data streams ignore "+
			"_metric_names_hash, so two metric documents of mapping mode otel with the same dimensions and "+
			"timestamp but different metrics collide, and the second is answered 409 and counted as a duplicate. "+
			"Upgrade Elasticsearch to 8.17.6 or later", version))
		return true
	}
	return false
}

// recordReach records what an answer of the version check says of the connection, TLS and
// the credentials: status is the answer's, 0 when there was none.
func (c *Client) recordReach(status int, err error) {
	if status == 0 && err != nil {
		if _, tls := TLSConfigProblem(err); tls {
			c.checks.record(CheckConnect, false)
			c.checks.record(CheckTLS, true)
		} else {
			c.checks.record(CheckConnect, true)
		}
		return
	}
	c.checks.record(CheckConnect, false)
	if c.https {
		c.checks.record(CheckTLS, false)
	}
	switch status {
	case http.StatusUnauthorized:
		c.checks.record(CheckAuth, true)
	case 0, http.StatusOK, http.StatusForbidden:
		// 403: the credentials were accepted, and lack a privilege.
		c.checks.record(CheckAuth, false)
	}
}

// failureKind groups the statuses of failed version checks for their warnings: 0 (no
// answer), 401, 403, and 1 for any other status.
func failureKind(status int) int {
	switch status {
	case 0, http.StatusUnauthorized, http.StatusForbidden:
		return status
	}
	return 1
}

// serverVersion asks GET / for the version, and GET /_nodes/_local where a server answers the
// root with 404 or 405 (builds without the root endpoint's module do). On failure it returns
// the HTTP status of the answer, 0 when there was none.
func (c *Client) serverVersion(ctx context.Context) (version, cluster string, status int, err error) {
	var root struct {
		ClusterName string `json:"cluster_name"`
		Version     struct {
			Number string `json:"number"`
		} `json:"version"`
	}
	status, err = c.getJSON(ctx, "/", &root)
	if err == nil {
		return root.Version.Number, root.ClusterName, 0, nil
	}
	if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return "", "", status, err
	}
	var nodes struct {
		ClusterName string `json:"cluster_name"`
		Nodes       map[string]struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	if status, err := c.getJSON(ctx, "/_nodes/_local?filter_path=cluster_name,nodes.*.version", &nodes); err != nil {
		return "", "", status, err
	}
	for _, n := range nodes.Nodes {
		return n.Version, nodes.ClusterName, 0, nil
	}
	return "", "", http.StatusOK, errors.New("the nodes info answer names no node")
}

// getJSON sends GET path and decodes a 200 answer into v. It returns the HTTP status, 0 when
// there was no answer. The error of another status quotes at most MaxReason bytes of the
// answer's body.
func (c *Client) getJSON(ctx context.Context, path string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, http.NoBody)
	if err != nil {
		return 0, err
	}
	req, trace := traceProxy(req)
	resp, err := c.Perform(req)
	if err != nil {
		if hint, ok := c.proxies.proxyProblem(req, trace, err); ok {
			return 0, fmt.Errorf("GET %s: %s: %w", req.URL.Path, hint, err)
		}
		if hint, ok := TLSConfigProblem(err); ok {
			return 0, fmt.Errorf("GET %s: %s: %w", req.URL.Path, hint, err)
		}
		return 0, fmt.Errorf("GET %s: %w", req.URL.Path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Only what can be quoted is read; the rest of a longer body is not.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxReason+1))
		quoted := TruncateReason(string(body))
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return resp.StatusCode, fmt.Errorf("GET %s: HTTP 401, %s: %s", req.URL.Path, c.unauthorized, quoted)
		case http.StatusForbidden:
			return resp.StatusCode, fmt.Errorf("GET %s: HTTP 403, the credentials lack the `monitor` cluster privilege that it needs: %s", req.URL.Path, quoted)
		default:
			return resp.StatusCode, fmt.Errorf("GET %s: HTTP %d: %s", req.URL.Path, resp.StatusCode, quoted)
		}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s: reading the answer: %w", req.URL.Path, err)
	}
	return resp.StatusCode, nil
}

// parseVersion reads "major.minor[.patch][-suffix]".
func parseVersion(s string) (Version, bool) {
	var v Version
	s, _, _ = strings.Cut(s, "-")
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func less(a, b Version) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// wait waits for d, or returns ctx's error when ctx ends first.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
