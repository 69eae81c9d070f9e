// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// esExporter is shared by the logs, metrics and traces exporters of one component ID. Pushes
// run concurrently; each takes its own encoding state from a pool.
type esExporter struct {
	cfg       *Config
	set       exporter.Settings
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder

	client    *esclient.Client
	indexer   *bulk.Indexer
	templates *esclient.TemplateChecker
	states    sync.Pool

	// background work started by start (server checks), stopped by shutdown.
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// versionRetry is the wait between two version checks while the server does not answer.
	versionRetry time.Duration

	// allowedModes and defaultMode are mapping::allowed_modes and mapping::mode, parsed once.
	allowedModes [serializer.NumModes]bool
	defaultMode  serializer.Mode

	// invalidRouteLog limits the log lines about documents that could not be routed.
	invalidRouteLog *bulk.LogLimiter

	// budget caps the bytes held by pushes of every signal, and estimates holds the bytes per
	// record that pushes take room for before they encode (inflight.go).
	budget    *bulk.ByteBudget
	estimates inflightEstimates
}

// pushState is the scratch state of one push: encoder, routers and the batch being built.
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

	// mode and resource are what the encoder and the routers were last set up for.
	mode     serializer.Mode
	resource pcommon.Resource
}

func newExporter(cfg *Config, set exporter.Settings) (*esExporter, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	e := &esExporter{
		cfg: cfg, set: set, logger: set.Logger, telemetry: tb,
		invalidRouteLog: bulk.NewLogLimiter(cfg.Telemetry.LogFailedDocsInputRateLimit),
		versionRetry:    30 * time.Second,
		budget:          bulk.NewByteBudget(cfg.FlowControl.MaxInflightBytes),
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

func (e *esExporter) newPushState() (*pushState, error) {
	ls := e.cfg.LogstashFormat
	settings := func(static string) routing.Settings {
		return routing.Settings{
			StaticIndex:     static,
			LogstashFormat:  ls.Enabled,
			PrefixSeparator: ls.PrefixSeparator,
			DateFormat:      ls.DateFormat,
		}
	}
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

func (e *esExporter) getState() (*pushState, error) {
	if st, ok := e.states.Get().(*pushState); ok {
		return st, nil
	}
	return e.newPushState()
}

func (e *esExporter) putState(st *pushState) {
	st.batch.Reset()
	clear(st.repairs)
	clear(st.rejected)
	clear(st.firstRejection)
	st.lastDataStream = ""
	st.noIndex, st.modeRejected = 0, nil
	st.resource = pcommon.Resource{}
	st.setMode(serializer.ModeOTel)
	e.states.Put(st)
}

func (e *esExporter) start(ctx context.Context, host component.Host) error {
	client, err := esclient.New(ctx, esclient.Config{
		HTTP:             e.cfg.ClientConfig,
		Endpoints:        e.cfg.endpoints(),
		User:             e.cfg.Authentication.User,
		Password:         string(e.cfg.Authentication.Password),
		APIKey:           string(e.cfg.Authentication.APIKey),
		DiscoverOnStart:  e.cfg.Discovery.OnStart,
		DiscoverInterval: e.cfg.Discovery.Interval,
		LogRequestBody:   e.cfg.Telemetry.LogRequestBody,
		LogResponseBody:  e.cfg.Telemetry.LogResponseBody,
		WrapTransport:    func(next http.RoundTripper) http.RoundTripper { return bulk.RetryAfterTransport{Next: next} },
		VersionRetry:     e.versionRetry,
	}, host, e.set.TelemetrySettings, e.set.BuildInfo)
	if err != nil {
		return err
	}
	e.client = client

	level := 0
	if e.cfg.Compression == configcompression.TypeGzip {
		level = int(e.cfg.CompressionParams.Level)
	}
	include := docappender.Unset
	if e.cfg.IncludeSourceOnError != nil {
		include = docappender.False
		if *e.cfg.IncludeSourceOnError {
			include = docappender.True
		}
	}
	e.indexer, err = bulk.New(bulk.Config{
		Client:               client,
		CompressionLevel:     level,
		MaxBulkBytes:         e.cfg.maxBulkBytes(),
		Pipeline:             e.cfg.Pipeline,
		IncludeSourceOnError: include,
		RequestTimeout:       e.cfg.Timeout,
		Retry: bulk.RetryConfig{
			Enabled:               e.cfg.Retry.Enabled,
			MaxRetries:            e.cfg.Retry.MaxRetries,
			InitialInterval:       e.cfg.Retry.InitialInterval,
			MaxInterval:           e.cfg.Retry.MaxInterval,
			RetryOnStatus:         e.cfg.Retry.RetryOnStatus,
			RetryOnDocumentStatus: e.cfg.Retry.RetryOnDocumentStatus,
			AuthGracePeriod:       e.cfg.Retry.AuthGracePeriod,
		},
		Logger:             e.logger,
		LogRateLimit:       e.cfg.Telemetry.LogFailedDocsInputRateLimit,
		LogFailedDocsInput: e.cfg.Telemetry.LogFailedDocsInput,
		DeadLetterIndex:    e.deadLetterIndex(),
		HandBackOnStop:     e.cfg.persistentQueue(),
		Concurrency: bulk.ConcurrencyConfig{
			Max:      e.cfg.maxConcurrentRequests(),
			Adaptive: e.cfg.FlowControl.AdaptiveConcurrency.Enabled,
			Limit:    e.telemetry.ElasticsearchBulkRequestsConcurrencyLimit,
		},
		Telemetry: bulk.Telemetry{
			Requests:                 e.telemetry.ElasticsearchBulkRequestsCount,
			Latency:                  e.telemetry.ElasticsearchBulkRequestsLatency,
			Documents:                e.telemetry.ElasticsearchDocsProcessed,
			Retried:                  e.telemetry.ElasticsearchDocsRetried,
			FlushedBytes:             e.telemetry.ElasticsearchFlushedBytes,
			FlushedUncompressedBytes: e.telemetry.ElasticsearchFlushedUncompressedBytes,
		},
	})
	if err != nil {
		return err
	}

	bg, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.templates = esclient.NewTemplateChecker(client, e.logger)
	e.wg.Go(func() {
		v, ok := client.CheckServer(bg)
		if ok && e.cfg.IncludeSourceOnError == nil && v.TakesIncludeSourceOnError() {
			// Without the parameter Elasticsearch reports no error reasons; false gives the
			// reasons without the documents' content.
			e.indexer.SetIncludeSourceOnError(docappender.False)
		}
	})
	e.wg.Go(func() { e.templates.Run(bg) })
	return nil
}

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

func (e *esExporter) pushLogs(ctx context.Context, ld plog.Logs) error {
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
				rec := recs.At(k)
				keys := routing.ScanRecord(rec.Attributes())
				if st.skipNoIndex(keys, rec.Attributes()) {
					continue
				}
				ts := rec.Timestamp()
				if ts == 0 {
					ts = rec.ObservedTimestamp()
				}
				t, err := st.logs.RouteRecord(keys, rec.Attributes(), ts)
				if err != nil {
					st.unrouted(err)
					continue
				}
				start := len(st.batch.Buf)
				st.batch.Buf = st.enc.AppendLog(st.batch.Buf, rec, dataStream(t))
				if st.rejectedByEncoder(start) {
					continue
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
		}
	}
	return e.send(ctx, st)
}

func (e *esExporter) pushTraces(ctx context.Context, td ptrace.Traces) error {
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
	return e.send(ctx, st)
}

// spanDocuments returns the number of spans and span events.
func spanDocuments(spans ptrace.SpanSlice) int {
	n := spans.Len()
	for i := range spans.Len() {
		n += spans.At(i).Events().Len()
	}
	return n
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

func (e *esExporter) pushMetrics(ctx context.Context, md pmetric.Metrics) error {
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
	return e.send(ctx, st)
}

// metricsByMode calls encode once per mapping mode that the scopes of md resolve to, with the
// scopes of that mode, and counts the data points of the scopes whose mode cannot be used as
// rejected. When every scope resolves to one usable mode, as in every request that does not
// mix modes, md itself is encoded; otherwise the scopes of each mode are copied.
func (st *pushState) metricsByMode(modes *modes, md pmetric.Metrics, encode func(serializer.Mode, pmetric.Metrics)) {
	rms := md.ResourceMetrics()
	first, mixed := serializer.Mode(0), false
	seen := false
	for i := range rms.Len() {
		sms := rms.At(i).ScopeMetrics()
		for j := range sms.Len() {
			mode, err := st.metricsMode(modes, sms.At(j))
			switch {
			case err != nil:
				mixed = true
			case !seen:
				first, seen = mode, true
			case mode != first:
				mixed = true
			}
		}
	}
	if !mixed {
		if seen {
			encode(first, md)
		}
		return
	}
	var parts [serializer.NumModes]pmetric.Metrics
	for i := range rms.Len() {
		rm := rms.At(i)
		var dst [serializer.NumModes]pmetric.ResourceMetrics
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			sm := sms.At(j)
			mode, err := st.metricsMode(modes, sm)
			if err != nil {
				st.rejectMode(err, dataPoints(sm))
				continue
			}
			if parts[mode] == (pmetric.Metrics{}) {
				parts[mode] = pmetric.NewMetrics()
			}
			if dst[mode] == (pmetric.ResourceMetrics{}) {
				dst[mode] = newResourceMetrics(parts[mode], rm)
			}
			sm.CopyTo(dst[mode].ScopeMetrics().AppendEmpty())
		}
	}
	for mode, part := range parts {
		if part != (pmetric.Metrics{}) {
			encode(serializer.Mode(mode), part)
		}
	}
}

// metricsMode resolves the mapping mode of a scope of metrics; an error tells why it cannot be
// used.
func (st *pushState) metricsMode(modes *modes, sm pmetric.ScopeMetrics) (serializer.Mode, error) {
	mode, err := modes.scope(sm.Scope().Attributes())
	if err != nil {
		return mode, err
	}
	if mode != serializer.ModeOTel && mode != serializer.ModeECS {
		// Not reached while modes.scope checks that the mode supports metrics: a guard for
		// a mode that claims metrics without the encoder writing them.
		return mode, fmt.Errorf("mapping mode %s cannot write metrics", mode)
	}
	return mode, nil
}

// newResourceMetrics appends to md a ResourceMetrics with rm's resource and no scopes.
func newResourceMetrics(md pmetric.Metrics, rm pmetric.ResourceMetrics) pmetric.ResourceMetrics {
	dst := md.ResourceMetrics().AppendEmpty()
	rm.Resource().CopyTo(dst.Resource())
	dst.SetSchemaUrl(rm.SchemaUrl())
	return dst
}

// dataPoints returns the number of data points of a scope.
func dataPoints(sm pmetric.ScopeMetrics) int {
	n := 0
	ms := sm.Metrics()
	for i := range ms.Len() {
		switch m := ms.At(i); m.Type() {
		case pmetric.MetricTypeGauge:
			n += m.Gauge().DataPoints().Len()
		case pmetric.MetricTypeSum:
			n += m.Sum().DataPoints().Len()
		case pmetric.MetricTypeHistogram:
			n += m.Histogram().DataPoints().Len()
		case pmetric.MetricTypeExponentialHistogram:
			n += m.ExponentialHistogram().DataPoints().Len()
		case pmetric.MetricTypeSummary:
			n += m.Summary().DataPoints().Len()
		}
	}
	return n
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

// recordMetricsReport counts and logs, once per push, the data points and values that the
// encoder could not write.
func (e *esExporter) recordMetricsReport(ctx context.Context, r *serializer.MetricsReport) {
	for i, n := range r.Rejected {
		if n == 0 {
			continue
		}
		reason := serializer.RejectReason(i)
		e.countUnsent(ctx, bulk.OutcomeRejected, reason, n)
		if suppressed, ok := e.invalidRouteLog.Allow(); ok {
			fields := []zap.Field{
				zap.Int("data_points", n), zap.String("reason", reason),
				zap.String("metric", r.RejectedNames[i]), zap.Int("suppressed_log_lines", suppressed),
			}
			if reason == serializer.RejectInvalidIndexName {
				fields = append(fields, zap.Error(r.FirstError))
			}
			e.logger.Warn("Metric data points rejected", fields...)
		}
	}
	if r.NonFinite > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "non_finite_value", r.NonFinite)
		e.logger.Warn("Metric values that are NaN or infinite were not written: Elasticsearch cannot store them",
			zap.Int("values", r.NonFinite), zap.String("metric", r.NonFiniteName))
	}
	if r.NoIndex > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "_noindex", r.NoIndex)
	}
}

// countUnsent counts documents, data points or values that were never sent: rejected or
// skipped while encoding (no HTTP status).
func (e *esExporter) countUnsent(ctx context.Context, outcome, errorType string, n int) {
	e.telemetry.ElasticsearchDocsProcessed.Add(ctx, int64(n), metric.WithAttributes(
		attribute.String("outcome", outcome),
		attribute.String("error.type", errorType),
		attribute.Int("http.response.status_code", 0),
	))
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

// unrouted counts a record that could not be routed.
func (st *pushState) unrouted(err error) { st.reject("invalid_index_name", 1, err) }

// reject counts n records rejected before sending, keeping the first error of each type for
// the log.
func (st *pushState) reject(errorType string, n int, err error) {
	st.rejected[errorType] += n
	if _, ok := st.firstRejection[errorType]; !ok {
		st.firstRejection[errorType] = err
	}
}

// skipNoIndex reports whether a record (log record, span or span event) with the attribute
// keys found by routing.ScanRecord carries the _noindex hint, and counts it as skipped.
func (st *pushState) skipNoIndex(keys routing.RecordKeys, attrs pcommon.Map) bool {
	if keys&routing.RecordMappingHints == 0 || !serializer.NoIndex(attrs) {
		return false
	}
	st.noIndex++
	return true
}

// rejectMode counts n records rejected because their mapping mode cannot be used; the push
// then returns a permanent error.
func (st *pushState) rejectMode(err error, n int) {
	errorType := errorTypeUnsupportedMode
	if me, ok := errors.AsType[*modeError](err); ok {
		errorType = me.errorType
	}
	st.reject(errorType, n, err)
	st.modeRejected = err
}

// rejectedByEncoder reports whether the encoder refused the record just given to it (it then
// wrote nothing after start), and counts the rejection.
func (st *pushState) rejectedByEncoder(start int) bool {
	reason := st.enc.Rejection()
	if reason == "" {
		return false
	}
	st.batch.Buf = st.batch.Buf[:start]
	var err error // only the first error of a type is logged: made once per push
	if _, ok := st.firstRejection[reason]; !ok {
		err = fmt.Errorf("mapping mode %s cannot write the record: %s", st.mode, reason)
	}
	st.reject(reason, 1, err)
	return true
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
// rejected.
func (e *esExporter) send(ctx context.Context, st *pushState) error {
	for r, n := range st.repairs {
		e.telemetry.ElasticsearchDocsRepaired.Add(ctx, int64(n), metric.WithAttributes(attribute.String("reason", string(r))))
	}
	for errorType, n := range st.rejected {
		e.countUnsent(ctx, bulk.OutcomeRejected, errorType, n)
		if suppressed, ok := e.invalidRouteLog.Allow(); ok {
			e.logger.Warn("Records rejected before sending", zap.String("error.type", errorType),
				zap.Int("records", n), zap.Error(st.firstRejection[errorType]), zap.Int("suppressed_log_lines", suppressed))
		}
	}
	if st.noIndex > 0 {
		e.countUnsent(ctx, bulk.OutcomeSkipped, "_noindex", st.noIndex)
	}
	release, err := e.holdInflight(ctx, len(st.batch.Buf))
	if err != nil {
		e.countWaitGivenUp(ctx, st.batch.Len())
		return err
	}
	defer release()
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
	return err
}
