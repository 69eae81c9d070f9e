// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/elastic/go-docappender/v2"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// esExporter is shared by the logs, metrics, traces and profiles exporters of one component ID:
// it starts and stops what their pushes use, and its pipeline runs the pushes.
type esExporter struct {
	cfg       *Config
	set       exporter.Settings
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder

	client    *esclient.Client
	indexer   *bulk.Indexer
	templates *esclient.TemplateChecker

	// pipeline runs the pushes (internal/pipeline), built by start; pushLogs, pushMetrics,
	// pushTraces and pushProfiles hand it the pushes, which the exporter helper makes only
	// after start.
	pipeline *pipeline.Pipeline

	// budget caps the bytes held by pushes of every signal (flow_control::max_inflight_bytes):
	// the pipeline takes room in it, the bulk indexer holds request buffers in it.
	budget *bulk.ByteBudget

	// background work started by start (server checks), stopped by shutdown.
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// signals are the signals the component was created for (noteSignal), for the start-up check.
	signalsMu sync.Mutex
	signals   map[signal.Kind]bool
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
		budget: bulk.NewByteBudget(cfg.FlowControl.MaxInflightBytes),
	}
	// A bad static index or date format fails at creation with a clear message; the pipeline
	// itself is built at start, once the bulk indexer that sends its documents is.
	if err := pipeline.CheckSettings(cfg.pipelineSettings()); err != nil {
		return nil, err
	}
	if cfg.DeadLetter.Enabled {
		if _, err := routing.NewRouter(routing.Settings{StaticIndex: cfg.DeadLetter.Index}); err != nil {
			return nil, fmt.Errorf("`dead_letter::index`: %w", err)
		}
	}
	return e, nil
}

// pipelineSettings are the settings of the push pipeline.
func (c *Config) pipelineSettings() pipeline.Settings {
	return pipeline.Settings{
		LogsIndex:           c.LogsIndex,
		MetricsIndex:        c.MetricsIndex,
		TracesIndex:         c.TracesIndex,
		LogstashFormat:      c.LogstashFormat.Enabled,
		PrefixSeparator:     c.LogstashFormat.PrefixSeparator,
		DateFormat:          c.LogstashFormat.DateFormat,
		AllowDotTargets:     c.DynamicRouting.AllowDotTargets,
		AllowedTargets:      c.DynamicRouting.AllowedTargets,
		AllowedModes:        c.Mapping.AllowedModes,
		LogsDynamicID:       c.LogsDynamicID.Enabled,
		LogsDynamicPipeline: c.LogsDynamicPipeline.Enabled,
		TracesDynamicID:     c.TracesDynamicID.Enabled,
		DeterministicIDs:    c.DeterministicIDs.Enabled,
		ECSSpanEventsToLogs: c.Mapping.ECSSpanEventsToLogs,
		PersistentQueue:     c.persistentQueue(),
		NumConsumers:        c.numConsumers(),
		MaxInflightBytes:    c.FlowControl.MaxInflightBytes,
		LogRateLimit:        c.Telemetry.LogFailedDocsInputRateLimit,
	}
}

// start builds the Elasticsearch client, here because auth extensions exist only once the host
// has started them, and the bulk indexer, and starts the background checks of the server's
// version, of the index templates and, with `compression: snappy`, of snappy.
func (e *esExporter) start(ctx context.Context, host component.Host) error {
	otel := slices.Contains(e.cfg.Mapping.AllowedModes, serializer.ModeOTel.String())
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
		OTelMode:             otel,
		OTelMetrics:          otel && e.writesSignal(signal.Metrics) && e.cfg.MetricsIndex == "" && !e.cfg.LogstashFormat.Enabled,
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
	// Validate has checked them.
	filterPath, _ := bulk.FilterPath(e.cfg.BulkResponseFilterPath)
	queryParams, _ := e.cfg.endpoints().QueryParams()
	e.indexer, err = bulk.New(bulk.Config{
		Client:                 client,
		CompressionLevel:       level,
		Snappy:                 e.cfg.Compression == configcompression.TypeSnappy,
		MaxBulkBytes:           e.cfg.maxBulkBytes(),
		MaxBulkDocs:            e.cfg.maxBulkDocs(),
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
		QueryParams:            queryParams,
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
	e.templates = esclient.NewTemplateChecker(client, e.logger)
	e.pipeline, err = pipeline.New(e.cfg.pipelineSettings(), e.indexer, e.templates, e.budget, e.telemetry, e.logger)
	if err != nil {
		return err
	}
	e.wg.Go(func() {
		v, ok := client.CheckServer(bg)
		if ok && e.cfg.IncludeSourceOnError == nil && !v.TakesIncludeSourceOnError() {
			e.indexer.SetIncludeSourceOnError(docappender.Unset)
		}
	})
	e.wg.Go(func() {
		for {
			failed, ok := e.templates.Next(bg)
			if !ok {
				return
			}
			e.recordCheck(esclient.CheckTemplate, failed)
		}
	})
	if e.cfg.Compression == configcompression.TypeSnappy {
		// gzip until the node is found to decode snappy.
		e.wg.Go(func() {
			if client.ProbeSnappy(bg) {
				e.indexer.EnableSnappy()
			}
		})
	}
	return nil
}

// pushLogs, pushMetrics, pushTraces and pushProfiles are the pushes of the four signals.
func (e *esExporter) pushLogs(ctx context.Context, ld plog.Logs) error {
	return e.pipeline.PushLogs(ctx, ld)
}

func (e *esExporter) pushMetrics(ctx context.Context, md pmetric.Metrics) error {
	return e.pipeline.PushMetrics(ctx, md)
}

func (e *esExporter) pushTraces(ctx context.Context, td ptrace.Traces) error {
	return e.pipeline.PushTraces(ctx, td)
}

func (e *esExporter) pushProfiles(ctx context.Context, pd pprofile.Profiles) error {
	return e.pipeline.PushProfiles(ctx, pd)
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

// The start-up check (internal/esclient, run by start): the privilege check asks for what the
// component's pipelines write, and each check's result is recorded in
// otelcol.elasticsearch.startup_check.

// noteSignal records that the component was created for signal, so that the privilege check
// at start asks only for what the pipelines write.
func (e *esExporter) noteSignal(sig signal.Kind) {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	if e.signals == nil {
		e.signals = map[signal.Kind]bool{}
	}
	e.signals[sig] = true
}

// writesSignal tells whether the component writes documents of signal: when no signal was
// noted (an exporter built without the factory), every signal is assumed.
func (e *esExporter) writesSignal(sig signal.Kind) bool {
	e.signalsMu.Lock()
	defer e.signalsMu.Unlock()
	return len(e.signals) == 0 || e.signals[sig]
}

// writes are the index patterns the configuration writes to, for the privilege check: each
// signal's data streams or static index, span events with the logs, the profiling indices and
// data streams, and the dead letters.
// Values of elasticsearch.index are known only from the records, and are not checked.
func (e *esExporter) writes() []esclient.Write {
	set := e.cfg.pipelineSettings()
	var w []esclient.Write
	if e.writesSignal(signal.Logs) {
		w = append(w, esclient.Write{Pattern: set.Routing(e.cfg.LogsIndex).Pattern(signal.Logs), For: signal.Logs.String()})
	}
	if e.writesSignal(signal.Metrics) {
		w = append(w, esclient.Write{Pattern: set.Routing(e.cfg.MetricsIndex).Pattern(signal.Metrics), For: signal.Metrics.String()})
	}
	if e.writesSignal(signal.Traces) {
		w = append(w,
			esclient.Write{Pattern: set.Routing(e.cfg.TracesIndex).Pattern(signal.Traces), For: signal.Traces.String()},
			esclient.Write{Pattern: set.Routing(e.cfg.LogsIndex).Pattern(signal.Logs), For: "span events"})
	}
	if e.writesSignal(signal.Profiles) {
		w = append(w, esclient.Write{Pattern: routing.ProfilingIndices, For: signal.Profiles.String()})
	}
	if idx := e.deadLetterIndex(); idx != "" {
		w = append(w, esclient.Write{Pattern: idx, For: "dead letters"})
	}
	return w
}

// recordCheck records a start-up check's result in otelcol.elasticsearch.startup_check: 1
// when it failed, 0 when it passed.
func (e *esExporter) recordCheck(check esclient.Check, failed bool) {
	v := int64(0)
	if failed {
		v = 1
	}
	e.telemetry.ElasticsearchStartupCheck.Record(context.Background(), v,
		metric.WithAttributeSet(attribute.NewSet(attribute.String("check", string(check)))))
}
