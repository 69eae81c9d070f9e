// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configcompression"
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
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter/internal/countertest"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
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

// withoutKeysSet returns a copy of c without the record of which keys its configuration sets,
// to compare a loaded configuration with one built by defaultWith (TestKeysSet tests the
// record).
func (c *Config) withoutKeysSet() *Config {
	cp := *c
	cp.set = keysSet{}
	return &cp
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

func withSnappy(cfg *Config) {
	cfg.Compression = configcompression.TypeSnappy
	cfg.CompressionParams.Level = 0
}

// logsPusher adapts a push function to ConsumeLogs.
type logsPusher func(context.Context, plog.Logs) error

func (p logsPusher) ConsumeLogs(ctx context.Context, ld plog.Logs) error { return p(ctx, ld) }

func letter0(items []fakees.Item) []byte { return items[0].Document }

func settingsFor(name string) exporter.Settings {
	set := exportertest.NewNopSettings(metadata.Type)
	set.ID = component.NewIDWithName(metadata.Type, name)
	return set
}

// sharedFor returns the shared exporter registered for id and cfg, or nil.
func sharedFor(id component.ID, cfg *Config) *sharedExporter {
	sharedExporters.mu.Lock()
	defer sharedExporters.mu.Unlock()
	return sharedExporters.entries[sharedKey{id: id, cfg: cfg}]
}

// pushGolden pushes the OTLP JSON input in through the factory-built exporter (in the given
// mapping mode, chosen by the request's client metadata X-Elastic-Mapping-Mode; the default
// when empty) to a fake Elasticsearch and returns the bulk bodies it received and the number of
// records rejected before sending.
func pushGolden(t *testing.T, in, mode string) ([]byte, int64) {
	t.Helper()
	return pushGoldenWith(t, in, mode, nil)
}

// pushGoldenWith is pushGolden with the test configuration changed by configure, when not nil.
func pushGoldenWith(t *testing.T, in, mode string, configure func(*Config)) ([]byte, int64) {
	t.Helper()
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	srv := fakees.New(t)
	cfg := newTestConfig(srv.URL)
	if configure != nil {
		configure(cfg)
	}
	set, tel := withTelemetry(t)
	ctx := context.Background()
	if mode != "" {
		ctx = withMode(ctx, mode)
	}
	switch {
	case bytes.Contains(raw, []byte(`"resourceLogs"`)):
		ld, unmarshalErr := (&plog.JSONUnmarshaler{}).UnmarshalLogs(raw)
		require.NoError(t, unmarshalErr)
		require.NoError(t, newLogsExporter(t, cfg, set).ConsumeLogs(ctx, ld))
	case bytes.Contains(raw, []byte(`"resourceSpans"`)):
		td, unmarshalErr := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
		require.NoError(t, unmarshalErr)
		require.NoError(t, newTracesExporter(t, cfg, set).ConsumeTraces(ctx, td))
	case bytes.Contains(raw, []byte(`"resourceMetrics"`)):
		md, unmarshalErr := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(raw)
		require.NoError(t, unmarshalErr)
		exp, createErr := NewFactory().CreateMetrics(ctx, set, cfg)
		require.NoError(t, createErr)
		startExporter(t, exp)
		require.NoError(t, exp.ConsumeMetrics(ctx, md))
	case bytes.Contains(raw, []byte(`"resourceProfiles"`)):
		pd, unmarshalErr := (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(raw)
		require.NoError(t, unmarshalErr)
		require.NoError(t, newProfilesExporter(t, cfg, set).ConsumeProfiles(ctx, pd))
	default:
		t.Fatalf("%s holds no resourceLogs, resourceSpans, resourceMetrics or resourceProfiles", in)
	}
	return bytes.Join(srv.Bodies(), nil), countertest.Sum(t, tel, "otelcol.elasticsearch.docs.fate", fate("rejected"))
}

// checkGolden compares got with the expected file, after rewriting it with -update (never the
// hand-written ones).
func checkGolden(t *testing.T, wantFile string, got []byte) {
	t.Helper()
	if *update && !strings.Contains(wantFile, "/handwritten/") {
		require.NoError(t, os.WriteFile(wantFile, got, 0o600))
	}
	want, err := os.ReadFile(wantFile)
	require.NoError(t, err, "run go test -update to write %s", wantFile)
	compareBulk(t, want, got)
}

// compareBulk compares two NDJSON bulk bodies: action lines as decoded JSON, source lines byte
// for byte, with a decoded diff on mismatch.
func compareBulk(t *testing.T, want, got []byte) {
	t.Helper()
	wantLines := splitLines(want)
	gotLines := splitLines(got)
	require.Len(t, gotLines, len(wantLines), "line count; got:\n%s", got)
	for i := range wantLines {
		if i%2 == 0 {
			assert.Equal(t, decode(t, wantLines[i]), decode(t, gotLines[i]), "action line %d", i+1)
			continue
		}
		if !bytes.Equal(wantLines[i], gotLines[i]) {
			assert.Equal(t, decode(t, wantLines[i]), decode(t, gotLines[i]), "document line %d differs in content", i+1)
			assert.Equal(t, string(wantLines[i]), string(gotLines[i]), "document line %d differs in bytes", i+1)
		}
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for line := range bytes.SplitSeq(bytes.TrimRight(b, "\n"), []byte("\n")) {
		out = append(out, line)
	}
	return out
}

// injectingCore stands for the collector's core that adds the component's attributes,
// the signal among them, to every line.
type injectingCore struct {
	zapcore.Core
	attrs []string
}

func (c injectingCore) DropInjectedAttributes(dropped ...string) zapcore.Core {
	var keep []string
	for _, a := range c.attrs {
		if !slices.Contains(dropped, a) {
			keep = append(keep, a)
		}
	}
	return injectingCore{c.Core, keep}
}

func (c injectingCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c injectingCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	for _, a := range c.attrs {
		fields = append(fields, zap.String(a, "x"))
	}
	return c.Core.Write(ent, fields)
}

// testMetricsScopes returns n scopes named s0, s1, ..., two per resource, each with one gauge of
// two points at different times.
func testMetricsScopes(n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	var rm pmetric.ResourceMetrics
	for i := range n {
		if i%2 == 0 {
			rm = md.ResourceMetrics().AppendEmpty()
			rm.Resource().Attributes().PutInt("r", int64(i/2))
		}
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("s" + string(rune('0'+i)))
		g := sm.Metrics().AppendEmpty()
		g.SetName("g")
		g.SetEmptyGauge()
		for k := range 2 {
			dp := g.Gauge().DataPoints().AppendEmpty()
			dp.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + k*1_000_000_000))
			dp.SetIntValue(int64(k))
		}
	}
	return md
}

// ecsMetrics returns two scopes of one resource, each with one metric of the same time and
// attributes; a non-empty mode is the second scope's elastic.mapping.mode attribute.
func ecsMetrics(mode string) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "svc")
	rm.Resource().Attributes().PutStr("host.name", "h")
	g := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	g.SetName("system.cpu.utilization")
	dp := g.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(1_700_000_000_000_000_000)
	dp.SetDoubleValue(0.5)
	dp.Attributes().PutStr("state", "user")
	sm := rm.ScopeMetrics().AppendEmpty()
	if mode != "" {
		sm.Scope().Attributes().PutStr("elastic.mapping.mode", mode)
	}
	s := sm.Metrics().AppendEmpty()
	s.SetName("http.requests")
	s.SetEmptySum().SetIsMonotonic(true)
	s.Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	sdp := s.Sum().DataPoints().AppendEmpty()
	sdp.SetTimestamp(1_700_000_000_000_000_000)
	sdp.SetIntValue(3)
	sdp.Attributes().PutStr("state", "user")
	return md
}

// splitDownsampled returns the counts of countByIndex without the downsampled event indices,
// and the documents of those, which must each be one of the events of profiling-events-all.
func splitDownsampled(t *testing.T, items []fakees.Item) (counts map[string]int, downsampled int) {
	t.Helper()
	all := map[string]bool{}
	for _, it := range items {
		if it.Index() == "profiling-events-all" {
			all[string(it.Document)] = true
		}
	}
	counts = countByIndex(items)
	for index, n := range counts {
		if strings.HasPrefix(index, "profiling-events-5pow") {
			downsampled += n
			delete(counts, index)
		}
	}
	for _, it := range items {
		if strings.HasPrefix(it.Index(), "profiling-events-5pow") {
			assert.True(t, all[string(it.Document)], "a downsampled event is one of all events: %s", it.Document)
		}
	}
	return counts, downsampled
}

// errorField returns the error of a log entry, "" for none.
func errorField(e observer.LoggedEntry) string {
	if s, ok := e.ContextMap()["error"].(string); ok {
		return s
	}
	return ""
}

// queuedLogs starts a logs exporter with the default sending queue (in memory, batching) whose
// batches are flushed after flush, pointed at srv, and hands it 50 log records.
func queuedLogs(t *testing.T, srv *fakees.Server, flush time.Duration) (exporter.Logs, *componenttest.Telemetry) {
	t.Helper()
	set, tel := withTelemetry(t)
	cfg := defaultWith()
	cfg.Endpoints = []string{srv.URL}
	cfg.QueueBatchConfig.Get().Batch.Get().FlushTimeout = flush
	exp, err := NewFactory().CreateLogs(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, exp.ConsumeLogs(context.Background(), testLogs(50)))
	return exp, tel
}

// signalNamed returns the signal whose name is name ("logs", "metrics", "traces", "profiles").
func signalNamed(t *testing.T, name string) signal.Kind {
	t.Helper()
	for k := range signal.Count {
		if k.String() == name {
			return k
		}
	}
	require.FailNow(t, "no signal is named "+name)
	return signal.Count
}

// Reading the docs, for the suites that check them against the code (config_doc_test.go,
// corpus_test.go, startup_quotes_test.go).

// configDoc is the configuration reference that TestConfigurationDocCoversEveryKey checks.
const configDoc = "docs/configuration.md"

// The convention of docs/configuration.md: a key is documented by a row of a Markdown table
// whose header's first cell is "Key", and whose own first cell is the key's full path in
// backticks, with the collector's "::" separator, and nothing else: | `retry::max_interval` |.
// Tables with another first header (the deprecated and removed keys) are not read.
var (
	docTableSeparator = regexp.MustCompile(`^\|\s*:?-{3,}`)
	docKeyCell        = regexp.MustCompile("^`([a-z0-9_]+(?:::[a-z0-9_]+)*)`$")
)

// configDocRow is a row of a "Key" table in docs/configuration.md.
type configDocRow struct {
	Key  string
	Line int
}

// configDocRows returns the key rows of the Markdown file path (see docKeyCell). A row of a
// "Key" table whose first cell is not one key in backticks fails the test.
func configDocRows(t *testing.T, path string) []configDocRow {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()

	var rows []configDocRow
	var header, table string // the last table row read, and the first header cell of the current table
	line := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case !strings.HasPrefix(text, "|"):
			header, table = "", ""
		case docTableSeparator.MatchString(text):
			table = firstCell(header)
		case table == "Key":
			cell := firstCell(text)
			m := docKeyCell.FindStringSubmatch(cell)
			if m == nil {
				t.Errorf("%s:%d: the first cell of a row of a \"Key\" table must be one key in backticks, like `retry::max_interval`; got %q", path, line, cell)
				continue
			}
			rows = append(rows, configDocRow{Key: m[1], Line: line})
		default:
			header = text
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rows, "%s has no rows in tables whose first header is \"Key\"", path)
	return rows
}

// firstCell returns the first cell of a Markdown table row, trimmed.
func firstCell(row string) string {
	cell, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
	return strings.TrimSpace(cell)
}

// forMarkdownLines calls fn with each line of the Markdown file path that is outside a
// fenced code block.
func forMarkdownLines(t *testing.T, path string, fn func(line int, text string)) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	fenced := false
	for i, text := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(i+1, text)
		}
	}
}

// movingDoc is the page whose table quotes every start-up line about a difference from contrib.
const movingDoc = "docs/moving-from-contrib.md"

// quotedLine matches a line quoted in a Markdown table cell: a code span with double
// backticks, which may hold single ones.
var quotedLine = regexp.MustCompile("`` (.+?) ``")

// movingDocQuotes returns the start-up lines that docs/moving-from-contrib.md quotes: the code
// spans of the last cell of each row of a table whose last header starts with "Logged".
func movingDocQuotes(t *testing.T) []string {
	t.Helper()
	var quotes []string
	logged := false // in a table whose last column is the line logged
	forMarkdownLines(t, movingDoc, func(_ int, text string) {
		text = strings.TrimSpace(text)
		if !strings.HasPrefix(text, "|") {
			logged = false
			return
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		last := strings.TrimSpace(cells[len(cells)-1])
		switch {
		case strings.HasPrefix(last, "Logged"):
			logged = true
		case logged:
			for _, m := range quotedLine.FindAllStringSubmatch(text, -1) {
				quotes = append(quotes, m[1])
			}
		}
	})
	require.NotEmpty(t, quotes, "%s quotes no start-up line", movingDoc)
	return quotes
}

// Variable parts of a start-up line: a key or value in backticks (or several joined by "/"),
// and a number, with a unit or not.
var (
	lineKeys    = regexp.MustCompile("`[^`]*`(?:/`[^`]*`)*")
	lineNumbers = regexp.MustCompile(`\d+(?:\.\d+)?(?:ms|s|m|h)?`)
)

// normalizeStartupLine replaces the variable parts of a start-up line with placeholders.
func normalizeStartupLine(s string) string {
	s = strings.ReplaceAll(s, "…", "...")
	s = lineKeys.ReplaceAllString(s, "K")
	return lineNumbers.ReplaceAllString(s, "N")
}

// quotedLineMatches reports whether line is the line that quote shows: the same once keys in
// backticks and numbers are set aside, but for at most two other words (a mode's or an
// extension's name). A quote that starts with "..." is a part of a line, found anywhere in it.
func quotedLineMatches(line, quote string) bool {
	l, q := normalizeStartupLine(line), normalizeStartupLine(quote)
	if fragment, ok := strings.CutPrefix(q, "..."); ok {
		return strings.Contains(l, strings.TrimSuffix(fragment, "..."))
	}
	return tokenDistance(strings.Fields(l), strings.Fields(q)) <= 2
}

// tokenDistance is the Levenshtein distance between two sequences of words.
func tokenDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range a {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range b {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

var update = flag.Bool("update", false, "rewrite the expected documents of the golden tests (never the hand-written ones)")
