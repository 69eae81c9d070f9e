// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
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
	//     gzip, snappy and none are accepted because the bulk body is compressed
	//     by the bulk session itself, never by the HTTP client (snappy: once the
	//     start-up check has found that the node decodes it, see internal/bulk's
	//     encoding.go; gzip at level 1 before and instead).
	confighttp.ClientConfig `mapstructure:",squash"`

	// CATrustedFingerprint is `tls::ca_trusted_fingerprint`, a key of this exporter's own in
	// the confighttp `tls` section (contrib has none; Beats and Elastic Agent have
	// `ssl.ca_trusted_fingerprint`): the SHA-256 fingerprint of a CA certificate, in one of the
	// forms esclient.ParseCAFingerprint reads. A server chain that holds that CA certificate is
	// trusted, besides the roots of `tls::ca_file` (or the system's); the host name, the
	// validity and the other `tls` settings apply as without it. Unmarshal takes the key out
	// of the `tls` section, whose decoding into configtls would refuse it. Default: empty.
	CATrustedFingerprint string `mapstructure:"-"`

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

	// LogsIndex is a static index or data stream name for every log record and
	// span event. Empty (the default) means routing by the attributes of the
	// record, its scope and its resource: elasticsearch.index, else the data
	// stream of data_stream.* (docs/documents.md, Routing).
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

	// TracesDynamicID, when enabled, uses the span or span event attribute
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
	// `elasticsearch.ingest_pipeline`, or else `elasticsearch.document_pipeline`,
	// as the document's ingest pipeline. Default: off.
	LogsDynamicPipeline DynamicPipelineConfig `mapstructure:"logs_dynamic_pipeline"`

	// Pipeline is the ingest pipeline applied to every bulk request.
	// Empty (the default) means the index's default pipeline. An ingest
	// pipeline costs CPU on the Elasticsearch side for every document.
	Pipeline string `mapstructure:"pipeline"`

	// LogstashFormat appends a date suffix to the index name.
	LogstashFormat LogstashFormatConfig `mapstructure:"logstash_format"`

	// DynamicRouting confines the targets that records choose through their attributes
	// (elasticsearch.index, data_stream.*). A key of this exporter's own: contrib has none.
	DynamicRouting DynamicRoutingConfig `mapstructure:"dynamic_routing"`

	// Mapping lists the mapping modes (document layouts) that records may ask for.
	Mapping MappingConfig `mapstructure:"mapping"`

	// Retry controls retries of failed bulk requests and failed documents.
	// Retries happen inside one push, so exporterhelper's retry_on_failure
	// is off for this exporter.
	Retry RetryConfig `mapstructure:"retry"`

	// QueueBatchConfig is the collector sending queue (`sending_queue`).
	// Default: enabled, 10 consumers, 20 MiB of OTLP (sizer bytes), blocking
	// when full, and batching by bytes (min_size 0, max_size 5 MB,
	// flush_timeout 10s). A request's room is freed only once its push ends,
	// so queue_size bounds the OTLP held by the queue and the pushes together
	// (docs/delivery.md, the memory model).
	QueueBatchConfig configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`

	// FlowControl bounds what the exporter holds and sends at once: the bytes
	// in flight, shared by the logs, metrics, traces and profiles exporters of this
	// component, and the bulk requests in flight, adapted to how
	// Elasticsearch copes.
	FlowControl FlowControlConfig `mapstructure:"flow_control"`

	// Discovery controls Elasticsearch node discovery (sniffing). Default: off.
	Discovery DiscoveryConfig `mapstructure:"discover"`

	// IncludeSourceOnError sets the bulk request's include_source_on_error
	// parameter (Elasticsearch 8.18+). true returns error reasons with part
	// of the failing document, which may put document content in the
	// exporter's logs; false returns the reasons without it. nil (the
	// default) lets the exporter choose: false from the first request, and
	// nothing once the version check finds a server older than 8.18. A server
	// that refuses the parameter has it dropped, set or not. Without it,
	// docappender leaves out the error reasons, and only the error types are
	// reported.
	IncludeSourceOnError *bool `mapstructure:"include_source_on_error"`

	// SuppressConflictErrors, when true, leaves the documents that Elasticsearch answers 409
	// version_conflict_engine_exception (an _id that is taken) out of the exporter's log line
	// about failed documents. They are still counted, as duplicates. Default: false.
	SuppressConflictErrors bool `mapstructure:"suppress_conflict_errors"`

	// BulkResponseFilterPath is the filter_path of bulk requests, which says what the bulk
	// response holds. The exporter always asks for what it needs to account for each document
	// (bulk.AccountingFilterPath) and adds the entries of this value to it; an exclusion that
	// would remove one of those fields is refused. Default: contrib's default, which is what the
	// exporter needs.
	BulkResponseFilterPath string `mapstructure:"bulk_response_filter_path"`

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

	// set records the keys, found by Unmarshal, whose meaning depends on whether the
	// configuration sets them, rather than on their value (see maxConcurrentRequests).
	set keysSet

	// prevent unkeyed literal initialization
	_ struct{}
}

// keysSet tells which keys a configuration sets, where that changes what another key means.
type keysSet struct {
	// maxConcurrentRequests: flow_control::max_concurrent_requests.
	maxConcurrentRequests bool
	// numConsumers: sending_queue::num_consumers, or its deprecated num_workers.
	numConsumers bool
}

// AuthenticationConfig holds the basic and API key authentication shortcuts.
type AuthenticationConfig struct {
	// User is the HTTP basic authentication user name. Needs password: one
	// without the other sends no credentials, with a warning (as contrib does,
	// silently). When api_key is set too, api_key is used, with a warning (as
	// contrib does, silently). Default: empty.
	User string `mapstructure:"user"`

	// Password is the HTTP basic authentication password. Default: empty.
	Password configopaque.String `mapstructure:"password"`

	// APIKey is an Elasticsearch API key in one of the forms users paste: the `encoded` value
	// of the create API key response (base64 of "id:api_key"), "id:api_key", or that whole JSON
	// response (esclient.EncodeAPIKey reads them). Sent as `Authorization: APIKey <encoded>`.
	// Anything else is refused by Validate. Default: empty.
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
	// document's timestamp in UTC (contrib formats the wall clock). The verbs are
	// those of contrib's formatter whose output can be in an index name; names
	// are lower-cased. Default: "%Y.%m.%d".
	DateFormat string `mapstructure:"date_format"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// DynamicRoutingConfig confines where the attributes of a record may route it, so that a sender
// cannot widen what the configuration allows. A record whose target is refused is rejected
// alone, counted with error.type target_not_allowed and logged; nothing is sent. A static
// index (logs_index, metrics_index, traces_index) is the configuration's own choice and is
// never confined.
type DynamicRoutingConfig struct {
	// AllowDotTargets lets the attribute elasticsearch.index name an index that starts with
	// "." (system and hidden indices, such as .kibana_1). Default: false, such records are
	// rejected.
	AllowDotTargets bool `mapstructure:"allow_dot_targets"`

	// AllowedTargets, when not empty, lists patterns ("*" matches any run of characters) that
	// the name of every record routed without a static index must match, whether
	// elasticsearch.index, the data_stream.* attributes or the defaults chose it; with
	// logstash_format, the name before its date. Each pattern must be lower case and hold only
	// characters an index name may hold, besides "*". Default: empty, every name is allowed.
	AllowedTargets []string `mapstructure:"allowed_targets"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// MappingConfig holds the mapping mode settings. The mode of each record is chosen by the
// scope attribute elastic.mapping.mode, else the client metadata X-Elastic-Mapping-Mode, else
// it is otel (or, when AllowedModes does not list otel, the first mode it lists), as in contrib.
type MappingConfig struct {
	// Mode is ignored, as in contrib since v0.145, with a warning when it is not otel. It
	// still loads, so that a contrib configuration that sets it loads unchanged, and must name
	// a mode: otel, ecs, none, raw or bodymap (case-insensitive; "no" means none).
	// Default: otel.
	Mode string `mapstructure:"mode"`

	// AllowedModes lists the modes a request may select through the scope attribute or the
	// client metadata; it must list at least one. Default: all modes.
	AllowedModes []string `mapstructure:"allowed_modes"`

	// ECSSpanEventsToLogs, in the ecs mode, writes each span event to the data streams of Elastic
	// APM, as contrib does with this key: an event named "exception" with the attribute
	// exception.type or exception.message to logs-apm.error-<namespace>, every other event to
	// logs-apm.app.<service.name>-<namespace>. Off, span events in the ecs mode are ECS log
	// documents routed like log records (contrib drops them). No effect in other modes.
	// Default: false.
	ECSSpanEventsToLogs bool `mapstructure:"ecs_span_events_to_logs"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// RetryConfig controls retries of bulk requests and of single documents. The
// type lives in the bulk package, which applies it; see bulk.RetryConfig for
// the keys.
type RetryConfig = bulk.RetryConfig

// FlowControlConfig bounds the exporter's memory in flight and its bulk
// requests in flight. Both limits are shared by the logs, metrics, traces and profiles
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

	// MaxConcurrentRequests caps the bulk requests in flight at once. 0 means
	// `sending_queue::num_consumers`, or 10 when the sending queue is off.
	// Default: 10.
	MaxConcurrentRequests int `mapstructure:"max_concurrent_requests"`

	// AdaptiveConcurrency moves the cap on bulk requests in flight between 1
	// and max_concurrent_requests, from 2: it grows while the requests are
	// large and Elasticsearch keeps up, and shrinks when Elasticsearch answers
	// 429 (for a request or a document), 502, 503 or 504, times out or slows
	// down, or when small requests queue, so that pushes arriving together
	// share fewer, larger requests. Default: on.
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

// endpoints returns where Elasticsearch is: endpoint, endpoints or cloudid, else the
// ELASTICSEARCH_URL environment variable.
func (c *Config) endpoints() esclient.Endpoints {
	return esclient.Endpoints{Endpoint: c.Endpoint, Endpoints: c.Endpoints, CloudID: c.CloudID}
}
