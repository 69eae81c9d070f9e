// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
)

// Configurations written for contrib (testdata/contrib.yaml) load unchanged, mean what they
// meant there, and start exporters for every signal; where this exporter differs, it says so
// in a warning that names the key.
//
// Each case compares the whole elasticsearchexporter.Config, then creates the logs, metrics and traces exporters
// from it (pointed at a fake Elasticsearch), starts and stops them, and compares the Warn lines
// logged, in order, and the Info lines about differences from contrib.
func TestContribConfigs(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	bearer := component.MustNewID("bearertokenauth")
	const es = "https://elasticsearch:9200"
	tests := []struct {
		id       string
		expected *elasticsearchexporter.Config
		warnings []string
		infos    []string // the Info lines about differences from contrib
	}{
		{
			id: "suppress_conflict_errors",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.LogsDynamicID.Enabled = true
				c.SuppressConflictErrors = true
			}),
		},
		{
			id: "bulk_response_filter_path",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.BulkResponseFilterPath = "items.*.status,items.*.error.type,took"
			}),
		},
		{
			id: "deprecated_with_replacements",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.QueueBatchConfig.Get().NumConsumers = 8
				c.QueueBatchConfig.Get().Batch.Get().MaxSize = 2_000_000
				c.QueueBatchConfig.Get().Batch.Get().FlushTimeout = 2 * time.Second
				*elasticsearchexporter.DeprecationsOf(c) = []string{
					"`num_workers` (4) and its replacement `sending_queue::num_consumers` (8) are both set: `sending_queue::num_consumers` is used and `num_workers` is ignored, as in contrib; remove `num_workers`",
					"`flush::bytes` (1000000) and its replacement `sending_queue::batch::max_size` (2000000) are both set: `sending_queue::batch::max_size` is used and `flush::bytes` is ignored, as in contrib; remove `flush::bytes`",
					"`flush::interval` (5s) and its replacement `sending_queue::batch::flush_timeout` (2s) are both set: `sending_queue::batch::flush_timeout` is used and `flush::interval` is ignored, as in contrib; remove `flush::interval`",
				}
			}),
		},
		{
			id: "flush_bytes_items_sizer",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				b := c.QueueBatchConfig.Get().Batch.Get()
				b.Sizer = exporterhelper.RequestSizerTypeItems
				b.MinSize = 1000
				*elasticsearchexporter.DeprecationsOf(c) = []string{
					"`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: `sending_queue::batch::sizer` is items, and `flush::bytes` counts bytes; remove `flush::bytes`)",
				}
			}),
		},
		{
			id: "max_requests",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Retry.MaxRetries = 3
				*elasticsearchexporter.DeprecationsOf(c) = []string{
					"`retry::max_requests` is deprecated; use `retry::max_retries`, which does not count the first attempt (mapped to retry::max_retries: 3)",
				}
			}),
		},
		{
			id: "logstash_format",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.LogsIndex = "app-logs"
				c.LogstashFormat = elasticsearchexporter.LogstashFormatConfig{Enabled: true, PrefixSeparator: "-", DateFormat: "%Y.%V.%u"}
			}),
			infos: []string{"`logstash_format` is enabled: the date in each index name is taken from the document's own timestamp, in UTC. " +
				"Contrib takes the collector's clock when it sends, so late or replayed data lands here in the index of its own day, there in the index of the day it is sent"},
		},
		{
			id: "mapping_mode_ecs",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Mapping.Mode = "ecs"
			}),
			warnings: []string{modeIgnored("ecs")},
		},
		{
			id: "ecs_span_events_off",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Mapping.AllowedModes = []string{"otel", "ecs"}
			}),
			infos: []string{ecsSpanEventsOff},
		},
		{
			id: "ecs_span_events_to_logs",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Mapping.AllowedModes = []string{"ecs"}
				c.Mapping.ECSSpanEventsToLogs = true
			}),
		},
		{
			id: "mapping_mode_none",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Mapping.Mode = "none"
			}),
			warnings: []string{modeIgnored("none")},
		},
		{
			id: "metadata_keys_without_batching",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.MetadataKeys = []string{"X-Tenant"}
				c.QueueBatchConfig.Get().Batch = configoptional.None[exporterhelper.BatchConfig]()
			}),
		},
		{
			id: "auth_and_user",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Auth = configoptional.Some(configauth.Config{AuthenticatorID: bearer})
				c.Authentication.User, c.Authentication.Password = "elastic", "changeme"
			}),
			warnings: []string{
				"`auth::authenticator` (bearertokenauth) and `user`/`password` are both set: each request reaches the extension with `Authorization: Basic …` from `user`/`password`. " +
					"An extension that sets the Authorization header (basicauth, oauth2client, bearertokenauth with its default `header`) replaces it, so only its credentials are sent; " +
					"one that sets another header sends it beside `Authorization: Basic …`. Contrib sends requests the same way; remove `user`/`password`",
			},
		},
		{
			id: "auth_and_api_key",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Auth = configoptional.Some(configauth.Config{AuthenticatorID: bearer})
				c.Authentication.APIKey = "Zm9vOmJhcg=="
			}),
			warnings: []string{
				"`auth::authenticator` (bearertokenauth) and `api_key` are both set: each request reaches the extension with `Authorization: APIKey …` from `api_key`. " +
					"An extension that sets the Authorization header (basicauth, oauth2client, bearertokenauth with its default `header`) replaces it, so only its credentials are sent; " +
					"one that sets another header sends it beside `Authorization: APIKey …`. Contrib sends requests the same way; remove `api_key`",
			},
		},
		{
			id: "user_and_api_key",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Authentication.User, c.Authentication.Password = "elastic", "changeme"
				c.Authentication.APIKey = "Zm9vOmJhcg=="
			}),
			warnings: []string{"`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`"},
		},
		{
			id: "user_without_password",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Authentication.User = "elastic"
			}),
			warnings: []string{"`user` is set but `password` is empty: no credentials are sent, as in contrib; set `password`, or use `api_key`"},
		},
		{
			id: "password_without_user",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Authentication.Password = "changeme"
			}),
			warnings: []string{"`password` is set but `user` is empty: no credentials are sent, as in contrib; set `user`, or use `api_key`"},
		},
		{
			id: "zero_timeout",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.Timeout = 0
			}),
			warnings: []string{"`timeout` is 0: bulk requests have no deadline, as in contrib; a request to a node that stops answering " +
				"holds its push until the connection breaks; set a timeout (the default is 90s)"},
		},
		{
			id: "dynamic_id_and_pipeline",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoint = es
				c.LogsDynamicID.Enabled = true
				c.TracesDynamicID.Enabled = true
				c.LogsDynamicPipeline.Enabled = true
			}),
		},
		{
			id: "beats",
			expected: elasticsearchexporter.DefaultWith(func(c *elasticsearchexporter.Config) {
				c.Endpoints = []string{"http://es-a:9200/proxy", "http://es-b:9200/proxy"}
				c.LogsIndex = "filebeat-8.19.0"
				c.Authentication.User, c.Authentication.Password = "beats_writer", "changeme"
				c.Headers = configopaque.MapList{{Name: "X-Origin", Value: "filebeat"}}
				c.MaxConnsPerHost = 4
				c.Retry.MaxRetries = 3
				c.Retry.InitialInterval = time.Second
				c.Retry.RetryOnDocumentStatus = []int{429, 500, 502, 503, 504}
				q := c.QueueBatchConfig.Get()
				q.NumConsumers, q.QueueSize, q.WaitForResult = 8, 3200, true
				q.Sizer = exporterhelper.RequestSizerTypeRequests // queue_size without a sizer, as in contrib
				b := c.QueueBatchConfig.Get().Batch.Get()
				b.Sizer = exporterhelper.RequestSizerTypeItems
				b.MinSize, b.MaxSize = 1600, 1600
				c.LogsDynamicID.Enabled = true
				c.LogsDynamicPipeline.Enabled = true
				c.IncludeSourceOnError = new(true)
				c.SuppressConflictErrors = true
				c.BulkResponseFilterPath = "errors,items.*.error,items.*.status,items.*.failure_store"
			}),
			infos: []string{"`max_conns_per_host` is 4 and `flow_control::max_concurrent_requests` is not set: up to 4 bulk requests are in flight at once, " +
				"over all the endpoints, the number moving between 1 and 4 with the latency of the requests (`flow_control::adaptive_concurrency`); " +
				"contrib lets 4 connections open to each endpoint. Set `flow_control::max_concurrent_requests` to choose another cap"},
		},
	}

	// Every case of the file has a row, and the reverse.
	var inFile, inTable []string
	cm := loadContribConfigs(t)
	for k := range cm.ToStringMap() {
		inFile = append(inFile, k)
	}
	for _, tt := range tests {
		inTable = append(inTable, "elasticsearch/"+tt.id)
	}
	slices.Sort(inFile)
	slices.Sort(inTable)
	require.Equal(t, inFile, inTable)

	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			cfg, err := elasticsearchexporter.LoadConfig(t, "contrib.yaml", tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.expected, elasticsearchexporter.WithoutKeysSet(cfg))
			require.NoError(t, confmap.Validate(cfg))

			srv := fakees.New(t)
			cfg.Endpoint, cfg.Endpoints = "", []string{srv.URL}
			core, logs := observer.New(zapcore.InfoLevel)
			set := elasticsearchexporter.TestSettings()
			set.Logger = zap.New(core)
			elasticsearchexporter.StartAllSignals(t, cfg, set)

			// The test swaps the configured endpoint for the fake server's http:// URL, so
			// credentials earn the plain-http warning, which is not the configuration's own.
			var warnings []string
			plainHTTP := false
			for _, e := range logs.FilterLevelExact(zapcore.WarnLevel).All() {
				if strings.Contains(e.Message, "sent over plain http://") {
					plainHTTP = true
					continue
				}
				warnings = append(warnings, e.Message)
			}
			assert.Equal(t, slices.Concat(*elasticsearchexporter.DeprecationsOf(tt.expected), tt.warnings), warnings)
			hasCredentials := (cfg.Authentication.User != "" && cfg.Authentication.Password != "") || cfg.Authentication.APIKey != ""
			assert.Equal(t, hasCredentials, plainHTTP, "the plain-http warning goes with user/password or api_key")
			var infos []string
			for _, e := range logs.FilterLevelExact(zapcore.InfoLevel).FilterMessageSnippet("ontrib").All() {
				infos = append(infos, e.Message)
			}
			assert.Equal(t, tt.infos, infos)
		})
	}
}

func loadContribConfigs(t *testing.T) *confmap.Conf {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "contrib.yaml"))
	require.NoError(t, err)
	return cm
}

// The Beats translation's bulk_response_filter_path reaches Elasticsearch as the fields the
// exporter needs plus the translation's others, and the answer it gives is read.
func TestContribFilterPathOnTheWire(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	cfg, err := elasticsearchexporter.LoadConfig(t, "contrib.yaml", "beats")
	require.NoError(t, err)
	srv := fakees.New(t)
	cfg.Endpoints = []string{srv.URL}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	logs := elasticsearchexporter.NewLogsExporter(t, cfg, elasticsearchexporter.TestSettings())
	require.NoError(t, logs.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(3)))
	require.Len(t, srv.Accepted(), 3)
	assert.Equal(t, bulk.AccountingFilterPath+",errors,items.*.error", srv.LastRequest().URL.Query().Get("filter_path"))
}

// TestContribZeroTimeoutOnTheWire: `timeout: 0`, which contrib takes as no deadline, sends
// bulk requests without one. Each answer comes 300 ms late: taken with timeout 0, while a
// timeout of 100 ms cuts every attempt (so the delay is real).
func TestContribZeroTimeoutOnTheWire(t *testing.T) {
	for _, tt := range []struct {
		timeout time.Duration
		stored  int
	}{{0, 3}, {100 * time.Millisecond, 0}} {
		t.Run(tt.timeout.String(), func(t *testing.T) {
			srv := fakees.New(t)
			srv.Faults.SlowResponse = 300 * time.Millisecond
			cfg := elasticsearchexporter.NewTestConfig(srv.URL)
			cfg.Timeout = tt.timeout
			cfg.Retry.MaxRetries = 1
			require.NoError(t, confmap.Validate(cfg))
			exp := elasticsearchexporter.NewLogsExporter(t, cfg, elasticsearchexporter.TestSettings())
			err := exp.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(3))
			if tt.stored > 0 {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, "deadline exceeded")
			}
			assert.Len(t, srv.Accepted(), tt.stored)
		})
	}
}

// Credentials given twice: the ones the warning names are the ones sent, as in contrib.
func TestContribCredentialsOnTheWire(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	for id, want := range map[string]string{
		"auth_and_user":    "Bearer from-extension",
		"auth_and_api_key": "Bearer from-extension",
		"user_and_api_key": "APIKey Zm9vOmJhcg==",
		// Basic authentication needs both: one alone sends no Authorization header.
		"user_without_password": "",
		"password_without_user": "",
	} {
		t.Run(id, func(t *testing.T) {
			cfg, err := elasticsearchexporter.LoadConfig(t, "contrib.yaml", id)
			require.NoError(t, err)
			srv := fakees.New(t)
			cfg.Endpoint, cfg.Endpoints = "", []string{srv.URL}
			cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
			logs, _, _ := elasticsearchexporter.StartAllSignals(t, cfg, elasticsearchexporter.TestSettings())
			require.NoError(t, logs.ConsumeLogs(context.Background(), elasticsearchexporter.TestLogs(1)))
			assert.Equal(t, want, srv.LastRequest().Header.Get("Authorization"))
		})
	}
}

// metadata_keys partitions the data: no bulk request holds records that arrived with
// different values of the keys, with batching on (the keys partition the batches) and off
// (each push is one incoming request). The fake authenticator passes the metadata of each bulk
// request on to the fake Elasticsearch.
func TestMetadataKeysPartitionBulkRequests(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	for _, id := range []string{"metadata_keys_without_batching", "metadata_keys_with_batching"} {
		t.Run(id, func(t *testing.T) {
			cfg, err := elasticsearchexporter.LoadConfig(t, "contrib.yaml", "metadata_keys_without_batching")
			require.NoError(t, err)
			if id == "metadata_keys_with_batching" {
				batch := exporterhelper.NewDefaultBatchConfig()
				batch.Sizer = exporterhelper.RequestSizerTypeItems
				batch.MinSize = 1000 // never reached: batches are sent by the timeout
				batch.FlushTimeout = 100 * time.Millisecond
				cfg.QueueBatchConfig.Get().Batch = configoptional.Some(batch)
			}
			srv := fakees.New(t)
			var mu sync.Mutex
			mixed := 0
			srv.OnRequest = func(r *http.Request, items []fakees.Item) int {
				tenant := r.Header.Get("X-Seen-Tenant")
				mu.Lock()
				defer mu.Unlock()
				for _, it := range items {
					if !strings.Contains(string(it.Document), `"tenant":"`+tenant+`"`) || tenant == "" {
						mixed++
					}
				}
				return 0
			}
			cfg.Endpoint, cfg.Endpoints = "", []string{srv.URL}
			cfg.Auth = configoptional.Some(configauth.Config{AuthenticatorID: component.MustNewID("bearertokenauth")})
			logs, _, _ := elasticsearchexporter.StartAllSignals(t, cfg, elasticsearchexporter.TestSettings())

			var wg sync.WaitGroup
			for i := range 6 {
				tenant := []string{"a", "b", "c"}[i%3]
				wg.Go(func() {
					ld := elasticsearchexporter.TestLogs(5)
					ld.ResourceLogs().At(0).Resource().Attributes().PutStr("tenant", tenant)
					ctx := client.NewContext(context.Background(), client.Info{
						Metadata: client.NewMetadata(map[string][]string{"X-Tenant": {tenant}}),
					})
					assert.NoError(t, logs.ConsumeLogs(ctx, ld))
				})
			}
			wg.Wait()
			require.Eventually(t, func() bool { return len(srv.Accepted()) == 30 }, 10*time.Second, 10*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			assert.Zero(t, mixed, "documents sent in a bulk request with other metadata")
		})
	}
}

// elasticsearch.document_id is read from the record only: an id on the resource does not give
// its records one _id (which would keep one and count the others as duplicates).
func TestDocumentIDFromTheRecordOnly(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	cfg, err := elasticsearchexporter.LoadConfig(t, "contrib.yaml", "dynamic_id_and_pipeline")
	require.NoError(t, err)
	srv := fakees.New(t)
	cfg.Endpoint, cfg.Endpoints = "", []string{srv.URL}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	logs := elasticsearchexporter.NewLogsExporter(t, cfg, elasticsearchexporter.TestSettings())

	ld := elasticsearchexporter.TestLogs(3)
	rl := ld.ResourceLogs().At(0)
	rl.Resource().Attributes().PutStr("elasticsearch.document_id", "resource-id")
	rl.Resource().Attributes().PutStr("elasticsearch.document_pipeline", "resource-pipeline")
	rl.ScopeLogs().At(0).Scope().Attributes().PutStr("elasticsearch.document_id", "scope-id")
	rl.ScopeLogs().At(0).LogRecords().At(2).Attributes().PutStr("elasticsearch.document_id", "record-id")
	require.NoError(t, logs.ConsumeLogs(context.Background(), ld))

	accepted := srv.Accepted()
	require.Len(t, accepted, 3, "no record is lost as a duplicate")
	var ids []string
	for _, it := range accepted {
		ids = append(ids, it.ID())
		_, action := it.Op()
		assert.NotContains(t, action, "pipeline")
	}
	assert.Equal(t, []string{"", "", "record-id"}, ids)
}

// ecsSpanEventsOff is the line logged when the traces pipeline is created with a
// mapping::allowed_modes of the configuration's own that lists ecs, and
// mapping::ecs_span_events_to_logs off.
const ecsSpanEventsOff = "`mapping::ecs_span_events_to_logs` is off: span events of the ecs mode are written as ECS log documents routed like log records " +
	"(logs-generic-default unless data_stream.* or elasticsearch.index say otherwise), where contrib writes none. " +
	"Set `mapping::ecs_span_events_to_logs: true` to write them to Elastic APM's data streams as contrib then does: " +
	"exceptions to logs-apm.error-<namespace>, the other events to logs-apm.app.<service>-<namespace>"

// modeIgnored is the warning logged for a mapping::mode other than otel.
func modeIgnored(mode string) string {
	return "`mapping::mode` is " + mode + " and is ignored, as in contrib since v0.145: records whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are written in otel. " +
		"Choose the mode per scope with the scope attribute elastic.mapping.mode, or per request with the client metadata X-Elastic-Mapping-Mode " +
		"(an OTLP request header, passed on by a receiver with include_metadata: true); then remove `mapping::mode`"
}
