// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"
	"sync"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/freelist"
	"github.com/otelcol-es/elasticsearchexporter/internal/loglimit"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatakeys"
	"github.com/otelcol-es/elasticsearchexporter/internal/profilecache"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// esExporter is shared by the logs, metrics, traces and profiles exporters of one component ID. Pushes
// run concurrently; each takes its own encoding state from a free list.
type esExporter struct {
	cfg       *Config
	set       exporter.Settings
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder

	client    *esclient.Client
	indexer   *bulk.Indexer
	templates *esclient.TemplateChecker
	states    *freelist.List[*pushState]

	// background work started by start (server checks), stopped by shutdown.
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// allowedModes and defaultMode are mapping::allowed_modes and the mode it implies for records
	// that ask for none (defaultModeOf), parsed once.
	allowedModes [serializer.NumModes]bool
	defaultMode  serializer.Mode

	// invalidRouteLog limits the log lines about documents that could not be routed.
	invalidRouteLog *loglimit.Limiter

	// budget caps the bytes held by pushes of every signal, and estimates holds the bytes per
	// record that pushes take room for before they encode (inflight.go).
	budget    *bulk.ByteBudget
	estimates inflightEstimates

	// profiles records the profiling documents written within their lifetime (profiles.go).
	profiles *profilecache.Cache

	// metadataKeys are the metadata_keys as telemetry attribute names (metadatakeys.Lower).
	metadataKeys []string

	// signals are the signals the component was created for (startcheck.go).
	signalsMu sync.Mutex
	signals   map[string]bool
}

// newExporter builds the exporter and checks the routing settings. Nothing is sent before
// start.
func newExporter(cfg *Config, set exporter.Settings) (*esExporter, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	e := &esExporter{
		cfg: cfg, set: set, logger: set.Logger, telemetry: tb,
		invalidRouteLog: loglimit.New(cfg.Telemetry.LogFailedDocsInputRateLimit),
		budget:          bulk.NewByteBudget(cfg.FlowControl.MaxInflightBytes),
		metadataKeys:    metadatakeys.Lower(cfg.MetadataKeys),
		states:          newStateList(cfg),
		profiles:        profilecache.New(profilecache.Defaults()),
	}
	e.allowedModes, e.defaultMode = parseModes(cfg)
	// Check the routing settings now, so that a bad static index or date format fails at
	// creation with a clear message.
	if _, err := e.newPushState(); err != nil {
		return nil, err
	}
	if cfg.DeadLetter.Enabled {
		if _, err := routing.NewRouter(routing.Settings{StaticIndex: cfg.DeadLetter.Index}); err != nil {
			return nil, fmt.Errorf("`dead_letter::index`: %w", err)
		}
	}
	return e, nil
}

// start builds the Elasticsearch client, here because auth extensions exist only once the host
// has started them, and the bulk indexer, and starts the background checks of the server's
// version and of the index templates.
func (e *esExporter) start(ctx context.Context, host component.Host) error {
	client, err := esclient.New(ctx, esclient.Config{
		HTTP:                 e.cfg.ClientConfig,
		Endpoints:            e.cfg.endpoints(),
		User:                 e.cfg.Authentication.User,
		Password:             string(e.cfg.Authentication.Password),
		APIKey:               string(e.cfg.Authentication.APIKey),
		CATrustedFingerprint: e.cfg.CATrustedFingerprint,
		DiscoverOnStart:      e.cfg.Discovery.OnStart,
		DiscoverInterval:     e.cfg.Discovery.Interval,
		LogRequestBody:       e.cfg.Telemetry.LogRequestBody,
		LogResponseBody:      e.cfg.Telemetry.LogResponseBody,
		Writes:               e.writes(),
		OTelMode:             e.allowedModes[serializer.ModeOTel],
		OTelMetrics:          e.allowedModes[serializer.ModeOTel] && e.writesSignal(routing.TypeMetrics) && e.cfg.MetricsIndex == "" && !e.cfg.LogstashFormat.Enabled,
		Checks:               e.recordCheck,
	}, host, e.set.TelemetrySettings, e.set.BuildInfo)
	if err != nil {
		return err
	}
	e.client = client

	level := 0
	if e.cfg.Compression == configcompression.TypeGzip {
		level = int(e.cfg.CompressionParams.Level)
	}
	// Left unset, include_source_on_error is false from the first request: Elasticsearch then
	// gives its reasons for rejecting documents without their content (without the parameter
	// docappender drops the reasons). A server older than 8.18 does not take it: the version
	// check drops it, and so does the bulk session at the server's first refusal, when the
	// version cannot be read (credentials without the monitor privilege).
	include := docappender.False
	if e.cfg.IncludeSourceOnError != nil && *e.cfg.IncludeSourceOnError {
		include = docappender.True
	}
	// Validate has checked it.
	filterPath, _ := bulk.FilterPath(e.cfg.BulkResponseFilterPath)
	e.indexer, err = bulk.New(bulk.Config{
		Client:                 client,
		CompressionLevel:       level,
		MaxBulkBytes:           e.cfg.maxBulkBytes(),
		Pipeline:               e.cfg.Pipeline,
		IncludeSourceOnError:   include,
		RequestTimeout:         e.cfg.Timeout,
		Retry:                  e.cfg.Retry,
		Logger:                 e.logger,
		UnauthorizedHint:       client.UnauthorizedHint(),
		LogRateLimit:           e.cfg.Telemetry.LogFailedDocsInputRateLimit,
		LogFailedDocsInput:     e.cfg.Telemetry.LogFailedDocsInput,
		DeadLetterIndex:        e.deadLetterIndex(),
		HandBackOnStop:         e.cfg.persistentQueue(),
		Budget:                 e.budget,
		FilterPath:             filterPath,
		SuppressConflictErrors: e.cfg.SuppressConflictErrors,
		Concurrency: bulk.ConcurrencyConfig{
			Max:      e.cfg.maxConcurrentRequests(),
			Adaptive: e.cfg.FlowControl.AdaptiveConcurrency.Enabled,
		},
		IdleSessions: e.cfg.numConsumers(),
		Telemetry:    e.telemetry,
		MetadataKeys: e.cfg.MetadataKeys,
	})
	if err != nil {
		return err
	}

	bg, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.templates = esclient.NewTemplateChecker(client, e.logger, e.recordCheck)
	e.wg.Go(func() {
		v, ok := client.CheckServer(bg)
		if ok && e.cfg.IncludeSourceOnError == nil && !v.TakesIncludeSourceOnError() {
			e.indexer.SetIncludeSourceOnError(docappender.Unset)
		}
	})
	e.wg.Go(func() { e.templates.Run(bg) })
	return nil
}

// deadLetterIndex is the index of the dead letters, empty when dead_letter is off.
func (e *esExporter) deadLetterIndex() string {
	if !e.cfg.DeadLetter.Enabled {
		return ""
	}
	return e.cfg.DeadLetter.Index
}

// stopRetries begins the shutdown: pushes stop retrying (each gives up what is left after
// its current attempt, and a push that starts now makes one attempt), and those waiting for
// room under the in-flight byte cap go on. If ctx ends before the returned function is called,
// the requests in flight are canceled too.
func (e *esExporter) stopRetries(ctx context.Context) (done func()) {
	if idx := e.indexer; idx != nil {
		idx.Stop()
	}
	e.budget.Stop()
	stop := context.AfterFunc(ctx, e.abortSends)
	return func() { stop() }
}

// abortSends cancels the requests in flight and makes later pushes give up at once.
func (e *esExporter) abortSends() {
	if idx := e.indexer; idx != nil {
		idx.Abort()
	}
	e.budget.Stop()
}

// shutdown cancels what is still being sent, stops the background checks and closes the client.
func (e *esExporter) shutdown(ctx context.Context) error {
	// The sending queues have drained: nothing is sent any more.
	e.abortSends()
	if e.cancel != nil {
		e.cancel()
	}
	e.wg.Wait()
	var err error
	if e.client != nil {
		err = e.client.Close(ctx)
	}
	if e.telemetry != nil {
		e.telemetry.Shutdown()
	}
	return err
}

// pushLogs encodes and routes the log records of ld, scope by scope, and sends them.
func (e *esExporter) pushLogs(ctx context.Context, ld plog.Logs, a *admission) error {
	st, err := e.getState()
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	defer e.putState(st)
	modes := e.newModes(ctx, routing.TypeLogs)
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		res := rl.Resource()
		sls := rl.ScopeLogs()
		for j := range sls.Len() {
			sl := sls.At(j)
			scope := sl.Scope()
			recs := sl.LogRecords()
			if !st.setScope(&modes, res, rl.SchemaUrl(), scope, sl.SchemaUrl(), recs.Len()) {
				continue
			}
			st.logs.SetScope(routing.TypeLogs, scope.Attributes(), res.Attributes(), scope.Name())
			for k := range recs.Len() {
				e.appendLog(st, recs.At(k))
			}
		}
	}
	return e.send(ctx, st, a)
}

// appendLog adds a log record to the batch; the router is set to the record's scope.
func (e *esExporter) appendLog(st *pushState, rec plog.LogRecord) {
	keys := routing.ScanRecord(rec.Attributes())
	if st.skipNoIndex(keys, rec.Attributes()) {
		return
	}
	ts := rec.Timestamp()
	if ts == 0 {
		ts = rec.ObservedTimestamp()
	}
	t, err := st.logs.RouteRecord(keys, rec.Attributes(), ts)
	if err != nil {
		st.unrouted(err)
		return
	}
	start := len(st.batch.Buf)
	st.batch.Buf = st.enc.AppendLog(st.batch.Buf, rec, dataStream(t))
	if st.rejectedByEncoder(start) {
		return
	}
	it := bulk.Item{Index: t.Index, RequireDataStream: t.DataStream}
	if e.cfg.LogsDynamicID.Enabled {
		it.DocumentID = st.logs.DocumentID(keys, rec.Attributes())
	}
	if e.cfg.LogsDynamicPipeline.Enabled {
		it.Pipeline = st.logs.Pipeline(keys, rec.Attributes())
	}
	e.addRecord(st, start, it)
}

// pushTraces encodes and routes the spans of td, and their events, scope by scope, and sends
// them.
func (e *esExporter) pushTraces(ctx context.Context, td ptrace.Traces, a *admission) error {
	st, err := e.getState()
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	defer e.putState(st)
	modes := e.newModes(ctx, routing.TypeTraces)
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		res := rs.Resource()
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j)
			scope := ss.Scope()
			spans := ss.Spans()
			if !st.setScope(&modes, res, rs.SchemaUrl(), scope, ss.SchemaUrl(), spanDocuments(spans)) {
				continue
			}
			st.traces.SetScope(routing.TypeTraces, scope.Attributes(), res.Attributes(), scope.Name())
			st.events.SetScope(routing.TypeLogs, scope.Attributes(), res.Attributes(), scope.Name())
			for k := range spans.Len() {
				e.appendSpan(st, spans.At(k))
			}
		}
	}
	return e.send(ctx, st, a)
}

// spanDocuments returns the number of spans and span events.
func spanDocuments(spans ptrace.SpanSlice) int {
	n := spans.Len()
	for i := range spans.Len() {
		n += spans.At(i).Events().Len()
	}
	return n
}

// appendSpan adds a span and then each of its events to the batch; the routers are set to the
// span's scope.
func (e *esExporter) appendSpan(st *pushState, span ptrace.Span) {
	if keys := routing.ScanRecord(span.Attributes()); !st.skipNoIndex(keys, span.Attributes()) {
		e.appendSpanDocument(st, span, keys)
	}
	if !st.mode.SeparateSpanEvents() {
		return // the span's document holds its events
	}
	events := span.Events()
	for i := range events.Len() {
		ev := events.At(i)
		keys := routing.ScanRecord(ev.Attributes())
		if st.skipNoIndex(keys, ev.Attributes()) {
			continue
		}
		t, err := st.events.RouteRecord(keys, ev.Attributes(), ev.Timestamp())
		if err != nil {
			st.unrouted(err)
			continue
		}
		start := len(st.batch.Buf)
		st.batch.Buf = st.enc.AppendSpanEvent(st.batch.Buf, span, ev, dataStream(t))
		if st.rejectedByEncoder(start) {
			continue
		}
		e.addRecord(st, start, bulk.Item{Index: t.Index, RequireDataStream: t.DataStream})
	}
}

func (e *esExporter) appendSpanDocument(st *pushState, span ptrace.Span, keys routing.RecordKeys) {
	t, err := st.traces.RouteRecord(keys, span.Attributes(), span.StartTimestamp())
	if err != nil {
		st.unrouted(err)
		return
	}
	start := len(st.batch.Buf)
	st.batch.Buf = st.enc.AppendSpan(st.batch.Buf, span, dataStream(t))
	if st.rejectedByEncoder(start) {
		return
	}
	it := bulk.Item{Index: t.Index, RequireDataStream: t.DataStream}
	if e.cfg.TracesDynamicID.Enabled {
		it.DocumentID = st.traces.DocumentID(keys, span.Attributes())
	}
	e.addRecord(st, start, it)
}

// pushMetrics encodes and routes the data points of md, grouped into documents by the
// encoder, once per mapping mode that its scopes use, and sends them.
func (e *esExporter) pushMetrics(ctx context.Context, md pmetric.Metrics, a *admission) error {
	st, err := e.getState()
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	defer e.putState(st)
	resolved := e.newModes(ctx, routing.TypeMetrics)
	st.metricsByMode(&resolved, md, func(mode serializer.Mode, md pmetric.Metrics) {
		st.setMode(mode)
		report := st.enc.EncodeMetrics(&st.batch.Buf, md, st.routeMetric, st)
		e.recordMetricsReport(ctx, &report)
	})
	return e.send(ctx, st, a)
}
