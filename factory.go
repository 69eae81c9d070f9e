// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper"
	"go.opentelemetry.io/collector/exporter/xexporter"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// NewFactory returns the factory of the elasticsearch exporter: logs, metrics, traces and, in a
// collector that enables the service.profilesSupport feature gate, profiles.
func NewFactory() exporter.Factory {
	return xexporter.NewFactory(
		metadata.Type,
		createDefaultConfig,
		xexporter.WithLogs(createLogsExporter, metadata.LogsStability),
		xexporter.WithTraces(createTracesExporter, metadata.TracesStability),
		xexporter.WithMetrics(createMetricsExporter, metadata.MetricsStability),
		xexporter.WithProfiles(createProfilesExporter, profilesStability),
	)
}

// profilesStability is the stability of profiles, as in contrib. It is not in metadata.yaml (see
// the comment there).
const profilesStability = component.StabilityLevelDevelopment

// Defaults that a derived setting falls back to as well.
const (
	// defaultMaxBulkBytes is sending_queue::batch::max_size by default, and the bound of a
	// bulk request when the sending queue does not batch by bytes.
	defaultMaxBulkBytes = 5_000_000

	// defaultNumConsumers is sending_queue::num_consumers by default, as in contrib, and, when
	// the sending queue is off, the number of push states and bulk sessions kept between pushes
	// (pushes then run on the callers' goroutines, as many as call). Small requests still share
	// bulk requests: the batcher merges what is queued when a consumer is free, and pushes that
	// arrive together while the adaptive cap on requests in flight is below it wait for a slot
	// and share one (group commit, internal/bulk/group.go). More consumers hold more pushes of
	// encoded documents at large requests, for no more documents per second (delivery.md's
	// memory model).
	defaultNumConsumers = 10

	// defaultMaxConcurrentRequests is flow_control::max_concurrent_requests by default, and
	// the cap when it is set to 0 and the sending queue is off.
	defaultMaxConcurrentRequests = 10

	// defaultQueueBytes is sending_queue::queue_size by default, in bytes of OTLP
	// (sending_queue::sizer bytes): the largest request body that the OTLP receiver takes at
	// its defaults, so that no request that reaches it is too large for the queue.
	defaultQueueBytes = 20 << 20
)

// createDefaultConfig returns the defaults of the configuration. A default that is also the
// fallback of a derived setting, or of another package (routing's logstash_format defaults), is
// named by a constant rather than repeated.
func createDefaultConfig() component.Config {
	// Start from the confighttp defaults: a zero ClientConfig turns
	// keep-alive off.
	httpCfg := confighttp.NewDefaultClientConfig()
	// The timeout of each bulk request; large bulks on a busy cluster take
	// longer than the usual 5s.
	httpCfg.Timeout = 90 * time.Second
	// The bulk indexer gzips the body itself, at BestSpeed by default: level
	// 1 costs far less CPU than the library default for a small size gain.
	httpCfg.Compression = configcompression.TypeGzip
	httpCfg.CompressionParams.Level = 1

	// Batch by bytes, so that no bulk request is larger than 5 MB of OTLP.
	// min_size is 0: each batch is sent as soon as a consumer is free. The
	// queue frees a request's room only once its batch is sent, so a batch never
	// holds more than the queue does: with a min_size above what the queue holds
	// (with a queue sized in requests, queue_size times the smallest request:
	// an SDK's 512 records are ~50 KB), batches would wait out flush_timeout
	// while the pipeline blocks.
	batch := exporterhelper.NewDefaultBatchConfig()
	batch.Sizer = exporterhelper.RequestSizerTypeBytes
	batch.MinSize = 0
	batch.MaxSize = defaultMaxBulkBytes
	batch.FlushTimeout = 10 * time.Second

	queue := exporterhelper.NewDefaultQueueConfig()
	// The queue is bounded in bytes of OTLP, not in requests, so that what the collector holds
	// does not grow with the size of its requests: a request's room is freed only once its push
	// ends, so queue_size bounds the requests queued and those being pushed together. It is the
	// largest request body that the OTLP receiver takes at its defaults (confighttp's
	// max_request_body_size, 20 MiB, above gRPC's max_recv_msg_size_mib, 4), since a request
	// larger than the whole queue is refused; small requests still fill num_consumers pushes,
	// which share bulk requests.
	queue.Sizer = exporterhelper.RequestSizerTypeBytes
	queue.QueueSize = defaultQueueBytes
	queue.NumConsumers = defaultNumConsumers
	queue.BlockOnOverflow = true
	queue.Batch = configoptional.Some(batch)

	return &Config{
		ClientConfig: httpCfg,
		Mapping: MappingConfig{
			Mode:         serializer.ModeOTel.String(),
			AllowedModes: serializer.ModeNames(),
		},
		LogstashFormat: LogstashFormatConfig{
			PrefixSeparator: routing.DefaultPrefixSeparator,
			DateFormat:      routing.DefaultDateFormat,
		},
		Retry: RetryConfig{
			Enabled:         true,
			MaxRetries:      30,
			InitialInterval: 100 * time.Millisecond,
			MaxInterval:     time.Minute,
			RetryOnStatus:   []int{429, 502, 503, 504},
			AuthGracePeriod: time.Minute,
		},
		QueueBatchConfig: configoptional.Some(queue),
		// Pushes hold their encoded documents until every one has an
		// outcome; 64 MiB holds several default batches (5 MB of OTLP
		// each, more once encoded) at once.
		FlowControl: FlowControlConfig{
			MaxInflightBytes:      64 << 20,
			MaxConcurrentRequests: defaultMaxConcurrentRequests,
			AdaptiveConcurrency:   AdaptiveConcurrencyConfig{Enabled: true},
		},
		DeadLetter:             DeadLetterConfig{Index: "otel-dead-letters"},
		BulkResponseFilterPath: bulk.AccountingFilterPath,
		Telemetry: TelemetryConfig{
			LogFailedDocsInputRateLimit: time.Second,
		},
	}
}

func createLogsExporter(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
	c := cfg.(*Config)
	h, err := acquireSignal(c, set, signal.Logs)
	if err != nil {
		return nil, err
	}
	exp, err := exporterhelper.NewLogs(ctx, h.helperSettings(c, set), cfg, h.shared.exp.pushLogs, h.options(c)...)
	if err != nil {
		_ = h.shutdown(ctx)
		return nil, err
	}
	return stoppingLogs{exp, h.shared.exp}, nil
}

func createMetricsExporter(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
	c := cfg.(*Config)
	h, err := acquireSignal(c, set, signal.Metrics)
	if err != nil {
		return nil, err
	}
	exp, err := exporterhelper.NewMetrics(ctx, h.helperSettings(c, set), cfg, h.shared.exp.pushMetrics, h.options(c)...)
	if err != nil {
		_ = h.shutdown(ctx)
		return nil, err
	}
	return stoppingMetrics{exp, h.shared.exp}, nil
}

func createTracesExporter(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
	c := cfg.(*Config)
	h, err := acquireSignal(c, set, signal.Traces)
	if err != nil {
		return nil, err
	}
	exp, err := exporterhelper.NewTraces(ctx, h.helperSettings(c, set), cfg, h.shared.exp.pushTraces, h.options(c)...)
	if err != nil {
		_ = h.shutdown(ctx)
		return nil, err
	}
	return stoppingTraces{exp, h.shared.exp}, nil
}

// The logs, metrics, traces and profiles exporters of one component share one
// esExporter, so they share its HTTP client, connection pool, bulk indexers
// and flow_control limits.
//
// Instances are keyed by component ID and *Config: the collector hands the
// factories of one ID the same *Config, so they share; two
// different configurations under one ID (a test, or a reload that builds the
// new pipelines before the old ones are gone) get separate instances rather
// than one running with the other's settings.
//
// Each signal holds a reference. The first start starts the instance, and
// the shutdown that drops the last reference shuts it down and forgets it,
// so a later create with the same ID builds a fresh one.
var sharedExporters = &exporterRegistry{entries: map[sharedKey]*sharedExporter{}}

type sharedKey struct {
	id  component.ID
	cfg *Config
}

type exporterRegistry struct {
	mu      sync.Mutex
	entries map[sharedKey]*sharedExporter
}

type sharedExporter struct {
	key  sharedKey
	exp  *esExporter
	refs int // guarded by exporterRegistry.mu

	startOnce sync.Once
	startErr  error
}

// signalRef is one signal's reference to a shared exporter. Its shutdown is
// idempotent, so a repeated shutdown never drops another signal's reference.
type signalRef struct {
	reg          *exporterRegistry
	shared       *sharedExporter
	shutdownOnce sync.Once
	shutdownErr  error
}

// acquire returns a reference to the esExporter of cfg's component, creating
// it on first use. The creator logs the config's deprecation warnings and the
// notes on where it differs from contrib, so they appear once per component and
// not once per signal.
func (r *exporterRegistry) acquire(cfg *Config, set exporter.Settings) (*signalRef, error) {
	key := sharedKey{id: set.ID, cfg: cfg}
	r.mu.Lock()
	defer r.mu.Unlock()

	s, ok := r.entries[key]
	if !ok {
		cfg.logStartupNotes(set.Logger)
		shared := set
		shared.TelemetrySettings = withoutSignal(set.TelemetrySettings)
		exp, err := newExporter(cfg, shared)
		if err != nil {
			return nil, fmt.Errorf("creating elasticsearch exporter %s: %w", set.ID, err)
		}
		s = &sharedExporter{key: key, exp: exp}
		r.entries[key] = s
	}
	s.refs++
	return &signalRef{reg: r, shared: s}, nil
}

// acquireSignal returns a reference to the shared exporter of cfg's component for the pipeline
// of signal: it notes the signal for the privilege check at
// start, and warns when the default mapping mode cannot write the signal's documents.
func acquireSignal(cfg *Config, set exporter.Settings, sig signal.Kind) (*signalRef, error) {
	h, err := sharedExporters.acquire(cfg, set)
	if err != nil {
		return nil, err
	}
	h.shared.exp.noteSignal(sig)
	cfg.logSignalNotes(set.Logger, sig)
	return h, nil
}

// start starts the shared exporter once; every signal gets the same result.
func (h *signalRef) start(ctx context.Context, host component.Host) error {
	s := h.shared
	s.startOnce.Do(func() { s.startErr = s.exp.start(ctx, host) })
	return s.startErr
}

// shutdown drops this signal's reference and shuts the exporter down when
// it was the last one.
func (h *signalRef) shutdown(ctx context.Context) error {
	h.shutdownOnce.Do(func() {
		r, s := h.reg, h.shared
		r.mu.Lock()
		s.refs--
		last := s.refs == 0
		if last {
			delete(r.entries, s.key)
		}
		r.mu.Unlock()
		if last {
			h.shutdownErr = s.exp.shutdown(ctx)
		}
	})
	return h.shutdownErr
}

// helperSettings returns the settings exporterhelper logs with: with a persistent queue, its
// line about a failed push says so when the batch was handed back and the queue keeps it.
func (*signalRef) helperSettings(cfg *Config, set exporter.Settings) exporter.Settings {
	if cfg.persistentQueue() {
		set.TelemetrySettings = withHandBackLog(set.TelemetrySettings)
	}
	return set
}

// options are the exporterhelper options common to every signal.
func (h *signalRef) options(cfg *Config) []exporterhelper.Option {
	// The exporter bounds each bulk request by `timeout` itself; a timeout
	// around the whole push would cut retries and multi-request pushes
	// short. Zero means none.
	noTimeout := exporterhelper.NewDefaultTimeoutConfig()
	noTimeout.Timeout = 0
	// Request and document retries happen inside the push (`retry`), which
	// knows which documents failed; retrying the whole push would duplicate
	// the documents that were indexed.
	retry := configretry.NewDefaultBackOffConfig()
	retry.Enabled = false
	if cfg.persistentQueue() {
		// With a persistent queue, a batch given up at shutdown is handed back: the push
		// returns it as retryable (bulk.Config.HandBackOnStop; any other failure is
		// permanent), and exporterhelper's retry, which is shut down before the queue
		// drains, turns that into the shutdown error on which the queue keeps the batch
		// for after the restart. It sees nothing retryable before shutdown begins; until its
		// own shutdown (another signal's exporter may stop first) it sends such a push again.
		retry.Enabled = true
		retry.MaxElapsedTime = 0
	}

	return []exporterhelper.Option{
		exporterhelper.WithStart(h.start),
		exporterhelper.WithShutdown(h.shutdown),
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}),
		exporterhelper.WithTimeout(noTimeout),
		exporterhelper.WithRetry(retry),
		exporterhelper.WithQueue(cfg.queueBatchConfig()),
	}
}

func createProfilesExporter(ctx context.Context, set exporter.Settings, cfg component.Config) (xexporter.Profiles, error) {
	c := cfg.(*Config)
	h, err := acquireSignal(c, set, signal.Profiles)
	if err != nil {
		return nil, err
	}
	exp, err := xexporterhelper.NewProfiles(ctx, h.helperSettings(c, set), cfg, h.shared.exp.pushProfiles, h.options(c)...)
	if err != nil {
		_ = h.shutdown(ctx)
		return nil, err
	}
	return stoppingProfiles{exp, h.shared.exp}, nil
}

// The exporters returned by the factory tell the shared exporter that shutdown has begun
// before exporterhelper drains the sending queue: retries happen inside the push, and a drain
// that kept retrying through an outage would not end. From then on each push makes one attempt
// (a push under way finishes its current one), so the queue's remaining batches are sent once;
// what fails is counted and logged as dropped, or, with a persistent queue, handed back whole
// to the queue, which keeps it (see options). If the shutdown's
// context ends before the drain, the requests in flight are canceled.
type stoppingLogs struct {
	exporter.Logs
	exp *esExporter
}

func (s stoppingLogs) Shutdown(ctx context.Context) error {
	defer s.exp.stopRetries(ctx)()
	return s.Logs.Shutdown(ctx)
}

type stoppingTraces struct {
	exporter.Traces
	exp *esExporter
}

func (s stoppingTraces) Shutdown(ctx context.Context) error {
	defer s.exp.stopRetries(ctx)()
	return s.Traces.Shutdown(ctx)
}

type stoppingMetrics struct {
	exporter.Metrics
	exp *esExporter
}

func (s stoppingMetrics) Shutdown(ctx context.Context) error {
	defer s.exp.stopRetries(ctx)()
	return s.Metrics.Shutdown(ctx)
}

type stoppingProfiles struct {
	xexporter.Profiles
	exp *esExporter
}

func (s stoppingProfiles) Shutdown(ctx context.Context) error {
	defer s.exp.stopRetries(ctx)()
	return s.Profiles.Shutdown(ctx)
}
