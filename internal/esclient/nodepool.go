// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
)

// nodePool is the elastic-transport client's connection pool: the transport's own (for several
// nodes, one that sets a node aside at a failure and takes it back after 60s, doubled at each
// failure up to 32 minutes), with four corrections (elastic-transport-go v8.8.0):
//
//   - A node's count of failures is reset when it answers. The transport resets it only when a
//     node it has set aside answers, which does not happen once its timer or a request has
//     taken the node back: the wait would grow with every failure over the process's lifetime,
//     to 32 minutes from the sixth.
//   - When every node has been set aside and one answers, the others are taken back too. The
//     transport takes back only the node it sends to when all are set aside; the others wait
//     out their timers, up to 32 minutes after an outage of the whole cluster, while every
//     request goes to one node.
//   - A node that discovery no longer finds stays out. The transport drops it from its lists,
//     but the timer of a node set aside would put it back among the nodes in use.
//   - A node that discovery finds without an HTTP publish address is left out. A node joining
//     the cluster is listed by `_nodes/http` before its HTTP server publishes an address, and
//     the transport makes of it the URL "https://:", whose requests fail ("dial tcp :443"),
//     each a warning that a node does not answer. The next discovery finds it with its
//     address.
//
// The client calls Next, OnSuccess and OnFailure, and set (as its ConnectionPoolFunc, at
// start and at each discovery), under its own lock; URLs and Close come without it.
type nodePool struct {
	mu    sync.Mutex // serializes set
	state atomic.Pointer[nodePoolState]
	// allDown is set when a failure leaves every node set aside.
	allDown atomic.Bool
}

type nodePoolState struct {
	inner elastictransport.ConnectionPool
	// conns is every node, in use or set aside; a copy, as the transport's pool reorders the
	// slice it is given.
	conns []*elastictransport.Connection
}

var (
	_ elastictransport.ConnectionPool          = (*nodePool)(nil)
	_ elastictransport.CloseableConnectionPool = (*nodePool)(nil)
)

// set installs conns: at start, the endpoints; at a discovery, the nodes found, merged as the
// transport merges them, the nodes already known keeping their state.
func (p *nodePool) set(conns []*elastictransport.Connection, sel elastictransport.Selector) elastictransport.ConnectionPool {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.state.Load()
	if old == nil {
		inner, _ := elastictransport.NewConnectionPool(conns, sel) // never fails
		p.state.Store(&nodePoolState{inner: inner, conns: slices.Clone(conns)})
		return p
	}
	conns = slices.DeleteFunc(slices.Clone(conns), func(c *elastictransport.Connection) bool {
		return c.URL == nil || c.URL.Hostname() == ""
	})
	if len(conns) == 0 {
		return p // as the transport does: no node found leaves the pool untouched
	}
	up, ok := old.inner.(elastictransport.UpdatableConnectionPool)
	if !ok {
		// A single endpoint: the transport replaces its pool by the nodes found.
		inner, _ := elastictransport.NewConnectionPool(conns, sel)
		p.state.Store(&nodePoolState{inner: inner, conns: slices.Clone(conns)})
		return p
	}
	if l, ok := old.inner.(sync.Locker); ok {
		l.Lock() // Update wants the pool locked
		defer l.Unlock()
	}
	if up.Update(conns) != nil {
		return p
	}
	merged := make([]*elastictransport.Connection, 0, len(conns))
	for _, c := range conns {
		kept := c
		for _, o := range old.conns {
			if o.Cmp(c) {
				kept = o
				break
			}
		}
		merged = append(merged, kept)
	}
	for _, o := range old.conns {
		if !slices.Contains(merged, o) {
			// The timer of a node set aside takes it back only while it is marked dead.
			o.Lock()
			o.IsDead = false
			o.Unlock()
		}
	}
	p.state.Store(&nodePoolState{inner: old.inner, conns: merged})
	return p
}

// Next returns the node to send the next request to.
func (p *nodePool) Next() (*elastictransport.Connection, error) { return p.state.Load().inner.Next() }

// OnSuccess notes that c answered.
func (p *nodePool) OnSuccess(c *elastictransport.Connection) error {
	c.Lock()
	if !c.IsDead && c.Failures > 0 {
		c.Failures = 0
		c.DeadSince = time.Time{}
	}
	c.Unlock()
	st := p.state.Load()
	err := st.inner.OnSuccess(c)
	if p.allDown.Load() && p.allDown.CompareAndSwap(true, false) {
		for _, x := range st.conns {
			x.Lock()
			dead := x.IsDead
			x.Unlock()
			if dead {
				_ = st.inner.OnSuccess(x) // takes a node set aside back, its failures reset
			}
		}
	}
	return err
}

// OnFailure notes that c failed, and whether every node is now set aside.
func (p *nodePool) OnFailure(c *elastictransport.Connection) error {
	st := p.state.Load()
	err := st.inner.OnFailure(c)
	for _, x := range st.conns {
		x.Lock()
		dead := x.IsDead
		x.Unlock()
		if !dead {
			return err
		}
	}
	p.allDown.Store(true)
	return err
}

// URLs returns the URLs of the nodes in use.
func (p *nodePool) URLs() []*url.URL { return p.state.Load().inner.URLs() }

// Close stops the timers of the nodes set aside.
func (p *nodePool) Close(ctx context.Context) error {
	if c, ok := p.state.Load().inner.(elastictransport.CloseableConnectionPool); ok {
		return c.Close(ctx)
	}
	return nil
}
