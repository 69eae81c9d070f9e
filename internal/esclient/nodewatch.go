// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// nodeWatch logs when an Elasticsearch node stops answering and when it answers again, once
// per change, naming the node. It wraps the HTTP transport outermost, so it sees what the
// elastic-transport client judges a node by: the client sets a node aside at any error of a
// round trip through this transport (refused, reset, timed out, TLS), and an answer of any
// status counts as a success. A request the caller canceled is not the node's failure and is
// not logged (the client still sets the node aside for it).
//
// Only nodes that are failing are tracked: while none is, a request costs one atomic load.
type nodeWatch struct {
	next   http.RoundTripper
	logger *zap.Logger
	now    func() time.Time

	failing atomic.Int32 // len(nodes)
	mu      sync.Mutex
	nodes   map[string]*nodeOutage // by scheme://host
}

// nodeOutage is a node's run of failed requests since its last answer.
type nodeOutage struct {
	since    time.Time
	failures int
}

func newNodeWatch(next http.RoundTripper, logger *zap.Logger) *nodeWatch {
	return &nodeWatch{next: next, logger: logger, now: time.Now, nodes: map[string]*nodeOutage{}}
}

func (w *nodeWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	switch {
	case err == nil:
		if w.failing.Load() > 0 {
			w.answered(req)
		}
	case errors.Is(err, context.Canceled) && req.Context().Err() != nil:
		// The caller gave up (shutdown): says nothing about the node.
	case req.URL.Path == discoveryPath:
		// The client does not set a node aside for a failed discovery, which discovery.go
		// and the start-up discovery log themselves.
	default:
		w.failed(req, err)
	}
	return resp, err
}

// discoveryPath is the path of elastic-transport's node discovery request.
const discoveryPath = "/_nodes/http"

// nodeName is the node a request went to: the transport sets only the scheme and host of a
// node's URL on the request (user info goes to the Authorization header), redacted anyway.
func nodeName(req *http.Request) string {
	return RedactURL(req.URL.Scheme + "://" + req.URL.Host)
}

func (w *nodeWatch) failed(req *http.Request, err error) {
	node := nodeName(req)
	w.mu.Lock()
	o, known := w.nodes[node]
	if known {
		o.failures++
	} else {
		w.nodes[node] = &nodeOutage{since: w.now(), failures: 1}
		w.failing.Add(1)
	}
	w.mu.Unlock()
	if !known {
		w.logger.Warn("Elasticsearch node does not answer; it is set aside while other nodes answer (see `endpoints` "+
			"in the configuration reference), and a line says when it answers again",
			zap.String("node", node), zap.String("method", req.Method), zap.String("path", req.URL.Path),
			zap.Error(redactError(err)))
	}
}

func (w *nodeWatch) answered(req *http.Request) {
	node := nodeName(req)
	w.mu.Lock()
	o, known := w.nodes[node]
	if known {
		delete(w.nodes, node)
		w.failing.Add(-1)
	}
	w.mu.Unlock()
	if known {
		w.logger.Info("Elasticsearch node answers again", zap.String("node", node),
			zap.Int("failed_requests", o.failures), zap.Duration("down_for", w.now().Sub(o.since)))
	}
}
