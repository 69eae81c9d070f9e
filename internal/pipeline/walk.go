// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/freelist"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// The walk of a push goes over its data resource by resource and scope by scope (logs.go,
// traces.go, metrics.go, profiles.go). At each scope it resolves the mapping mode (mode.go) and
// sets up the encoder and the routers (setScope): the resource and the scope are encoded once
// per scope. Then, for each record, it routes the record (route.go), has the serializer append
// its documents to the batch (encode.go) and records them in the batch (batch.go).

// pushState is the scratch state of one push: encoder, routers and the batch being built.
// Pushes take one from the pipeline's free list and give it back reset. What it counts is turned
// into telemetry in accounting.go.
type pushState struct {
	p                    *Pipeline
	enc                  serializer.Encoder
	logs, traces, events *routing.Router
	metrics              *routing.Router
	apm                  apmRouters // span events of the ecs mode for Elastic APM (spanevents.go)
	batch                bulk.Batch
	lastDataStream       string // the data stream last handed to the template check
	// report collects what the push did not send and what encoding repaired, handed to the
	// bulk indexer once, before the send (accounting.go); firstRejection keeps one error of each
	// error.type of the records rejected before sending, for the log.
	report         bulk.PreSend
	firstRejection map[string]error
	// modeRejected tells that records were rejected for their mapping mode: the push then
	// returns an error that says so, permanent unless the rest of the push failed otherwise.
	modeRejected error
	// refusedMetrics holds, by refused target, the first refusal of the data points whose target
	// is not allowed while dead letters are on (refuseMetric); nil until there is one.
	refusedMetrics map[string]error

	// metricRoute is the route of the data points without routing attributes of the scope
	// being walked; metricsReport is what the push could not write of its data points
	// (metrics.go).
	metricRoute   metricRoute
	metricsReport metricsReport

	// profileRefs are the profiling documents this push recorded in the pipeline's cache;
	// profileKey is the scratch of an ecs-mode document's key in the cache (profiles.go).
	profileRefs []profileRef
	profileKey  []byte

	// modes resolves the mapping mode of each scope of the push.
	modes modes

	// mode and resource are what the encoder and the routers were last set up for.
	mode     serializer.Mode
	resource pcommon.Resource
}

// newPushState builds the state of a push, with a router per kind of document (route.go).
func (p *Pipeline) newPushState() (*pushState, error) {
	st := &pushState{
		p:              p,
		firstRejection: map[string]error{},
	}
	var err error
	st.logs, st.traces, st.events, st.metrics, err = newRouters(&p.set)
	if err != nil {
		return nil, err
	}
	if st.apm, err = newAPMRouters(&p.set); err != nil {
		return nil, err
	}
	return st, nil
}

// getState takes a push state from the free list, or builds one.
func (p *Pipeline) getState() (*pushState, error) {
	if st, ok := p.states.Get(); ok {
		return st, nil
	}
	return p.newPushState()
}

// putState resets st and keeps it for the next push, with its batch's memory when the free
// list has room for it (see newStateList), else without.
func (p *Pipeline) putState(st *pushState) {
	st.batch.Reset()
	st.report.Reset()
	clear(st.firstRejection)
	clear(st.refusedMetrics)
	st.lastDataStream = ""
	st.modeRejected = nil
	st.metricRoute = metricRoute{}
	st.metricsReport.reset()
	clear(st.profileRefs)
	st.profileRefs = st.profileRefs[:0]
	st.resource = pcommon.Resource{}
	st.modes = modes{}
	st.setMode(serializer.ModeOTel)
	if !p.states.Put(st, st.batch.Retained()) {
		st.batch = bulk.Batch{}
		p.states.Put(st, 0)
	}
}

// newStateList returns the free list of push states. It keeps as many states as Settings'
// NumConsumers (sending_queue::num_consumers), and of their batches' memory at most
// stateRetention: pushes then reuse batch buffers grown to the size of their requests, which a
// sync.Pool loses at each garbage collection.
func newStateList(set Settings) *freelist.List[*pushState] {
	return freelist.New[*pushState](set.NumConsumers, stateRetention(set))
}

// stateRetention is the most batch memory kept between pushes: a quarter of
// flow_control::max_inflight_bytes, which the pipeline takes out of the cap for good when it
// is built (bulk.ByteBudget.Reserve), so that what is kept idle is counted too; 16 MiB when the
// cap is off. A quarter keeps one batch of a push of 10,000 records (about 15 MB of logs or
// metrics): with an eighth, each such push allocated and cleared its buffer afresh, for 17% more
// CPU per metric data point and 140 MiB more peak RSS at 10,000 records per request.
func stateRetention(set Settings) int64 {
	if set.MaxInflightBytes <= 0 {
		return 16 << 20
	}
	return set.MaxInflightBytes / 4
}

// setScope resolves the mapping mode of a scope's records and sets up the encoder and the
// routers for it: the resource and the scope are encoded once per scope, the resource again
// only when the mode changes. When the mode cannot be used, the scope's n records are counted
// as rejected and setScope returns false.
func (st *pushState) setScope(res pcommon.Resource, resSchema string, scope pcommon.InstrumentationScope, scopeSchema string, n int) bool {
	mode, err := st.modes.scope(scope.Attributes())
	if err != nil {
		st.rejectMode(err, n)
		return false
	}
	if mode != st.mode || res != st.resource {
		st.setMode(mode)
		st.resource = res
		st.enc.SetResource(res, resSchema)
	}
	st.enc.SetScope(scope, scopeSchema)
	return true
}

// setMode sets up the encoder and the routers for documents of a mapping mode.
func (st *pushState) setMode(mode serializer.Mode) {
	if mode == st.mode {
		return
	}
	st.mode = mode
	st.enc.SetMode(mode)
	otel, typeFromAttribute := mode == serializer.ModeOTel, mode == serializer.ModeBodyMap
	for _, r := range [...]*routing.Router{st.logs, st.traces, st.events, st.metrics} {
		r.SetMode(otel, typeFromAttribute)
	}
}
