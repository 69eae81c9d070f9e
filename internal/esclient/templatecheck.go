// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"go.uber.org/zap"
)

// maxCheckedDataStreams bounds the names remembered by the template check, so that a
// high-cardinality routing attribute cannot grow memory without limit. Past it, new data
// streams are not checked.
const maxCheckedDataStreams = 4096

// TemplateChecker warns once per data stream when no index template with a data_stream
// section matches it: Elasticsearch then rejects every document sent with
// require_data_stream. The first time the exporter routes to a data stream, a background
// worker asks POST /_index_template/_simulate_index/<name>; pushes never wait for it. Observe
// is safe for concurrent use.
type TemplateChecker struct {
	client elastictransport.Interface
	logger *zap.Logger

	mu    sync.Mutex
	seen  map[string]struct{}
	queue chan string

	// forbidden is set once the server answered 403: the credentials lack the privilege, and
	// nothing more is asked.
	forbidden atomic.Bool

	// failed is set once a data stream had no matching template: the check stays failed.
	// Only Next's goroutine reads and writes it.
	failed bool
}

// NewTemplateChecker returns a TemplateChecker that asks through client; Next does the checks.
func NewTemplateChecker(client elastictransport.Interface, logger *zap.Logger) *TemplateChecker {
	return &TemplateChecker{client: client, logger: logger, seen: map[string]struct{}{}, queue: make(chan string, 64)}
}

// Observe notes that documents are being routed to the data stream name. It is cheap when the
// name was seen before; callers still call it only when the name changes.
func (c *TemplateChecker) Observe(name string) {
	c.mu.Lock()
	_, seen := c.seen[name]
	if seen || len(c.seen) >= maxCheckedDataStreams {
		c.mu.Unlock()
		return
	}
	c.seen[name] = struct{}{}
	c.mu.Unlock()
	select {
	case c.queue <- name:
	default:
		c.forget(name) // the worker is behind; check it another time
	}
}

func (c *TemplateChecker) forget(name string) {
	c.mu.Lock()
	delete(c.seen, name)
	c.mu.Unlock()
}

// Next checks the queued names, one at a time, until a check has a result, and returns the
// result of the check made at start (CheckTemplate): failed once a data stream checked so far
// had no matching template. ok is false once ctx has ended. The caller calls it in a loop on
// one goroutine and records each result.
func (c *TemplateChecker) Next(ctx context.Context) (failed, ok bool) {
	for {
		select {
		case <-ctx.Done():
			return false, false
		case name := <-c.queue:
			if found, decided := c.check(ctx, name); decided {
				c.failed = c.failed || !found
				return c.failed, true
			}
		}
	}
}

// check asks whether a template with a data_stream section matches the data stream name, and
// warns when none does. decided is false when no answer was had (no privilege, an older
// server, the server not reachable).
func (c *TemplateChecker) check(ctx context.Context, name string) (found, decided bool) {
	if c.forbidden.Load() {
		return false, false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/_index_template/_simulate_index/"+url.PathEscape(name), http.NoBody)
	if err != nil {
		return false, false
	}
	resp, err := c.client.Perform(req)
	if err != nil {
		c.forget(name) // the server is not reachable now; check again later
		return false, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusForbidden && !c.forbidden.Swap(true) {
		c.logger.Info("Index template checks not permitted: POST /_index_template/_simulate_index needs the " +
			"`manage_index_templates` cluster privilege, which the credentials lack; data streams are not checked " +
			"for a matching template")
	}
	if resp.StatusCode != http.StatusOK {
		// No privilege to read templates, or an older server: say nothing rather than guess.
		c.logger.Debug("Index template check not possible", zap.String("data_stream", name),
			zap.Int("status", resp.StatusCode))
		return false, false
	}
	var sim struct {
		Template *struct {
			Mappings map[string]json.RawMessage `json:"mappings"`
		} `json:"template"`
	}
	if err := json.Unmarshal(body, &sim); err != nil {
		return false, false
	}
	if sim.Template == nil {
		c.logger.Warn("No index template matches data stream "+name+"; Elasticsearch rejects its documents "+
			"(require_data_stream). Install a composable template with a data_stream section for it, "+
			"or use Elasticsearch 8.16+ whose built-in templates match *.otel-* data streams",
			zap.String("data_stream", name))
		return false, true
	}
	if _, ok := sim.Template.Mappings["_data_stream_timestamp"]; !ok {
		c.logger.Warn("The index template matching "+name+" has no data_stream section; Elasticsearch "+
			"rejects documents sent to it with require_data_stream", zap.String("data_stream", name))
		return false, true
	}
	return true, true
}
