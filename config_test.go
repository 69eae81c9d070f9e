// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"encoding/base64"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	// Keep an ambient ELASTICSEARCH_URL out of the cases that do not set it.
	t.Setenv(esclient.EnvURL, "")

	tests := []struct {
		id       string
		env      string
		expected *Config
		urls     []string
	}{
		{
			id: "default",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "full",
			expected: defaultWith(func(c *Config) {
				c.Endpoints = []string{"http://es-1:9200", "https://es-2:9200"}
				c.TLS.InsecureSkipVerify = true
				c.TLS.CAFile = "/etc/ssl/es-ca.pem"
				c.Headers = configopaque.MapList{{Name: "X-Tenant", Value: "acme"}}
				c.Timeout = 2 * time.Minute
				c.CompressionParams.Level = 5
				c.ProxyURL = "http://proxy.internal:3128"
				c.ReadBufferSize = 4096
				c.WriteBufferSize = 8192
				c.MaxConnsPerHost = 20
				c.Authentication.User = "elastic"
				c.Authentication.Password = "changeme"
				c.LogsIndex = "logs-app-default"
				c.MetricsIndex = "metrics-app-default"
				c.TracesIndex = "traces-app-default"
				c.LogsDynamicID.Enabled = true
				c.DeterministicIDs.Enabled = true
				c.TracesDynamicID.Enabled = true
				c.LogsDynamicPipeline.Enabled = true
				c.Pipeline = "my-pipeline"
				c.LogstashFormat = LogstashFormatConfig{Enabled: true, PrefixSeparator: "_", DateFormat: "%Y-%m"}
				// Mode names are canonicalized: lowercase, and "no" means "none".
				c.Mapping = MappingConfig{Mode: "otel", AllowedModes: []string{"otel", "ecs", "none"}, ECSSpanEventsToLogs: true}
				c.Retry = RetryConfig{
					Enabled:               false,
					MaxRetries:            5,
					InitialInterval:       time.Second,
					MaxInterval:           30 * time.Second,
					RetryOnStatus:         []int{429, 503},
					RetryOnDocumentStatus: []int{429, 500},
					AuthGracePeriod:       2 * time.Minute,
				}
				q := queueOf(c)
				q.NumConsumers = 4
				// queue_size without a sizer counts requests, as in contrib.
				q.Sizer = exporterhelper.RequestSizerTypeRequests
				q.QueueSize = 50
				q.BlockOnOverflow = false
				b := batchOf(c)
				b.FlushTimeout = 5 * time.Second
				b.MinSize = 2_000_000
				b.MaxSize = 8_000_000
				c.Discovery = DiscoveryConfig{OnStart: true, Interval: 5 * time.Minute}
				c.IncludeSourceOnError = new(false)
				c.SuppressConflictErrors = true
				c.BulkResponseFilterPath = "items.*._index,items.*.status,items.*.failure_store,items.*.error.type,items.*.error.reason,took"
				c.Telemetry = TelemetryConfig{
					LogRequestBody:              true,
					LogResponseBody:             true,
					LogFailedDocsInput:          true,
					LogFailedDocsInputRateLimit: 10 * time.Second,
				}
				c.MetadataKeys = []string{"X-Tenant", "X-Source"}
			}),
			urls: []string{"http://es-1:9200", "https://es-2:9200"},
		},
		{
			id: "cloudid",
			expected: defaultWith(func(c *Config) {
				c.CloudID = "my-deployment:dXMtY2VudHJhbDEuZ2NwLmNsb3VkLmVzLmlvOjQ0MyRhYmMxMjMkZGVmNDU2"
				c.Authentication.APIKey = "Zm9vOmJhcg=="
			}),
			urls: []string{"https://abc123.us-central1.gcp.cloud.es.io:443"},
		},
		{
			// Unquoted, YAML reads the JSON response as a map; it is taken back as its JSON text.
			id: "api_key_json",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.Authentication.APIKey = `{"api_key":"ui2lp2axTNmsyakw9tvNnw","encoded":"VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==",` +
					`"id":"VuaCfGcBCdbkQm-e5aOx","name":"my-api-key"}`
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "ca_trusted_fingerprint",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.CATrustedFingerprint = "72:34:8B:FC:92:8A:EF:4E:01:E3:BB:2F:21:9C:FB:4A:82:67:CF:DB:09:BB:65:84:E8:85:2C:7B:DC:2F:8A:5D"
				c.TLS.ServerName = "es.internal"
				c.TLS.MinVersion = "1.3"
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "api_key_id_and_key",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.Authentication.APIKey = "VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw"
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "authextension",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.Auth = configoptional.Some(configauth.Config{AuthenticatorID: component.MustNewID("basicauth")})
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "deprecated",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				queueOf(c).NumConsumers = 8
				b := batchOf(c)
				b.MaxSize = 500_000
				b.FlushTimeout = 3 * time.Second
				c.Retry.MaxRetries = 4
				c.deprecations = []string{
					"`retry::max_requests` is deprecated; use `retry::max_retries`, which does not count the first attempt (mapped to retry::max_retries: 4)",
					"`num_workers` is deprecated; use `sending_queue::num_consumers` (mapped to sending_queue::num_consumers: 8)",
					"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (mapped to sending_queue::batch::max_size: 500000)",
					"`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (mapped to sending_queue::batch::flush_timeout: 3s)",
					"`logs_dynamic_index` is deprecated and has no effect: data stream routing is always on when the static index (`logs_index`, `metrics_index`, `traces_index`) is empty; remove it",
					"`metrics_dynamic_index` is deprecated and has no effect: data stream routing is always on when the static index (`logs_index`, `metrics_index`, `traces_index`) is empty; remove it",
					"`traces_dynamic_index` is deprecated and has no effect: data stream routing is always on when the static index (`logs_index`, `metrics_index`, `traces_index`) is empty; remove it",
				}
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "deprecated_zero",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.deprecations = []string{
					"`retry::max_requests` is deprecated; use `retry::max_retries` (0 meant the default: retry::max_retries left at 30)",
					"`num_workers` is deprecated; use `sending_queue::num_consumers` (0 meant the default: left unchanged)",
					"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (0 meant the default: left unchanged)",
					"`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (0 meant the default: left unchanged)",
				}
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "deprecated_queue_disabled",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
				c.deprecations = []string{
					"`num_workers` is deprecated; use `sending_queue::num_consumers` (ignored: the sending queue is disabled)",
					"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: sending_queue batching is disabled)",
				}
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id:       "env",
			env:      "http://es-1:9200, https://es-2:9200",
			expected: defaultWith(),
			urls:     []string{"http://es-1:9200", "https://es-2:9200"},
		},
		{
			id: "queue_disabled",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "batch_disabled",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				queueOf(c).Batch = configoptional.None[exporterhelper.BatchConfig]()
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			id: "flow_control",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				c.FlowControl.MaxInflightBytes = 16 << 20
				c.FlowControl.MaxConcurrentRequests = 4
				c.FlowControl.AdaptiveConcurrency.Enabled = false
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
		{
			// queue_size with its sizer: the sizer is the one written.
			id: "queue_bytes",
			expected: defaultWith(func(c *Config) {
				c.Endpoint = "https://elastic.example.com:9200"
				queueOf(c).QueueSize = 64 << 20
			}),
			urls: []string{"https://elastic.example.com:9200"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Setenv(esclient.EnvURL, tt.env)

			cfg, err := loadConfig(t, "config.yaml", tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.expected, cfg.withoutKeysSet())
			require.NoError(t, confmap.Validate(cfg))

			urls, err := cfg.endpoints().URLs()
			require.NoError(t, err)
			got := make([]string, len(urls))
			for i, u := range urls {
				got[i] = u.String()
			}
			assert.Equal(t, tt.urls, got)
		})
	}
}

func TestLoadInvalidConfig(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")

	tests := []struct {
		id  string
		msg string
	}{
		{"no_endpoint", "no Elasticsearch endpoint: set `endpoint`, `endpoints` or `cloudid`, or the ELASTICSEARCH_URL environment variable"},
		{"endpoint_and_endpoints", "`endpoint` and `endpoints` are set together; set only one of `endpoint`, `endpoints` and `cloudid`"},
		{"endpoint_and_cloudid", "`endpoint` and `cloudid` are set together; set only one of"},
		{"bad_scheme", "`endpoint`: URL \"ftp://es-1:9200\" must start with http:// or https://"},
		{"no_scheme", "`endpoint`: "},
		{"unparsable_url", "`endpoint`: invalid URL \"http://[::1\""},
		{"no_host", "`endpoint`: URL \"http://\" has no host"},
		{"empty_endpoints_entry", "`endpoints`[1]: empty URL"},
		{"cloudid_not_base64", "`cloudid`: invalid Cloud ID: the part after the last ':' is not base64"},
		{"api_key_line_break", "`api_key` holds a control character (a line break inside the key?), which no request header can carry; " +
			"expected the `encoded` value of the create API key response (base64 of `id:api_key`), `id:api_key`, or that whole JSON response"},
		{"cloudid_no_uuid", "`cloudid`: invalid Cloud ID: decoded value \"bar.cloud.es.io\" is not host$es_uuid$kibana_uuid"},

		{"ca_trusted_fingerprint_short", "`tls::ca_trusted_fingerprint` must be the SHA-256 fingerprint of a CA certificate: " +
			"64 hexadecimal digits, in either case, bare (as Elasticsearch prints its HTTP CA's at its first start) or with a colon " +
			"between each pair (as `openssl x509 -noout -fingerprint -sha256` prints it); got \"72:34:8B:FC\" (8 digits)"},
		{"ca_trusted_fingerprint_sha1", "`tls::ca_trusted_fingerprint` must be the SHA-256 fingerprint of a CA certificate: 64 hexadecimal digits"},
		{"ca_trusted_fingerprint_not_a_string", "`tls::ca_trusted_fingerprint` must be a string (quote it), the SHA-256 fingerprint of a CA certificate"},
		{"ca_trusted_fingerprint_insecure_skip_verify", "`tls::ca_trusted_fingerprint` is set beside `tls::insecure_skip_verify: true`"},

		{"negative_timeout", "`timeout` must be 0 or more"},
		{"compression_zstd", "`compression` must be `gzip`, `snappy` or `none`, got \"zstd\": Elasticsearch decodes gzip, deflate and snappy request bodies, not zstd, br or lz4"},
		{"compression_lz4", "`compression` must be `gzip`, `snappy` or `none`, got \"lz4\""},
		{"compression_zlib", "`compression` must be `gzip`, `snappy` or `none`, got \"zlib\""},
		{"compression_deflate", "`compression` must be `gzip`, `snappy` or `none`, got \"deflate\""},
		{"compression_snappy_framed", "`compression` must be `gzip`, `snappy` or `none`, got \"x-snappy-framed\""},
		{"compression_br", "`compression` must be `gzip`, `snappy` or `none`, got \"br\": Elasticsearch decodes"},
		{"compression_unknown", "`compression` must be `gzip`, `snappy` or `none`, got \"brotli\""},
		{"snappy_with_level", "`compression_params::level` does not apply to snappy, which has no levels; leave it out, got 1"},
		{"gzip_level_out_of_range", "`compression_params::level` must be between -1 and 9 for gzip"},

		{"unknown_mode", "`mapping::mode` must be one of otel, ecs, none, raw, bodymap, got \"jaeger\""},
		{"unknown_allowed_mode", "`mapping::allowed_modes` entry \"jaeger\" is not a mapping mode"},
		{"no_allowed_modes", "`mapping::allowed_modes` must list at least one mapping mode (otel, ecs, none, raw, bodymap); leave it out to allow them all"},

		{"negative_max_retries", "`retry::max_retries` must be 0 or more, or -1 for no limit, got -2"},
		{"bad_document_retry_status", "`retry::retry_on_document_status` entry 42 is not an HTTP status"},
		{"negative_auth_grace_period", "`retry::auth_grace_period` must be 0 or more"},
		{"initial_interval_above_max", "`retry::initial_interval` (2m0s) must not exceed `retry::max_interval` (1m0s)"},
		{"negative_initial_interval", "`retry::initial_interval` must be 0 or more"},
		{"bad_retry_status", "`retry::retry_on_status` entry 600 is not an HTTP status"},

		{"negative_min_size", "`sending_queue::batch::min_size` must be 0 or more, got -1"},
		{"negative_max_size", "`sending_queue::batch::max_size` must be 0 or more"},
		{"min_size_above_max_size", "`sending_queue::batch::min_size` (6000000) must not exceed `sending_queue::batch::max_size` (5000000)"},
		{"duplicate_metadata_keys", "`metadata_keys` lists \"x-tenant\" twice"},
		{"metadata_keys_twice", "`metadata_keys` and `sending_queue::batch::partition::metadata_keys` are both set"},

		{"negative_discover_interval", "`discover::interval` must be 0 (off) or positive"},
		{"empty_logstash_date_format", "`logstash_format::date_format` must not be empty"},
		{"logstash_date_format_colons", `invalid logstash_format date_format "%Y.%m.%d-%T": %T writes the time as 15:04:05, and an index name cannot contain ":"; use %H.%M.%S`},
		{"logstash_date_format_unknown_verb", `invalid logstash_format date_format "%Y.%G": unsupported verb "%G"`},
		{"allowed_targets_upper_case", `invalid dynamic_routing::allowed_targets: pattern "Logs-*" must be lower case (only "*" is special)`},
		{"filter_path_removes_accounting", "`bulk_response_filter_path` entry \"-items.*.error\" would remove items.*.error.type from bulk responses"},
		{"negative_log_rate_limit", "`telemetry::log_failed_docs_input_rate_limit` must be 0 or more"},
		{"negative_max_inflight_bytes", "`flow_control::max_inflight_bytes` must be 0 (no cap) or a positive number of bytes, e.g. 67108864 for 64 MiB, got -1"},
		{"negative_max_concurrent_requests", "`flow_control::max_concurrent_requests` must be 0 (`sending_queue::num_consumers`) or positive, got -2"},

		{"removed_index", "`index` was removed; use `logs_index` / `traces_index`"},
		{"removed_batcher", "`batcher` was removed; use `sending_queue::batch`"},
		{"removed_dedup", "`mapping::dedup` was removed with no replacement"},
		{"removed_dedot", "`mapping::dedot` was removed with no replacement"},
		{"removed_fields", "`mapping::fields` was removed with no replacement"},
		{"removed_file", "`mapping::file` was removed with no replacement"},

		{"max_requests_and_max_retries", "both `retry::max_requests` and its replacement `retry::max_retries` are set; remove `retry::max_requests` (contrib refuses them together too)"},
		{"max_requests_negative", "`retry::max_requests` must be 0 (the default: `retry::max_retries` unchanged) or more (it counts the first attempt), got -1"},
		{"flush_unknown_key", "invalid keys: max_bytes"},

		{"unknown_key", "invalid keys: endpoint_url"},
		{"unknown_nested_key", "invalid keys: max_tries"},
	}

	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "invalid_configs.yaml"))
	require.NoError(t, err)
	// Every case in the file has a row in the table, and the reverse.
	var inFile, inTable []string
	for k := range cm.ToStringMap() {
		inFile = append(inFile, k)
	}
	for _, tt := range tests {
		inTable = append(inTable, component.NewIDWithName(metadata.Type, tt.id).String())
	}
	sort.Strings(inFile)
	sort.Strings(inTable)
	require.Equal(t, inFile, inTable)

	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			cfg, err := loadConfig(t, "invalid_configs.yaml", tt.id)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestValidateEnvEndpoint(t *testing.T) {
	tests := []struct {
		name string
		env  string
		msg  string
	}{
		{"bad_scheme", "es-1:9200", "ELASTICSEARCH_URL[0]: URL \"es-1:9200\" must start with http:// or https://"},
		{"empty_entry", "http://es-1:9200,,http://es-2:9200", "ELASTICSEARCH_URL[1]: empty URL"},
		{"blank", "  ", "no Elasticsearch endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(esclient.EnvURL, tt.env)
			cfg := defaultWith()
			assert.ErrorContains(t, cfg.Validate(), tt.msg)
		})
	}
}

// The credential warnings name what is sent when headers::Authorization, an authenticator
// extension and the exporter's own credentials are set together (what is sent is pinned in
// internal/esclient's TestAuthorizationHeaderReplacesCredentials and TestAuthenticatorBesideAPIKey).
func TestCredentialWarnings(t *testing.T) {
	headerWarning := func(sent string) string {
		return "`headers::Authorization` and `api_key` are both set: the `headers::Authorization` value " + sent + ", as in contrib " +
			"(confighttp sets the header on each request after the client set it from `api_key`, and replaces it); remove `api_key`"
	}
	extensionWarning := func(keys, header, from string) string {
		return "`auth::authenticator` (headers_setter) and " + keys + " are both set: each request reaches the extension with " + header + " from " + from + ". " +
			"An extension that sets the Authorization header (basicauth, oauth2client, bearertokenauth with its default `header`) replaces it, so only its credentials are sent; " +
			"one that sets another header sends it beside " + header + ". Contrib sends requests the same way; remove " + keys
	}
	withHeader := func(c *Config) {
		c.Headers = configopaque.MapList{{Name: "Authorization", Value: "Bearer t"}}
	}
	withAuth := func(c *Config) {
		c.Auth = configoptional.Some(configauth.Config{AuthenticatorID: component.MustNewID("headers_setter")})
	}
	tests := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"header_and_api_key", func(c *Config) {
			withHeader(c)
			c.Authentication.APIKey = "Zm9vOmJhcg=="
		}, []string{headerWarning("is sent")}},
		{"header_api_key_and_extension", func(c *Config) {
			withHeader(c)
			withAuth(c)
			c.Authentication.APIKey = "Zm9vOmJhcg=="
		}, []string{
			headerWarning("is what reaches the authenticator extension"),
			extensionWarning("`headers::Authorization`", "the Authorization header", "`headers::Authorization`"),
		}},
		{"extension_api_key_and_user", func(c *Config) {
			withAuth(c)
			c.Authentication.APIKey = "Zm9vOmJhcg=="
			c.Authentication.User, c.Authentication.Password = "elastic", "changeme"
		}, []string{
			extensionWarning("`api_key` and `user`/`password`", "`Authorization: APIKey …`", "`api_key`"),
			"`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`",
		}},
		{"extension_and_user_alone", func(c *Config) {
			withAuth(c)
			c.Authentication.User = "elastic"
		}, []string{"`auth::authenticator` (headers_setter) and `user`/`password` are both set: no Authorization header is set from " +
			"`user`/`password` (one of the two is empty), so the extension's credentials are the only ones sent; remove `user`/`password`"}},
		{"header_alone", withHeader, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaultWith()
			tt.edit(cfg)
			assert.Equal(t, tt.want, cfg.credentialWarnings())
		})
	}
}

// An api_key in none of the forms loads, as in contrib (whose own testdata has one), and is
// sent as it is (internal/esclient's TestAPIKeyInNoFormIsSentAsGiven), with a warning that says
// why Elasticsearch will answer 401 and never quotes the key.
func TestAPIKeyInNoFormLoadsWithAWarning(t *testing.T) {
	for id, why := range map[string]string{
		"api_key_scheme_prefix":        "the value starts with `ApiKey `: give the key without it, the exporter adds it",
		"api_key_base64_without_colon": "the value is base64, but it does not decode to `id:api_key` as an encoded API key does",
		"api_key_json_without_fields":  "the JSON has no `encoded`, and no `id` and `api_key`",
	} {
		t.Run(id, func(t *testing.T) {
			cfg, err := loadConfig(t, "api_key_forms.yaml", id)
			require.NoError(t, err)
			require.NoError(t, confmap.Validate(cfg))
			msg := cfg.apiKeyFormWarning()
			assert.True(t, strings.HasPrefix(msg, "`api_key` is not an Elasticsearch API key in any form the exporter knows ("+why), msg)
			assert.True(t, strings.HasSuffix(msg, "): it is sent as it is, as in contrib, and Elasticsearch answers 401 to it unless a proxy between them replaces it"), msg)
			assert.NotContains(t, msg, string(cfg.Authentication.APIKey))
		})
	}
	assert.Empty(t, defaultWith().apiKeyFormWarning())
}

// A Cloud ID with a Kibana part, as every Elastic Cloud ID has, logs where requests go: contrib
// would send them to a host name that resolves nowhere.
func TestCloudIDNote(t *testing.T) {
	withKibana := base64.StdEncoding.EncodeToString([]byte("bar.cloud.es.io$abc123$def456"))
	cfg := defaultWith()
	cfg.CloudID = "foo:" + withKibana
	assert.Equal(t, "`cloudid` is read as Beats and Elastic Agent read it: requests go to https://abc123.bar.cloud.es.io, the Elasticsearch UUID before the host. "+
		"Contrib keeps the Kibana part too, in a host name `<es_uuid>$<kibana_uuid>.<host>` that resolves nowhere", cfg.cloudIDNote())

	cfg.CloudID = "foo:" + base64.StdEncoding.EncodeToString([]byte("bar.cloud.es.io$abc123"))
	assert.Empty(t, cfg.cloudIDNote(), "without a Kibana part, contrib resolves the same host")
	assert.Empty(t, defaultWith().cloudIDNote())
}
