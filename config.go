// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
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

	// Mapping lists the mapping modes (document layouts) that records may ask for.
	Mapping MappingConfig `mapstructure:"mapping"`

	// Retry controls retries of failed bulk requests and failed documents.
	// Retries happen inside one push, so exporterhelper's retry_on_failure
	// is off for this exporter.
	Retry RetryConfig `mapstructure:"retry"`

	// QueueBatchConfig is the collector sending queue (`sending_queue`).
	// Default: enabled, 10 consumers, 10 requests, blocking when full, and
	// batching by bytes (min_size 0, max_size 5 MB, flush_timeout 10s).
	// Memory held is about queue_size requests plus num_consumers batches of
	// up to max_size bytes each.
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
	// default) lets the exporter choose: false on 8.18+, nothing on older
	// versions, where Elasticsearch then reports no error reasons.
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

	// prevent unkeyed literal initialization
	_ struct{}
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

// apiKeyMapToJSON turns an api_key that YAML read as a map (the create API key response pasted
// without quotes) back into the JSON text that AuthenticationConfig.APIKey takes.
func apiKeyMapToJSON(conf *confmap.Conf) error {
	m, ok := conf.Get("api_key").(map[string]any)
	if !ok {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return errors.New("`api_key` is a map that cannot be read as the create API key response; " + esclient.APIKeyForms)
	}
	conf.Delete("api_key")
	return conf.Merge(confmap.NewFromStringMap(map[string]any{"api_key": string(b)}))
}

// validate refuses an api_key that is none of the forms esclient.EncodeAPIKey reads.
func (a *AuthenticationConfig) validate() error {
	if _, err := esclient.EncodeAPIKey(string(a.APIKey)); err != nil {
		return fmt.Errorf("`api_key`: %w", err)
	}
	return nil
}

// credentialWarnings returns a warning for each pair of credentials set together, naming what
// is sent. Contrib accepts them all, silently, and sends requests the same way: the
// elastic-transport client sets the Authorization header from `api_key`, or else from
// `user`/`password`; confighttp then sets `headers`, which replaces that header; and an
// authenticator extension under `auth` handles the request last, with whatever Authorization
// header it has by then, which it may replace or keep.
func (c *Config) credentialWarnings() []string {
	a := c.Authentication
	basic := a.User != "" || a.Password != ""
	var warnings []string

	// set is what the client sets the Authorization header from, and header how it is sent.
	set, header := "", ""
	switch {
	case a.APIKey != "":
		set, header = "`api_key`", "`Authorization: APIKey …`"
	case a.User != "" && a.Password != "":
		set, header = "`user`/`password`", "`Authorization: Basic …`"
	}
	var headerKey string
	for name := range c.Headers.Iter {
		if strings.EqualFold(name, "Authorization") {
			headerKey = "`headers::" + name + "`"
		}
	}
	if headerKey != "" && set != "" {
		sent := "the " + headerKey + " value is sent"
		if c.Auth.Get() != nil {
			sent = "the " + headerKey + " value is what reaches the authenticator extension"
		}
		warnings = append(warnings, fmt.Sprintf("%s and %s are both set: %s, as in contrib "+
			"(confighttp sets the header on each request after the client set it from %s, and replaces it); remove %s",
			headerKey, set, sent, set, set))
		set, header = headerKey, "the Authorization header"
	}
	if auth := c.Auth.Get(); auth != nil && (set != "" || basic) {
		keys := set
		if basic && a.APIKey != "" {
			keys = "`api_key` and `user`/`password`"
		} else if set == "" {
			keys = "`user`/`password`" // one of the two alone: nothing is set from them
		}
		var sent string
		if header == "" {
			sent = "no Authorization header is set from `user`/`password` (one of the two is empty), so the extension's credentials are the only ones sent"
		} else {
			sent = fmt.Sprintf("each request reaches the extension with %s from %s. An extension that sets the Authorization header "+
				"(basicauth, oauth2client, bearertokenauth with its default `header`) replaces it, so only its credentials are sent; "+
				"one that sets another header sends it beside %s. Contrib sends requests the same way", header, set, header)
		}
		warnings = append(warnings, fmt.Sprintf("`auth::authenticator` (%s) and %s are both set: %s; remove %s",
			auth.AuthenticatorID, keys, sent, keys))
	}
	if basic && a.APIKey != "" {
		warnings = append(warnings, "`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`")
	}
	if a.APIKey == "" && c.Auth.Get() == nil {
		// Basic authentication needs both: contrib loads one alone and sends no credentials.
		switch {
		case a.User != "" && a.Password == "":
			warnings = append(warnings, "`user` is set but `password` is empty: no credentials are sent, as in contrib; set `password`, or use `api_key`")
		case a.User == "" && a.Password != "":
			warnings = append(warnings, "`password` is set but `user` is empty: no credentials are sent, as in contrib; set `user`, or use `api_key`")
		}
	}
	return warnings
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

// validate checks the date format even when logstash_format is off, as routing does, so that a
// format that cannot make index names is refused before it is switched on.
func (l LogstashFormatConfig) validate() error {
	if l.DateFormat == "" {
		if l.Enabled {
			return fmt.Errorf("`logstash_format::date_format` must not be empty when `logstash_format::enabled` is true; e.g. %q", routing.DefaultDateFormat)
		}
		return nil
	}
	return routing.CheckDateFormat(l.DateFormat)
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

	// prevent unkeyed literal initialization
	_ struct{}
}

func (m MappingConfig) validate() error {
	var errs []error
	if !isMappingMode(m.Mode) {
		errs = append(errs, fmt.Errorf("`mapping::mode` must be one of %s, got %q (it is ignored, as in contrib: remove it)", strings.Join(mappingModes, ", "), m.Mode))
	}
	if len(m.AllowedModes) == 0 {
		errs = append(errs, fmt.Errorf("`mapping::allowed_modes` must list at least one mapping mode (%s); leave it out to allow them all", strings.Join(mappingModes, ", ")))
	}
	for _, name := range m.AllowedModes {
		if !isMappingMode(name) {
			errs = append(errs, fmt.Errorf("`mapping::allowed_modes` entry %q is not a mapping mode; valid: %s", name, strings.Join(mappingModes, ", ")))
		}
	}
	return errors.Join(errs...)
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

func (f FlowControlConfig) validate() error {
	var errs []error
	if n := f.MaxInflightBytes; n < 0 {
		errs = append(errs, fmt.Errorf("`flow_control::max_inflight_bytes` must be 0 (no cap) or a positive number of bytes, e.g. 67108864 for 64 MiB, got %d", n))
	}
	if n := f.MaxConcurrentRequests; n < 0 {
		errs = append(errs, fmt.Errorf("`flow_control::max_concurrent_requests` must be 0 (`sending_queue::num_consumers`) or positive, got %d", n))
	}
	return errors.Join(errs...)
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

func (d DiscoveryConfig) validate() error {
	if d.Interval < 0 {
		return fmt.Errorf("`discover::interval` must be 0 (off) or positive, got %s", d.Interval)
	}
	return nil
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

func (t TelemetryConfig) validate() error {
	if t.LogFailedDocsInputRateLimit < 0 {
		return fmt.Errorf("`telemetry::log_failed_docs_input_rate_limit` must be 0 or more, got %s", t.LogFailedDocsInputRateLimit)
	}
	return nil
}

var (
	_ component.Config    = (*Config)(nil)
	_ confmap.Validator   = (*Config)(nil)
	_ confmap.Unmarshaler = (*Config)(nil)
)

// Validate implements confmap.Validator. Every message quotes the YAML key
// and says what would be valid; all problems are reported at once.
//
// Each sub-config checks itself with an unexported validate method: confmap.Validate calls
// every nested Validate method on its own and prefixes its errors with the key path, which
// would repeat the key that each message already quotes in full. Config.Validate composes them
// in the order of the YAML reference.
func (c *Config) Validate() error {
	_, endpointErr := c.endpoints().URLs()
	return errors.Join(
		endpointErr,
		c.Authentication.validate(),
		validateHTTPClient(&c.ClientConfig),
		c.validateCATrustedFingerprint(),
		c.Mapping.validate(),
		c.Retry.Check(),
		validateSendingQueue(c.QueueBatchConfig, c.MetadataKeys),
		c.FlowControl.validate(),
		c.Discovery.validate(),
		c.LogstashFormat.validate(),
		c.validateFilterPath(),
		c.Telemetry.validate(),
	)
}

// validateFilterPath checks bulk_response_filter_path.
func (c *Config) validateFilterPath() error {
	_, err := bulk.FilterPath(c.BulkResponseFilterPath)
	return err
}

// validateHTTPClient checks the confighttp settings that the exporter gives a meaning of its
// own: timeout and compression.
func validateHTTPClient(hc *confighttp.ClientConfig) error {
	var errs []error
	if hc.Timeout < 0 {
		errs = append(errs, fmt.Errorf("`timeout` must be 0 or more (it is the deadline of each bulk request; 0: none), got %s", hc.Timeout))
	}
	switch hc.Compression {
	case "", "none":
	case configcompression.TypeGzip:
		if l := hc.CompressionParams.Level; l < gzip.DefaultCompression || l > gzip.BestCompression {
			errs = append(errs, fmt.Errorf("`compression_params::level` must be between -1 and 9 for gzip (1 is fastest, 9 smallest, -1 the library default), got %d", l))
		}
	default:
		errs = append(errs, fmt.Errorf("`compression` must be `gzip` or `none`, got %q", hc.Compression))
	}
	return errors.Join(errs...)
}

// caTrustedFingerprintKey is the key of Config.CATrustedFingerprint.
const caTrustedFingerprintKey = "tls::ca_trusted_fingerprint"

// takeCATrustedFingerprint sets CATrustedFingerprint from conf's tls::ca_trusted_fingerprint,
// which it deletes from conf, so that the tls section decodes into configtls's settings.
func (c *Config) takeCATrustedFingerprint(conf *confmap.Conf) error {
	if !conf.IsSet(caTrustedFingerprintKey) {
		return nil
	}
	v := conf.Get(caTrustedFingerprintKey)
	conf.Delete(caTrustedFingerprintKey)
	switch s := v.(type) {
	case string:
		c.CATrustedFingerprint = s
		return nil
	case nil:
		c.CATrustedFingerprint = ""
		return nil
	}
	return fmt.Errorf("`tls::ca_trusted_fingerprint` must be a string (quote it), %s; got %v", esclient.CAFingerprintForm, v)
}

// validateCATrustedFingerprint refuses a tls::ca_trusted_fingerprint that is not a SHA-256
// fingerprint, or that is set beside tls::insecure_skip_verify: true, which turns off the
// verification that it is for.
func (c *Config) validateCATrustedFingerprint() error {
	if c.CATrustedFingerprint == "" {
		return nil
	}
	if _, err := esclient.ParseCAFingerprint(c.CATrustedFingerprint); err != nil {
		return fmt.Errorf("`tls::ca_trusted_fingerprint` %w", err)
	}
	if c.TLS.InsecureSkipVerify {
		return errors.New("`tls::ca_trusted_fingerprint` is set beside `tls::insecure_skip_verify: true`, which turns off the " +
			"verification of the server's certificate that the fingerprint is for; remove one of them")
	}
	return nil
}

// endpoints returns where Elasticsearch is: endpoint, endpoints or cloudid, else the
// ELASTICSEARCH_URL environment variable.
func (c *Config) endpoints() esclient.Endpoints {
	return esclient.Endpoints{Endpoint: c.Endpoint, Endpoints: c.Endpoints, CloudID: c.CloudID}
}
