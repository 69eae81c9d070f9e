// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/freelist"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// pushState is the scratch state of one push: encoder, routers and the batch being built.
// Pushes take one from the exporter's free list and give it back reset. What it counts is turned
// into telemetry in accounting.go.
type pushState struct {
	enc                  serializer.Encoder
	logs, traces, events *routing.Router
	metrics              *routing.Router
	exp                  *esExporter
	batch                bulk.Batch
	repairs              map[serializer.Repair]int
	lastDataStream       string // the data stream last handed to the template check
	noIndex              int    // records skipped for their _noindex hint
	// rejected counts the records rejected before sending, by error.type; firstRejection
	// keeps one error of each type for the log.
	rejected       map[string]int
	firstRejection map[string]error
	// modeRejected tells that records were rejected for their mapping mode: the push then
	// returns an error that says so, permanent unless the rest of the push failed otherwise.
	modeRejected error

	// profileRefs are the profiling documents this push recorded in the exporter's cache
	// (profiles.go).
	profileRefs []profileRef

	// mode and resource are what the encoder and the routers were last set up for.
	mode     serializer.Mode
	resource pcommon.Resource
}

// routingSettings are the routing settings of the documents whose static index (logs_index,
// metrics_index, traces_index) is static.
func (e *esExporter) routingSettings(static string) routing.Settings {
	ls := e.cfg.LogstashFormat
	return routing.Settings{
		StaticIndex:     static,
		LogstashFormat:  ls.Enabled,
		PrefixSeparator: ls.PrefixSeparator,
		DateFormat:      ls.DateFormat,
	}
}

// newPushState builds the state of a push: a router per kind of document, from the routing
// settings, whose errors quote the config keys.
func (e *esExporter) newPushState() (*pushState, error) {
	settings := e.routingSettings
	logs, err := routing.NewRouter(settings(e.cfg.LogsIndex))
	if err != nil {
		return nil, fmt.Errorf("`logs_index` / `logstash_format`: %w", err)
	}
	traces, err := routing.NewRouter(settings(e.cfg.TracesIndex))
	if err != nil {
		return nil, fmt.Errorf("`traces_index` / `logstash_format`: %w", err)
	}
	// Span events are log documents: they follow logs_index.
	events, err := routing.NewRouter(settings(e.cfg.LogsIndex))
	if err != nil {
		return nil, err
	}
	metrics, err := routing.NewRouter(settings(e.cfg.MetricsIndex))
	if err != nil {
		return nil, fmt.Errorf("`metrics_index` / `logstash_format`: %w", err)
	}
	return &pushState{
		logs: logs, traces: traces, events: events, metrics: metrics, exp: e,
		repairs: map[serializer.Repair]int{}, rejected: map[string]int{}, firstRejection: map[string]error{},
	}, nil
}

// getState takes a push state from the free list, or builds one.
func (e *esExporter) getState() (*pushState, error) {
	if st, ok := e.states.Get(); ok {
		return st, nil
	}
	return e.newPushState()
}

// putState resets st and keeps it for the next push, with its batch's memory when the free
// list has room for it (see newStateList), else without.
func (e *esExporter) putState(st *pushState) {
	st.batch.Reset()
	clear(st.repairs)
	clear(st.rejected)
	clear(st.firstRejection)
	st.lastDataStream = ""
	st.noIndex, st.modeRejected = 0, nil
	clear(st.profileRefs)
	st.profileRefs = st.profileRefs[:0]
	st.resource = pcommon.Resource{}
	st.setMode(serializer.ModeOTel)
	if !e.states.Put(st, st.batch.Retained()) {
		st.batch = bulk.Batch{}
		e.states.Put(st, 0)
	}
}

// newStateList returns the free list of push states. It keeps as many states as pushes run at
// once per signal (sending_queue::num_consumers), and of their batches' memory at most a quarter
// of flow_control::max_inflight_bytes (16 MiB when the cap is off): pushes then reuse batch
// buffers grown to the size of their requests, which a sync.Pool loses at each garbage
// collection, while what is kept between pushes stays small beside what pushes may hold.
func newStateList(cfg *Config) *freelist.List[*pushState] {
	limit := cfg.FlowControl.MaxInflightBytes / 4
	if limit <= 0 {
		limit = 16 << 20
	}
	return freelist.New[*pushState](cfg.numConsumers(), limit)
}

// setScope resolves the mapping mode of a scope's records and sets up the encoder and the
// routers for it: the resource and the scope are encoded once per scope, the resource again
// only when the mode changes. When the mode cannot be used, the scope's n records are counted
// as rejected and setScope returns false.
func (st *pushState) setScope(modes *modes, res pcommon.Resource, resSchema string, scope pcommon.InstrumentationScope, scopeSchema string, n int) bool {
	mode, err := modes.scope(scope.Attributes())
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

// routeMetric resolves the index of a data point; it is the serializer's MetricRouteFunc.
func (st *pushState) routeMetric(attrs, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (string, serializer.DataStream, error) {
	t, err := st.metrics.Route(routing.TypeMetrics, attrs, scope, resource, scopeName, ts)
	if err != nil {
		return "", serializer.DataStream{}, err
	}
	return t.Index, dataStream(t), nil
}

// AddMetricsDocument adds a metric document, with its dynamic templates, to the batch.
func (st *pushState) AddMetricsDocument(start int, index string, ds serializer.DataStream, templates []serializer.DynamicTemplate) {
	for _, t := range templates {
		st.batch.AddTemplate(t.Path, t.Template)
	}
	st.exp.add(st, start, bulk.Item{Index: index, RequireDataStream: ds.Type != ""})
}

func dataStream(t routing.Target) serializer.DataStream {
	if !t.DataStream {
		return serializer.DataStream{}
	}
	return serializer.DataStream{Type: t.Type, Dataset: t.Dataset, Namespace: t.Namespace}
}

// add records the document just encoded at st.batch.Buf[start:], counts its repair, and hands
// a data stream seen for the first time in this push to the template check.
func (e *esExporter) add(st *pushState, start int, it bulk.Item) {
	st.batch.Add(start, it)
	if it.RequireDataStream && it.Index != st.lastDataStream && e.templates != nil {
		st.lastDataStream = it.Index
		e.templates.Observe(it.Index)
	}
	if r := st.enc.Repair(); r != serializer.RepairNone {
		st.repairs[r]++
	}
}

// addRecord adds a log record, span or span event document, with a content-derived _id when
// deterministic_ids is on and the record names none.
func (e *esExporter) addRecord(st *pushState, start int, it bulk.Item) {
	if e.cfg.DeterministicIDs.Enabled && it.DocumentID == "" {
		it.DocumentID = bulk.ContentID(st.batch.Buf[start:])
		it.DerivedID = true
	}
	e.add(st, start, it)
}

// send hands the batch to the bulk indexer, after recording what encoding repaired and
// rejected, and returns the push's error. a is the push's admission (see holdInflight).
func (e *esExporter) send(ctx context.Context, st *pushState, a *admission) error {
	_, err := e.sendResult(ctx, st, a)
	return err
}

// sendResult is send, and also returns what became of the batch's documents.
func (e *esExporter) sendResult(ctx context.Context, st *pushState, a *admission) (bulk.Result, error) {
	e.recordEncoding(ctx, st)
	e.holdInflight(a, len(st.batch.Buf))
	inflight := int64(len(st.batch.Buf))
	e.telemetry.ElasticsearchInflightBytes.Add(ctx, inflight)
	defer e.telemetry.ElasticsearchInflightBytes.Add(context.WithoutCancel(ctx), -inflight)
	res, err := e.indexer.Send(ctx, &st.batch)
	switch {
	case st.modeRejected == nil:
	case err == nil:
		err = consumererror.NewPermanent(st.modeRejected)
	default:
		// The error of the rest of the push decides whether it may be sent again.
		err = fmt.Errorf("%w; and %w", err, st.modeRejected)
	}
	if err != nil && e.cfg.persistentQueue() && res.HandedBack == 0 && !consumererror.IsPermanent(err) {
		// Only a push handed back at shutdown may reach exporterhelper's retry as
		// retryable (see signalRef.options): every other failure is final, as without it.
		err = consumererror.NewPermanent(err)
	}
	return res, err
}
