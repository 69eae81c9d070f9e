// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Config is the configuration of the elasticsearch exporter. Its YAML keys
// and their meaning match the contrib elasticsearch exporter, so an existing
// contrib configuration loads unchanged; keys that contrib deprecated are
// accepted and mapped (see Unmarshal), keys it removed are refused with a
// message naming the replacement.
//
// The full user-facing reference is docs/configuration.md.
type Config struct {
	// ClientConfig holds the common collector HTTP client settings, squashed
	// at the top level as contrib does: endpoint, tls, headers, timeout,
	// compression, compression_params, proxy_url, auth, and so on.
	//
	// Differences from the confighttp defaults (see createDefaultConfig):
	//   - timeout defaults to 90s and is the deadline of EACH bulk request
	//     (the exporter applies it per request; exporterhelper's own timeout
	//     is off);
	//   - compression defaults to gzip at compression_params::level 1; only
	//     gzip and none are accepted because the bulk body is compressed by
	//     the bulk indexer itself, never by the HTTP client.
	confighttp.ClientConfig `mapstructure:",squash"`

	// Authentication holds the user/password/api_key shortcuts, squashed at
	// the top level as contrib does. The confighttp `auth` section (an
	// authenticator extension) is the alternative.
	Authentication AuthenticationConfig `mapstructure:",squash"`

	// Endpoints is a list of Elasticsearch URLs, used round-robin. At most one
	// of endpoint, endpoints and cloudid may be set; when none is set, the
	// comma-separated ELASTICSEARCH_URL environment variable is used.
	// Default: empty.
	Endpoints []string `mapstructure:"endpoints"`

	// CloudID is an Elastic Cloud ID, `[name:]base64("host$es_uuid$kibana_uuid")`,
	// which resolves to https://<es_uuid>.<host>. Default: empty.
	CloudID string `mapstructure:"cloudid"`

	// LogsIndex is a static index or data stream name for every log record.
	// Empty (the default) means data stream routing from the record's
	// data_stream.* attributes.
	LogsIndex string `mapstructure:"logs_index"`

	// MetricsIndex is a static index or data stream for every metric
	// document. Empty (the default) means data stream routing.
	MetricsIndex string `mapstructure:"metrics_index"`

	// TracesIndex is a static index or data stream name for every span.
	// Empty (the default) means data stream routing.
	TracesIndex string `mapstructure:"traces_index"`

	// LogsDynamicID, when enabled, uses the log record attribute
	// `elasticsearch.document_id` as the document _id. Default: off.
	LogsDynamicID DynamicIDConfig `mapstructure:"logs_dynamic_id"`

	// TracesDynamicID, when enabled, uses the span attribute
	// `elasticsearch.document_id` as the document _id. Default: off.
	TracesDynamicID DynamicIDConfig `mapstructure:"traces_dynamic_id"`

	// DeterministicIDs, when enabled, gives each log record, span and span
	// event without an elasticsearch.document_id a document _id computed from
	// its content, so that a document sent again after a retry or a replay is
	// answered 409 and counted as a duplicate instead of stored twice. Not for
	// metrics: time series data streams compute their own _id. Costs: custom
	// ids make Elasticsearch index more slowly, two identical records become
	// one document, and ids are unique per backing index only. Default: off.
	DeterministicIDs DeterministicIDsConfig `mapstructure:"deterministic_ids"`

	// DeadLetter, when enabled, writes a dead-letter document for each
	// document that Elasticsearch rejected for good or that could not be
	// delivered: the original document as a string, the index it was meant
	// for, the HTTP status, the error type and reason, and the time. Default:
	// off; the rejection is then logged and counted only.
	DeadLetter DeadLetterConfig `mapstructure:"dead_letter"`

	// LogsDynamicPipeline, when enabled, uses the log record attribute
	// `elasticsearch.document_pipeline` as the document's ingest pipeline.
	// Default: off.
	LogsDynamicPipeline DynamicPipelineConfig `mapstructure:"logs_dynamic_pipeline"`

	// Pipeline is the ingest pipeline applied to every bulk request.
	// Empty (the default) means the index's default pipeline. An ingest
	// pipeline costs CPU on the Elasticsearch side for every document.
	Pipeline string `mapstructure:"pipeline"`

	// LogstashFormat appends a date suffix to the index name.
	LogstashFormat LogstashFormatConfig `mapstructure:"logstash_format"`

	// Mapping selects the document layout.
	Mapping MappingConfig `mapstructure:"mapping"`

	// Retry controls retries of failed bulk requests and failed documents.
	// Retries happen inside one push, so exporterhelper's retry_on_failure
	// is off for this exporter.
	Retry RetryConfig `mapstructure:"retry"`

	// QueueBatchConfig is the collector sending queue (`sending_queue`).
	// Default: enabled, 10 consumers, 10 requests, blocking when full, and
	// batching by bytes (min_size 1 MB, max_size 5 MB, flush_timeout 10s).
	// Memory held is about queue_size requests plus num_consumers batches of
	// up to max_size bytes each.
	QueueBatchConfig configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`

	// FlowControl bounds what the exporter holds and sends at once: the bytes
	// in flight, shared by the logs, metrics and traces exporters of this
	// component, and the bulk requests in flight, adapted to how
	// Elasticsearch copes.
	FlowControl FlowControlConfig `mapstructure:"flow_control"`

	// Discovery controls Elasticsearch node discovery (sniffing). Default: off.
	Discovery DiscoveryConfig `mapstructure:"discover"`

	// IncludeSourceOnError sets the bulk request's include_source_on_error
	// parameter (Elasticsearch 8.18+). true returns error reasons with part
	// of the failing document, which may put document content in the
	// exporter's logs; false returns the reasons without it. nil (the
	// default) lets the exporter choose: false on 8.18+, nothing on older
	// versions, where Elasticsearch then reports no error reasons.
	IncludeSourceOnError *bool `mapstructure:"include_source_on_error"`

	// Telemetry holds debugging switches for the exporter's own logs.
	Telemetry TelemetryConfig `mapstructure:"telemetry"`

	// MetadataKeys lists client metadata keys (case-insensitive) used to
	// partition sending_queue batches, so that one bulk request only holds
	// data that arrived with the same values for these keys. Each distinct
	// combination keeps its own batch in memory. Default: empty.
	MetadataKeys []string `mapstructure:"metadata_keys"`

	// deprecations holds one message per deprecated key found by Unmarshal.
	// They are logged once, when the component is created.
	deprecations []string

	// prevent unkeyed literal initialization
	_ struct{}
}

// AuthenticationConfig holds the basic and API key authentication shortcuts.
type AuthenticationConfig struct {
	// User is the HTTP basic authentication user name. Needs password; cannot
	// be combined with api_key. Default: empty.
	User string `mapstructure:"user"`

	// Password is the HTTP basic authentication password. Default: empty.
	Password configopaque.String `mapstructure:"password"`

	// APIKey is an Elasticsearch API key in its encoded form, sent as
	// `Authorization: ApiKey <api_key>`. Default: empty.
	APIKey configopaque.String `mapstructure:"api_key"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// DynamicIDConfig controls taking the document _id from an attribute.
type DynamicIDConfig struct {
	// Enabled turns the feature on. Default: false.
	Enabled bool `mapstructure:"enabled"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// DeadLetterConfig controls the dead-letter index.
type DeadLetterConfig struct {
	// Enabled turns the dead-letter index on. Default: false.
	Enabled bool `mapstructure:"enabled"`

	// Index is the index (or data stream, with a matching template) that
	// receives the dead letters. Default: "otel-dead-letters".
	Index string `mapstructure:"index"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// DeterministicIDsConfig controls content-derived document ids.
type DeterministicIDsConfig struct {
	// Enabled turns the feature on. Default: false.
	Enabled bool `mapstructure:"enabled"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// DynamicPipelineConfig controls taking the ingest pipeline from an attribute.
type DynamicPipelineConfig struct {
	// Enabled turns the feature on. Default: false.
	Enabled bool `mapstructure:"enabled"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// LogstashFormatConfig controls Logstash-style date-suffixed index names:
// <index><prefix_separator><date>.
type LogstashFormatConfig struct {
	// Enabled turns date-suffixed index names on. Default: false.
	Enabled bool `mapstructure:"enabled"`

	// PrefixSeparator goes between the index name and the date. Default: "-".
	PrefixSeparator string `mapstructure:"prefix_separator"`

	// DateFormat is a strftime pattern for the date suffix, formatted from the
	// document's timestamp. Default: "%Y.%m.%d".
	DateFormat string `mapstructure:"date_format"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// MappingConfig selects the document layout.
type MappingConfig struct {
	// Mode is the default mapping mode: one of otel, ecs, none, raw,
	// bodymap. A request may choose another allowed mode with the scope
	// attribute elastic.mapping.mode or the client metadata
	// X-Elastic-Mapping-Mode. Default: otel.
	Mode string `mapstructure:"mode"`

	// AllowedModes lists the modes a request may select through the scope
	// attribute or the client metadata. It must contain Mode. Default: all
	// modes.
	AllowedModes []string `mapstructure:"allowed_modes"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// RetryConfig controls retries of bulk requests and of single documents.
type RetryConfig struct {
	// Enabled turns retries on. Default: true.
	Enabled bool `mapstructure:"enabled"`

	// MaxRetries is the number of retries after the first attempt; -1 retries
	// without limit. Default: 30, which with the default intervals keeps
	// retrying through an outage of at least 10 minutes (about 16 minutes
	// on average) before documents are given up.
	MaxRetries int `mapstructure:"max_retries"`

	// InitialInterval is the wait before the first retry; later waits grow
	// exponentially. Default: 100ms.
	InitialInterval time.Duration `mapstructure:"initial_interval"`

	// MaxInterval caps the wait between retries. Default: 1m.
	MaxInterval time.Duration `mapstructure:"max_interval"`

	// RetryOnStatus lists the HTTP statuses of a whole bulk response that are
	// retried, and, while retry_on_document_status is not set, those of a
	// single document too. Default: 429, 502, 503, 504.
	RetryOnStatus []int `mapstructure:"retry_on_status"`

	// RetryOnDocumentStatus lists the HTTP statuses of a single document in a
	// bulk response that are retried. Not set (the default): the statuses of
	// retry_on_status and any 5xx.
	RetryOnDocumentStatus []int `mapstructure:"retry_on_document_status"`

	// AuthGracePeriod is how long a whole request answered 401 or 403 is
	// retried, counted from the first such answer after a success, while
	// credentials are being rotated; then the failure is permanent. 0 makes
	// it permanent at once. A single document's 401 or 403 is always
	// permanent. Default: 1m.
	AuthGracePeriod time.Duration `mapstructure:"auth_grace_period"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// FlowControlConfig bounds the exporter's memory in flight and its bulk
// requests in flight. Both limits are shared by the logs, metrics and traces
// exporters of one component.
type FlowControlConfig struct {
	// MaxInflightBytes caps the bytes held by pushes in progress: their
	// encoded documents, sent or waiting to be sent or retried, and their
	// request buffers. A push that does not fit waits (it takes room before
	// encoding, from an estimate, and corrects it after), which blocks its
	// sending-queue consumer and so pushes back on the pipeline; a push whose
	// context ends while it waits returns a non-permanent error and sends
	// nothing. A push larger than the cap runs alone. 0 turns the cap off.
	// Default: 67108864 (64 MiB).
	MaxInflightBytes int64 `mapstructure:"max_inflight_bytes"`

	// MaxConcurrentRequests caps the bulk requests in flight at once. 0 (the
	// default) means `sending_queue::num_consumers`, or 10 when the sending
	// queue is off.
	MaxConcurrentRequests int `mapstructure:"max_concurrent_requests"`

	// AdaptiveConcurrency lets the cap on bulk requests in flight shrink when
	// Elasticsearch answers 429 (for a request or a document), 502, 503 or
	// 504, times out, or slows down, and grow back to
	// max_concurrent_requests when it recovers. Default: on.
	AdaptiveConcurrency AdaptiveConcurrencyConfig `mapstructure:"adaptive_concurrency"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// AdaptiveConcurrencyConfig controls the adaptive limit on bulk requests in
// flight.
type AdaptiveConcurrencyConfig struct {
	// Enabled turns the adaptation on; off, the limit stays at
	// max_concurrent_requests. Default: true.
	Enabled bool `mapstructure:"enabled"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// defaultMaxConcurrentRequests is the cap on bulk requests in flight when
// neither flow_control::max_concurrent_requests nor a sending queue sets it.
const defaultMaxConcurrentRequests = 10

// maxConcurrentRequests returns the cap on bulk requests in flight.
func (c *Config) maxConcurrentRequests() int {
	if n := c.FlowControl.MaxConcurrentRequests; n > 0 {
		return n
	}
	if q := c.QueueBatchConfig.Get(); q != nil && q.NumConsumers > 0 {
		return q.NumConsumers
	}
	return defaultMaxConcurrentRequests
}

// DiscoveryConfig controls Elasticsearch node discovery. Do not enable it
// when Elasticsearch sits behind a proxy or load balancer.
type DiscoveryConfig struct {
	// OnStart discovers the cluster's nodes when the exporter starts.
	// Default: false.
	OnStart bool `mapstructure:"on_start"`

	// Interval rediscovers the nodes periodically; 0 (the default) disables
	// periodic discovery.
	Interval time.Duration `mapstructure:"interval"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// TelemetryConfig holds debugging switches for the exporter's logs. They may
// put document content, and so sensitive data, in the logs.
type TelemetryConfig struct {
	// LogRequestBody logs each bulk request body at debug level. Default: false.
	LogRequestBody bool `mapstructure:"log_request_body"`

	// LogResponseBody logs each bulk response body at debug level. Default: false.
	LogResponseBody bool `mapstructure:"log_response_body"`

	// LogFailedDocsInput logs the source of documents Elasticsearch rejected.
	// Default: false.
	LogFailedDocsInput bool `mapstructure:"log_failed_docs_input"`

	// LogFailedDocsInputRateLimit is the minimum time between two such log
	// lines; 0 logs every one. Default: 1s.
	LogFailedDocsInputRateLimit time.Duration `mapstructure:"log_failed_docs_input_rate_limit"`

	// prevent unkeyed literal initialization
	_ struct{}
}

var (
	_ component.Config    = (*Config)(nil)
	_ confmap.Validator   = (*Config)(nil)
	_ confmap.Unmarshaler = (*Config)(nil)
)

const (
	// defaultMaxBulkBytes bounds a bulk request when the sending queue does
	// not batch by bytes.
	defaultMaxBulkBytes = 5_000_000

	mappingModeOTel    = "otel"
	mappingModeECS     = "ecs"
	mappingModeNone    = "none"
	mappingModeRaw     = "raw"
	mappingModeBodyMap = "bodymap"
)

// mappingModes lists every mapping mode name, in documentation order.
var mappingModes = []string{mappingModeOTel, mappingModeECS, mappingModeNone, mappingModeRaw, mappingModeBodyMap}

// canonicalMappingMode lowercases a mode name and resolves the "no" alias
// that contrib accepts for "none".
func canonicalMappingMode(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "no" {
		return mappingModeNone
	}
	return name
}

func isMappingMode(name string) bool { return slices.Contains(mappingModes, name) }

// removedKeys are contrib keys that no longer exist. Loading a config that
// has one fails with the message, rather than the generic "invalid keys".
var removedKeys = []struct{ key, msg string }{
	{"index", "`index` was removed; use `logs_index` / `traces_index`"},
	{"batcher", "`batcher` was removed; use `sending_queue::batch`"},
	{"mapping::dedup", "`mapping::dedup` was removed with no replacement: keys are always deduplicated and the layout is fixed per `mapping::mode`"},
	{"mapping::dedot", "`mapping::dedot` was removed with no replacement: the layout is fixed per `mapping::mode`"},
	{"mapping::fields", "`mapping::fields` was removed with no replacement: the layout is fixed per `mapping::mode`"},
	{"mapping::file", "`mapping::file` was removed with no replacement: the layout is fixed per `mapping::mode`"},
}

// deprecatedKeys holds the values of deprecated keys; nil means not set.
type deprecatedKeys struct {
	NumWorkers *int                  `mapstructure:"num_workers"`
	Flush      *deprecatedFlush      `mapstructure:"flush"`
	Retry      *deprecatedRetry      `mapstructure:"retry"`
	LogsIdx    *deprecatedDynamicIdx `mapstructure:"logs_dynamic_index"`
	MetricsIdx *deprecatedDynamicIdx `mapstructure:"metrics_dynamic_index"`
	TracesIdx  *deprecatedDynamicIdx `mapstructure:"traces_dynamic_index"`
}

type deprecatedFlush struct {
	Bytes    *int64         `mapstructure:"bytes"`
	Interval *time.Duration `mapstructure:"interval"`
}

type deprecatedRetry struct {
	MaxRequests *int `mapstructure:"max_requests"`
}

type deprecatedDynamicIdx struct {
	Enabled bool `mapstructure:"enabled"`
}

// deprecatedKeyPaths are removed from the Conf before the remaining keys are
// decoded into Config, so that Config carries no dead fields.
var deprecatedKeyPaths = []string{
	"num_workers",
	"flush",
	"retry::max_requests",
	"logs_dynamic_index",
	"metrics_dynamic_index",
	"traces_dynamic_index",
}

// Unmarshal implements confmap.Unmarshaler. On top of the plain decoding it
//   - refuses removed keys with a message naming the replacement;
//   - maps deprecated keys onto their replacements and records a
//     deprecation message for each (logged by the factory, see
//     logDeprecations);
//   - canonicalizes mapping mode names (lowercase, "no" means "none").
//
// Unknown keys are refused by the decoding itself.
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	if conf == nil {
		return nil
	}
	var errs []error
	for _, r := range removedKeys {
		if conf.IsSet(r.key) {
			errs = append(errs, errors.New(r.msg))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	old, err := takeDeprecatedKeys(conf)
	if err != nil {
		return err
	}
	if err := conf.Unmarshal(c); err != nil {
		return err
	}

	c.Mapping.Mode = canonicalMappingMode(c.Mapping.Mode)
	for i, m := range c.Mapping.AllowedModes {
		c.Mapping.AllowedModes[i] = canonicalMappingMode(m)
	}

	c.deprecations = nil
	return c.applyDeprecated(conf, old)
}

// takeDeprecatedKeys decodes the deprecated keys present in conf and deletes
// them from conf.
func takeDeprecatedKeys(conf *confmap.Conf) (*deprecatedKeys, error) {
	present := map[string]any{}
	for _, path := range deprecatedKeyPaths {
		if !conf.IsSet(path) {
			continue
		}
		v := conf.Get(path)
		if parent, leaf, nested := strings.Cut(path, confmap.KeyDelimiter); nested {
			m, _ := present[parent].(map[string]any)
			if m == nil {
				m = map[string]any{}
				present[parent] = m
			}
			m[leaf] = v
		} else {
			present[path] = v
		}
		conf.Delete(path)
	}
	var old deprecatedKeys
	if len(present) == 0 {
		return &old, nil
	}
	if err := confmap.NewFromStringMap(present).Unmarshal(&old); err != nil {
		return nil, err
	}
	return &old, nil
}

// applyDeprecated maps the deprecated keys onto their replacements. conf is
// the section being unmarshaled, used to detect a replacement key that is
// set too.
func (c *Config) applyDeprecated(conf *confmap.Conf, old *deprecatedKeys) error {
	var errs []error
	conflict := func(oldKey, newKey string) bool {
		if conf.IsSet(newKey) {
			errs = append(errs, fmt.Errorf("both `%s` and its replacement `%s` are set; remove `%s`", oldKey, newKey, oldKey))
			return true
		}
		return false
	}

	if old.Retry != nil && old.Retry.MaxRequests != nil {
		n := *old.Retry.MaxRequests
		switch {
		case conflict("retry::max_requests", "retry::max_retries"):
		case n < 0:
			errs = append(errs, fmt.Errorf("`retry::max_requests` must be at least 1 (it counts the first attempt), got %d; use `retry::max_retries` instead", n))
		case n == 0:
			c.deprecate("`retry::max_requests` is deprecated; use `retry::max_retries` (0 meant the default: retry::max_retries left at %d)", c.Retry.MaxRetries)
		default:
			c.Retry.MaxRetries = n - 1
			c.deprecate("`retry::max_requests` is deprecated; use `retry::max_retries`, which does not count the first attempt (mapped to retry::max_retries: %d)", n-1)
		}
	}

	if old.NumWorkers != nil {
		n := *old.NumWorkers
		switch q := c.QueueBatchConfig.Get(); {
		case conflict("num_workers", "sending_queue::num_consumers"):
		case n < 0:
			errs = append(errs, fmt.Errorf("`num_workers` must be positive, got %d; use `sending_queue::num_consumers` instead", n))
		case n == 0:
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (0 meant the default: left unchanged)")
		case q == nil:
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (ignored: the sending queue is disabled)")
		default:
			q.NumConsumers = n
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (mapped to sending_queue::num_consumers: %d)", n)
		}
	}

	if old.Flush != nil {
		errs = append(errs, c.applyDeprecatedFlush(conf, old.Flush, conflict)...)
	}

	for _, d := range []struct {
		key string
		v   *deprecatedDynamicIdx
	}{
		{"logs_dynamic_index", old.LogsIdx},
		{"metrics_dynamic_index", old.MetricsIdx},
		{"traces_dynamic_index", old.TracesIdx},
	} {
		if d.v != nil {
			c.deprecate("`%s` is deprecated and has no effect: data stream routing is always on when the static index (`logs_index`, `metrics_index`, `traces_index`) is empty; remove it", d.key)
		}
	}
	return errors.Join(errs...)
}

func (c *Config) applyDeprecatedFlush(conf *confmap.Conf, f *deprecatedFlush, conflict func(oldKey, newKey string) bool) []error {
	var errs []error
	var batch *exporterhelper.BatchConfig
	if q := c.QueueBatchConfig.Get(); q != nil {
		batch = q.Batch.Get()
	}

	if f.Bytes != nil {
		n := *f.Bytes
		switch {
		case conflict("flush::bytes", "sending_queue::batch::max_size"):
		case n < 0:
			errs = append(errs, fmt.Errorf("`flush::bytes` must be positive, got %d; use `sending_queue::batch::max_size` instead", n))
		case n == 0:
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (0 meant the default: left unchanged)")
		case batch == nil:
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: sending_queue batching is disabled)")
		case batch.Sizer != exporterhelper.RequestSizerTypeBytes:
			errs = append(errs, errors.New("`flush::bytes` maps to `sending_queue::batch::max_size`, which needs `sending_queue::batch::sizer: bytes`; remove `flush::bytes`"))
		default:
			batch.MaxSize = n
			// Keep the default min_size from exceeding the new max_size; an
			// explicit min_size is left for Validate to judge.
			if batch.MinSize > n && !conf.IsSet("sending_queue::batch::min_size") {
				batch.MinSize = n
			}
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (mapped to sending_queue::batch::max_size: %d)", n)
		}
	}

	if f.Interval != nil {
		d := *f.Interval
		switch {
		case conflict("flush::interval", "sending_queue::batch::flush_timeout"):
		case d < 0:
			errs = append(errs, fmt.Errorf("`flush::interval` must be positive, got %s; use `sending_queue::batch::flush_timeout` instead", d))
		case d == 0:
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (0 meant the default: left unchanged)")
		case batch == nil:
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (ignored: sending_queue batching is disabled)")
		default:
			batch.FlushTimeout = d
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (mapped to sending_queue::batch::flush_timeout: %s)", d)
		}
	}
	return errs
}

func (c *Config) deprecate(format string, args ...any) {
	c.deprecations = append(c.deprecations, fmt.Sprintf(format, args...))
}

// logDeprecations logs one warning per deprecated key found by Unmarshal.
func (c *Config) logDeprecations(logger *zap.Logger) {
	for _, msg := range c.deprecations {
		logger.Warn(msg)
	}
}

// Validate implements confmap.Validator. Every message quotes the YAML key
// and says what would be valid; all problems are reported at once.
func (c *Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}

	if _, err := c.endpoints().URLs(); err != nil {
		errs = append(errs, err)
	}

	// Authentication shortcuts.
	a := c.Authentication
	switch {
	case a.User != "" && a.APIKey != "":
		add("`user` and `api_key` are both set; use one authentication method")
	case a.User != "" && a.Password == "":
		add("`user` is set but `password` is empty; set both, or use `api_key`")
	case a.User == "" && a.Password != "":
		add("`password` is set but `user` is empty; set both")
	}

	// Timeout and compression.
	if c.Timeout <= 0 {
		add("`timeout` must be positive (it is the deadline of each bulk request), got %s", c.Timeout)
	}
	switch c.Compression {
	case "", "none":
	case configcompression.TypeGzip:
		if l := c.CompressionParams.Level; l < gzip.DefaultCompression || l > gzip.BestCompression {
			add("`compression_params::level` must be between -1 and 9 for gzip (1 is fastest, 9 smallest, -1 the library default), got %d", l)
		}
	default:
		add("`compression` must be `gzip` or `none`, got %q", c.Compression)
	}

	// Mapping.
	modeOK := isMappingMode(c.Mapping.Mode)
	if !modeOK {
		add("`mapping::mode` must be one of %s, got %q", strings.Join(mappingModes, ", "), c.Mapping.Mode)
	}
	allowed := false
	for _, m := range c.Mapping.AllowedModes {
		if !isMappingMode(m) {
			add("`mapping::allowed_modes` entry %q is not a mapping mode; valid: %s", m, strings.Join(mappingModes, ", "))
		}
		if m == c.Mapping.Mode {
			allowed = true
		}
	}
	if modeOK && !allowed {
		add("`mapping::mode` %q is not in `mapping::allowed_modes` %v; add it there", c.Mapping.Mode, c.Mapping.AllowedModes)
	}

	// Retry.
	r := c.Retry
	if r.MaxRetries < -1 {
		add("`retry::max_retries` must be 0 or more, or -1 for no limit, got %d", r.MaxRetries)
	}
	if r.AuthGracePeriod < 0 {
		add("`retry::auth_grace_period` must be 0 or more, got %s", r.AuthGracePeriod)
	}
	if r.InitialInterval < 0 {
		add("`retry::initial_interval` must be 0 or more, got %s", r.InitialInterval)
	}
	if r.MaxInterval < 0 {
		add("`retry::max_interval` must be 0 or more, got %s", r.MaxInterval)
	}
	if r.InitialInterval > r.MaxInterval && r.MaxInterval >= 0 {
		add("`retry::initial_interval` (%s) must not exceed `retry::max_interval` (%s)", r.InitialInterval, r.MaxInterval)
	}
	for _, code := range r.RetryOnStatus {
		if code < 100 || code > 599 {
			add("`retry::retry_on_status` entry %d is not an HTTP status; use codes between 100 and 599", code)
		}
	}
	for _, code := range r.RetryOnDocumentStatus {
		if code < 100 || code > 599 {
			add("`retry::retry_on_document_status` entry %d is not an HTTP status; use codes between 100 and 599", code)
		}
	}

	// Sending queue batch.
	if q := c.QueueBatchConfig.Get(); q != nil {
		if b := q.Batch.Get(); b != nil {
			if b.MinSize < 0 {
				add("`sending_queue::batch::min_size` must be 0 or more, got %d", b.MinSize)
			}
			if b.MaxSize < 0 {
				add("`sending_queue::batch::max_size` must be 0 or more (0 means no limit), got %d", b.MaxSize)
			}
			if b.MaxSize > 0 && b.MinSize > b.MaxSize {
				add("`sending_queue::batch::min_size` (%d) must not exceed `sending_queue::batch::max_size` (%d)", b.MinSize, b.MaxSize)
			}
			if len(c.MetadataKeys) > 0 && len(b.Partition.MetadataKeys) > 0 {
				add("`metadata_keys` and `sending_queue::batch::partition::metadata_keys` are both set; set only `metadata_keys`")
			}
		}
	}
	seen := map[string]bool{}
	for _, k := range c.MetadataKeys {
		l := strings.ToLower(k)
		if seen[l] {
			add("`metadata_keys` lists %q twice (keys are case-insensitive)", k)
		}
		seen[l] = true
	}

	// Flow control.
	if n := c.FlowControl.MaxInflightBytes; n < 0 {
		add("`flow_control::max_inflight_bytes` must be 0 (no cap) or a positive number of bytes, e.g. 67108864 for 64 MiB, got %d", n)
	}
	if n := c.FlowControl.MaxConcurrentRequests; n < 0 {
		add("`flow_control::max_concurrent_requests` must be 0 (`sending_queue::num_consumers`) or positive, got %d", n)
	}

	// Other.
	if c.Discovery.Interval < 0 {
		add("`discover::interval` must be 0 (off) or positive, got %s", c.Discovery.Interval)
	}
	if c.LogstashFormat.Enabled && c.LogstashFormat.DateFormat == "" {
		add("`logstash_format::date_format` must not be empty when `logstash_format::enabled` is true; e.g. %q", "%Y.%m.%d")
	}
	if c.Telemetry.LogFailedDocsInputRateLimit < 0 {
		add("`telemetry::log_failed_docs_input_rate_limit` must be 0 or more, got %s", c.Telemetry.LogFailedDocsInputRateLimit)
	}

	return errors.Join(errs...)
}

// endpoints returns where Elasticsearch is: endpoint, endpoints or cloudid, else the
// ELASTICSEARCH_URL environment variable.
func (c *Config) endpoints() esclient.Endpoints {
	return esclient.Endpoints{Endpoint: c.Endpoint, Endpoints: c.Endpoints, CloudID: c.CloudID}
}

// maxBulkBytes is the largest uncompressed NDJSON body of one bulk request:
// each push is cut into bulk requests of at most this size. It follows
// sending_queue::batch::max_size when the batch is sized in bytes.
func (c *Config) maxBulkBytes() int {
	if q := c.QueueBatchConfig.Get(); q != nil {
		if b := q.Batch.Get(); b != nil && b.Sizer == exporterhelper.RequestSizerTypeBytes && b.MaxSize > 0 {
			return int(b.MaxSize)
		}
	}
	return defaultMaxBulkBytes
}

// checkModeSupports reports an error when mapping::mode cannot write documents of signal
// ("logs", "traces" or "metrics"); a pipeline of that signal then fails at creation instead of
// rejecting every record.
func (c *Config) checkModeSupports(signal string) error {
	mode, ok := serializer.ParseMode(c.Mapping.Mode)
	if !ok || mode.Supports(signal) {
		return nil // an unknown mode is reported by Validate
	}
	return fmt.Errorf("`mapping::mode` %s does not support %s; choose a mode that does for this pipeline", c.Mapping.Mode, signal)
}

// persistentQueue tells whether the sending queue keeps its batches in a storage extension.
func (c *Config) persistentQueue() bool {
	q := c.QueueBatchConfig.Get()
	return q != nil && q.StorageID != nil
}

// queueBatchConfig returns the sending queue settings to hand to
// exporterhelper: sending_queue with the batch partitioned by metadata_keys
// and always by x-elastic-mapping-mode. exporterhelper merges the requests
// of a batch into a context that keeps only the partition keys, so a key
// that is not one is lost before the push reads it. The Config itself is
// not modified.
func (c *Config) queueBatchConfig() configoptional.Optional[exporterhelper.QueueBatchConfig] {
	qc := c.QueueBatchConfig
	q := qc.Get()
	if q == nil {
		return qc
	}
	b := q.Batch.Get()
	if b == nil {
		return qc
	}
	keys := b.Partition.MetadataKeys
	if len(c.MetadataKeys) > 0 {
		keys = c.MetadataKeys
	}
	// qc is a copy, but the slices inside are shared: give the partition its own slice.
	keys = slices.Clone(keys)
	if !slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, mappingModeMetadataKey) }) {
		keys = append(keys, mappingModeMetadataKey)
	}
	b.Partition.MetadataKeys = keys
	return qc
}
