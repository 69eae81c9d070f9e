// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Write is an index pattern the configuration writes documents to, and what it writes there.
type Write struct {
	// Pattern is the index or data stream name, or a pattern with * covering those written.
	Pattern string
	// For says what is written there, for the log line: "logs", "dead letters"...
	For string
}

// writePrivileges are the index privileges every write needs: every bulk item is a create,
// and the first document of a data stream or index creates it.
var writePrivileges = []string{"auto_configure", "create_doc"}

// writePrivilegesJSON is writePrivileges as a role's JSON list, for the log line.
var writePrivilegesJSON = func() string {
	b, _ := json.Marshal(writePrivileges)
	return string(b)
}()

// privilegesPath is the API that says which of the privileges asked for the credentials hold.
const privilegesPath = "/_security/user/_has_privileges"

// monitorPrivilege is the cluster privilege of the version check (GET /) and node discovery.
const monitorPrivilege = "monitor"

// checkPrivileges asks _security/user/_has_privileges whether the credentials hold the
// privileges that c.writes and the version check need, and warns once per privilege missing,
// naming it, the index pattern, the user Elasticsearch authenticated and a role that grants
// it. Any authenticated user may ask about its own privileges; an answer other than 200
// (security disabled, an older or a proxied server) is said at Debug, and nothing is recorded.
func (c *Client) checkPrivileges(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	patterns, forWhat := groupWrites(c.writes)
	type indexReq struct {
		Names      []string `json:"names"`
		Privileges []string `json:"privileges"`
	}
	reqBody := struct {
		Cluster []string   `json:"cluster"`
		Index   []indexReq `json:"index,omitempty"`
	}{Cluster: []string{monitorPrivilege}}
	if len(patterns) > 0 {
		reqBody.Index = []indexReq{{Names: patterns, Privileges: writePrivileges}}
	}
	body, err := json.Marshal(reqBody)
	if err != nil {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, privilegesPath, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Perform(req)
	if err != nil {
		c.logger.Debug("Privilege check not possible", zap.Error(err))
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		c.logger.Debug("Privilege check not possible: POST /_security/user/_has_privileges was not answered 200",
			zap.Int("status", resp.StatusCode), zap.String("answer", TruncateReason(string(answer))))
		return
	}
	var has struct {
		Username string                     `json:"username"`
		Cluster  map[string]bool            `json:"cluster"`
		Index    map[string]map[string]bool `json:"index"`
	}
	if err := json.Unmarshal(answer, &has); err != nil {
		c.logger.Debug("Privilege check not possible: the answer cannot be read", zap.Error(err))
		return
	}
	missing := 0
	if granted, ok := has.Cluster[monitorPrivilege]; ok && !granted {
		missing++
		c.logger.Warn(fmt.Sprintf("The credentials lack the cluster privilege `monitor`, which the version check (GET /) "+
			"and node discovery need; grant it with a role of user %q: {\"cluster\":[\"monitor\"]}", has.Username),
			zap.String("privilege", monitorPrivilege), zap.String("user", has.Username))
	}
	for _, p := range patterns {
		for _, priv := range writePrivileges {
			granted, ok := has.Index[p][priv]
			if !ok || granted {
				continue
			}
			missing++
			c.logger.Warn(fmt.Sprintf("The credentials lack the index privilege `%s` on %s, which writing %s needs; "+
				"Elasticsearch answers 403 to the bulk requests that write there. Grant it with a role of user %q: "+
				`{"indices":[{"names":[%q],"privileges":%s}]}`,
				priv, p, forWhat[p], has.Username, p, writePrivilegesJSON),
				zap.String("privilege", priv), zap.String("index", p), zap.String("user", has.Username))
		}
	}
	c.checks.record(CheckPrivileges, missing > 0)
}

// groupWrites returns the distinct patterns of writes in their order, and for each what is
// written there, joined.
func groupWrites(writes []Write) ([]string, map[string]string) {
	var patterns []string
	forWhat := map[string][]string{}
	for _, w := range writes {
		if _, ok := forWhat[w.Pattern]; !ok {
			patterns = append(patterns, w.Pattern)
		}
		if !slices.Contains(forWhat[w.Pattern], w.For) {
			forWhat[w.Pattern] = append(forWhat[w.Pattern], w.For)
		}
	}
	joined := make(map[string]string, len(forWhat))
	for p, f := range forWhat {
		joined[p] = strings.Join(f, " and ")
	}
	return patterns, joined
}
