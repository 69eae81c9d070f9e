// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
)

// newTestConfig returns the default config pointed at url, with the sending queue off so that
// push errors reach the caller, and short retry waits, then changed by edits.
func newTestConfig(url string, edits ...func(*Config)) *Config {
	return defaultWith(append([]func(*Config){func(cfg *Config) {
		cfg.Endpoints = []string{url}
		cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
		cfg.Retry.InitialInterval = time.Millisecond
		cfg.Retry.MaxInterval = 5 * time.Millisecond
	}}, edits...)...)
}

func testSettings() exporter.Settings {
	return exportertest.NewNopSettings(metadata.Type)
}

// startExporter starts c and shuts it down when the test ends.
func startExporter(t *testing.T, c component.Component) {
	t.Helper()
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
}

func newLogsExporter(t *testing.T, cfg *Config, set exporter.Settings) exporter.Logs {
	t.Helper()
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)
	return exp
}

func newTracesExporter(t *testing.T, cfg *Config, set exporter.Settings) exporter.Traces {
	t.Helper()
	exp, err := NewFactory().CreateTraces(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)
	return exp
}

// loadConfig unmarshals the section id of file into a default Config.
func loadConfig(t *testing.T, file, id string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", file))
	require.NoError(t, err)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, id).String())
	require.NoError(t, err)
	cfg := defaultWith()
	return cfg, sub.Unmarshal(cfg)
}

// defaultWith returns the default Config changed by edits, in order: the one constructor of the
// tests' configurations.
func defaultWith(edits ...func(*Config)) *Config {
	cfg := createDefaultConfig().(*Config)
	for _, edit := range edits {
		edit(cfg)
	}
	return cfg
}

func queueOf(cfg *Config) *exporterhelper.QueueBatchConfig { return cfg.QueueBatchConfig.Get() }

func batchOf(cfg *Config) *exporterhelper.BatchConfig { return cfg.QueueBatchConfig.Get().Batch.Get() }

// startAllSignals creates, starts and (when the test ends) shuts down the logs, metrics and
// traces exporters of cfg, on a host that has a bearertokenauth extension.
func startAllSignals(t *testing.T, cfg *Config, set exporter.Settings) (exporter.Logs, exporter.Metrics, exporter.Traces) {
	t.Helper()
	f := NewFactory()
	ctx := context.Background()
	logs, err := f.CreateLogs(ctx, set, cfg)
	require.NoError(t, err)
	metrics, err := f.CreateMetrics(ctx, set, cfg)
	require.NoError(t, err)
	traces, err := f.CreateTraces(ctx, set, cfg)
	require.NoError(t, err)
	host := authHost{component.MustNewID("bearertokenauth"): fakeAuthExtension{}}
	for _, c := range []component.Component{logs, metrics, traces} {
		require.NoError(t, c.Start(ctx, host))
		t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
	}
	return logs, metrics, traces
}

// authHost is a host with the given extensions.
type authHost map[component.ID]component.Component

func (h authHost) GetExtensions() map[component.ID]component.Component { return h }

// fakeAuthExtension is an authenticator extension that sets the Authorization header of every
// request, and passes the request's client metadata x-tenant on in the header X-Seen-Tenant, so
// that the fake Elasticsearch sees which metadata each bulk request was sent with.
type fakeAuthExtension struct {
	component.StartFunc
	component.ShutdownFunc
}

func (fakeAuthExtension) RoundTripper(base http.RoundTripper) (http.RoundTripper, error) {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer from-extension")
		req.Header.Set("X-Seen-Tenant", strings.Join(client.FromContext(req.Context()).Metadata.Get("x-tenant"), ","))
		return base.RoundTrip(req)
	}), nil
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// testLogs returns n log records, record i with body "log i" and attribute i = i.
func testLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "svc")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("scope")
	for i := range n {
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i))
		r.Body().SetStr(fmt.Sprintf("log %d", i))
		r.Attributes().PutInt("i", int64(i))
	}
	return ld
}

// failLog answers resp for the document of testLogs' record i (body "log i"), and indexes the
// others: an OnItem of fakees.Server.
func failLog(i int, resp fakees.Response) func(fakees.Item) fakees.Response {
	body := fmt.Sprintf(`"log %d"`, i)
	return func(it fakees.Item) fakees.Response {
		if strings.Contains(string(it.Document), body) {
			return resp
		}
		return fakees.Response{}
	}
}

// observed returns settings whose logger is recorded, and the recorder.
func observed() (exporter.Settings, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	set := testSettings()
	set.Logger = zap.New(core)
	return set, logs
}

// withTelemetry returns settings recording the exporter's metrics into tel.
func withTelemetry(t *testing.T) (exporter.Settings, *componenttest.Telemetry) {
	t.Helper()
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := testSettings()
	set.TelemetrySettings = tel.NewTelemetrySettings()
	return set, tel
}

// outcome is contrib's attribute (bulk requests, and documents as contrib counts them), fate
// this exporter's (documents).
func outcome(s string) attribute.KeyValue { return attribute.String("outcome", s) }

func fate(s string) attribute.KeyValue { return attribute.String("fate", s) }

// decode decodes one JSON value with its numbers as written, and fails on invalid JSON or
// trailing data.
func decode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v), "invalid JSON: %s", b)
	require.False(t, d.More(), "trailing data after the JSON value: %s", b)
	return v
}

// withMode returns ctx carrying the client metadata X-Elastic-Mapping-Mode with the given values.
func withMode(ctx context.Context, values ...string) context.Context {
	return client.NewContext(ctx, client.Info{Metadata: client.NewMetadata(map[string][]string{"X-Elastic-Mapping-Mode": values})})
}

// scopedLogs returns one log record per scope; a non-empty mode is the scope's
// elastic.mapping.mode attribute.
func scopedLogs(modes ...string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "svc")
	for i, mode := range modes {
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName("scope")
		if mode != "" {
			sl.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
		}
		r := sl.LogRecords().AppendEmpty()
		r.SetTimestamp(1_700_000_000_000_000_000)
		r.Body().SetStr("record " + string(rune('a'+i)))
	}
	return ld
}

// memoryStorage is a storage extension that keeps the persistent queue in memory: the queue's
// own encoding (with the request's client metadata) is exercised, without a file.
type memoryStorage struct {
	component.StartFunc
	component.ShutdownFunc
	mu   sync.Mutex
	data map[string][]byte
}

// storageHost is a host with one storage extension.
type storageHost struct {
	id  component.ID
	ext component.Component
}

var _ storage.Extension = (*memoryStorage)(nil)

func (s *memoryStorage) GetClient(context.Context, component.Kind, component.ID, string) (storage.Client, error) {
	return s, nil
}

func (s *memoryStorage) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data[key], nil
}

func (s *memoryStorage) Set(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[key] = append([]byte(nil), value...)
	return nil
}

func (s *memoryStorage) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.data, key)
	return nil
}

func (s *memoryStorage) Batch(ctx context.Context, ops ...*storage.Operation) error {
	for _, op := range ops {
		switch op.Type {
		case storage.Get:
			op.Value, _ = s.Get(ctx, op.Key)
		case storage.Set:
			_ = s.Set(ctx, op.Key, op.Value)
		case storage.Delete:
			_ = s.Delete(ctx, op.Key)
		}
	}
	return nil
}

func (s *memoryStorage) Close(context.Context) error { return nil }

func (h storageHost) GetExtensions() map[component.ID]component.Component {
	return map[component.ID]component.Component{h.id: h.ext}
}

// queuedConfig returns a config with a persistent sending queue in memoryStorage and batching
// that holds requests for flush so that several requests meet in one batch.
func queuedConfig(url string, flush time.Duration) (*Config, storageHost) {
	cfg := newTestConfig(url)
	q := exporterhelper.NewDefaultQueueConfig()
	id := component.MustNewID("memory_storage")
	q.StorageID = &id
	q.WaitForResult = false
	q.Batch = configoptional.Some(exporterhelper.BatchConfig{
		FlushTimeout: flush,
		Sizer:        exporterhelper.RequestSizerTypeItems,
		MinSize:      1000,
		Partition:    defaultWith().QueueBatchConfig.Get().Batch.Get().Partition,
	})
	cfg.QueueBatchConfig = configoptional.Some(q)
	return cfg, storageHost{id: id, ext: &memoryStorage{data: map[string][]byte{}}}
}

func newProfilesExporter(t *testing.T, cfg *Config, set exporter.Settings) xexporter.Profiles {
	t.Helper()
	f, ok := NewFactory().(xexporter.Factory)
	require.True(t, ok)
	assert.Equal(t, component.StabilityLevelDevelopment, f.ProfilesStability())
	exp, err := f.CreateProfiles(context.Background(), set, cfg)
	require.NoError(t, err)
	startExporter(t, exp)
	return exp
}

// countByIndex counts the accepted documents per index.
func countByIndex(items []fakees.Item) map[string]int {
	n := map[string]int{}
	for _, it := range items {
		n[it.Index()]++
	}
	return n
}

// onTestEndpoint points a config at an endpoint, for the tests that send nothing.
func onTestEndpoint(cfg *Config) { cfg.Endpoint = "http://127.0.0.1:9200" }

// ecsOnly makes the records of a config written in the ecs mode.
func ecsOnly(cfg *Config) { cfg.Mapping.AllowedModes = []string{"ecs"} }

// unmarshalMap loads m into the default Config, as the collector does.
func unmarshalMap(m map[string]any) (*Config, error) {
	cfg := defaultWith()
	return cfg, confmap.NewFromStringMap(m).Unmarshal(cfg)
}

// profileStacks is the number of distinct stacks of testProfiles.
const profileStacks = 4

// The documents of testProfiles(t, 8), testdata/fixtures/profiles.json: its 8 events, and once its host, 4 stack traces, 5
// symbolized frames (4 of their own, main.main shared) and 2 executables.
var profileDocsFirst = map[string]int{
	"profiling-events-all.otel-default":  8,
	"profiling-hosts.otel-default":       1,
	"profiling-stacktraces.otel-default": profileStacks,
	"profiling-stackframes.otel-default": profileStacks + 1,
	"profiling-executables.otel-default": 2,
}

// testProfiles returns the first n (at most 8) samples of testdata/fixtures/profiles.json,
// marked read-only: one CPU profile, sampled at 20 Hz, in one resource with host.id and one
// scope. The samples go round profileStacks stacks of three frames, leaf first: a native frame
// of one of two executables with a build id, a symbolized Go frame of its own, and a Go main
// frame all stacks share. Each sample has one timestamp, so it is one event; the stacks, their
// frames, the two executables and the host are written once. The fixture is the lab's
// benchdata.Profiles(8), kept equal to it by internal/lab/benchdata's TestFixtures.
func testProfiles(tb testing.TB, n int) pprofile.Profiles {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", "profiles.json"))
	require.NoError(tb, err)
	pd, err := (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(b)
	require.NoError(tb, err)
	samples := pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles().At(0).Samples()
	require.LessOrEqual(tb, n, samples.Len())
	i := 0
	samples.RemoveIf(func(pprofile.Sample) bool {
		i++
		return i > n
	})
	pd.MarkReadOnly()
	return pd
}

// testSpan returns testdata/fixtures/span.json, marked read-only: one server span in one
// resource and scope (the lab's benchdata.Traces(1)).
func testSpan(tb testing.TB) ptrace.Traces {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", "span.json"))
	require.NoError(tb, err)
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(tb, err)
	td.MarkReadOnly()
	return td
}

// faultConfig returns the default configuration, sending queue and batching on, pointed at url,
// with deterministic ids, several consumers, small batches flushed quickly and short retry
// waits without a retry limit.
func faultConfig(url string) *Config {
	cfg := defaultWith()
	cfg.Endpoints = []string{url}
	cfg.DeterministicIDs.Enabled = true
	cfg.Retry.MaxRetries = -1
	cfg.Retry.InitialInterval = 5 * time.Millisecond
	cfg.Retry.MaxInterval = 200 * time.Millisecond
	q := cfg.QueueBatchConfig.Get()
	q.NumConsumers = 4
	b := q.Batch.Get()
	b.FlushTimeout = 20 * time.Millisecond
	b.MinSize = 16 << 10
	b.MaxSize = 64 << 10 // also the bulk request limit
	return cfg
}

// faultLogBatch returns the log records with seq first to first+n-1.
func faultLogBatch(first, n int, mutate func(int, plog.LogRecord)) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "fault-test")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("fault")
	for seq := first; seq < first+n; seq++ {
		rec := sl.LogRecords().AppendEmpty()
		rec.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + int64(seq)*1_000_000))
		rec.SetSeverityText("INFO")
		rec.Body().SetStr(fmt.Sprintf("log record %d of the fault test", seq))
		rec.Attributes().PutInt("seq", int64(seq))
		rec.Attributes().PutStr("kind", "log")
		if mutate != nil {
			mutate(seq, rec)
		}
	}
	return ld
}

// perSignal sums per-index counts by the signal that begins each index name: logs, metrics or
// traces.
func perSignal(perIndex map[string]int) map[string]int {
	out := map[string]int{}
	for index, n := range perIndex {
		signal, _, _ := strings.Cut(index, "-")
		out[signal] += n
	}
	return out
}
