// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pushbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/goleak"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"
	"github.com/otelcol-es/elasticsearchexporter/internal/lab/bulksink"
	"github.com/otelcol-es/elasticsearchexporter/internal/profilecache"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// The uniform records of the push benchmarks, shared with the out-of-process cost benchmark
// (internal/lab/cmd/costbench): about 300 to 430 bytes of JSON per document, which gzip shrinks
// 40-50 times, the best case. The realistic records (benchdata.Realistic, seed
// benchdata.RealisticSeed) are the headline.
func benchmarkLogs(n int) plog.Logs { return benchdata.Logs(n) }

func benchmarkTraces(n int) ptrace.Traces { return benchdata.Traces(n) }

func benchmarkMetrics(n int) pmetric.Metrics { return benchdata.Metrics(n) }

// benchmarkData returns the input of n records of sig from corpus: a new Realistic of the
// benchmarks' seed for each input, so that every run measures the same records.
func benchmarkData(sig benchmarkSignal, corpus string, n int) any {
	if corpus == corpusRealistic {
		return sig.realistic(benchdata.NewRealistic(benchdata.RealisticSeed), n)
	}
	return sig.data(n)
}

// benchmarkCorpora returns the corpora of sig at n records.
func benchmarkCorpora(sig benchmarkSignal, n int) []string {
	var out []string
	if sig.realistic != nil {
		out = append(out, corpusRealistic)
	}
	if sig.realistic == nil || n == 1000 {
		out = append(out, corpusUniform)
	}
	return out
}

// benchmarkSignal is one signal of the push benchmarks: the data and each way of handling it.
type benchmarkSignal struct {
	name string
	// data returns the push input of n uniform records, realistic that of n realistic ones
	// (nil where the signal has none).
	data      func(n int) any
	realistic func(g *benchdata.Realistic, n int) any
	// push consumes the input through the factory-built exporter.
	push func(ctx context.Context, exp, data any) error
	// create builds the exporter for the signal.
	create func(tb testing.TB, url string) any
	// encode runs only the serializer over the input, into buf.
	encode func(e *serializer.Encoder, buf []byte, data any) []byte
	// otlpJSON and otlpProto marshal the input with pdata's marshalers.
	otlpJSON, otlpProto func(data any) ([]byte, error)
	// docBytes and realisticBytes are the intended sizes of a uniform and of a realistic
	// record's documents, in bytes of JSON.
	docBytes, realisticBytes int
}

// The target of every data point that the serializer alone encodes.
const benchmarkMetricIndex = "metrics-generic.otel-default"

var benchmarkMetricStream = serializer.DataStream{Type: "metrics", Dataset: "generic", Namespace: "default"}

// appendProfile appends the documents of profile p to buf as the pipeline does: every event,
// and each content-addressed document that seen has not had.
func appendProfile(e *serializer.Encoder, buf []byte, dict pprofile.ProfilesDictionary, p pprofile.Profile, seen *profilecache.Cache) []byte {
	e.BeginProfile(dict, p)
	for {
		d, ok := e.NextProfileDocument()
		if !ok {
			return buf
		}
		if d.Kind != serializer.ProfileEvent && seen.Seen(d.Kind, d.ID) {
			continue
		}
		buf = e.AppendProfileDocument(buf)
	}
}

// benchmarkConfig is the default config pointed at url, with the sending queue off so that
// each Consume call pushes synchronously, short retry waits, and gzip at level 1 (the
// default, set here so that the benchmark does not follow a change of the default).
func benchmarkConfig(url string) *elasticsearchexporter.Config {
	cfg := elasticsearchexporter.NewFactory().CreateDefaultConfig().(*elasticsearchexporter.Config)
	cfg.Endpoints = []string{url}
	cfg.QueueBatchConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	cfg.Retry.InitialInterval = time.Millisecond
	cfg.Retry.MaxInterval = 5 * time.Millisecond
	cfg.CompressionParams.Level = 1
	return cfg
}

// benchmarkSettings are the collector's no-op settings of an exporter of this type.
func benchmarkSettings() exporter.Settings {
	return exportertest.NewNopSettings(elasticsearchexporter.NewFactory().Type())
}

type lifecycle interface {
	Start(context.Context, component.Host) error
	Shutdown(context.Context) error
}

func startBenchmarkExporter(tb testing.TB, exp any) {
	tb.Helper()
	c := exp.(lifecycle)
	require.NoError(tb, c.Start(context.Background(), componenttest.NewNopHost()))
	tb.Cleanup(func() { require.NoError(tb, c.Shutdown(context.Background())) })
}

// requestBodies pushes data once through a new exporter of sig and returns the bodies of the
// bulk requests it sent, uncompressed: action lines and documents, as the server reads them.
func requestBodies(tb testing.TB, sig benchmarkSignal, data any) [][]byte {
	tb.Helper()
	srv := fakees.New(tb)
	require.NoError(tb, sig.push(context.Background(), sig.create(tb, srv.URL), data))
	bodies := srv.Bodies()
	require.NotEmpty(tb, bodies)
	return bodies
}

// capturedBody pushes data once through a new exporter of sig to the sink at url and returns
// the uncompressed body of the bulk request it sent, as the sink captured it.
func capturedBody(tb testing.TB, url string, sig benchmarkSignal, data any) []byte {
	tb.Helper()
	resp, err := http.Post(url+bulksink.CapturePath, "", http.NoBody)
	require.NoError(tb, err)
	_ = resp.Body.Close()
	require.NoError(tb, sig.push(context.Background(), sig.create(tb, url), data))
	resp, err = http.Get(url + bulksink.CapturePath)
	require.NoError(tb, err)
	defer resp.Body.Close()
	require.Equal(tb, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(tb, err)
	return body
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pushbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pushbench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "pushbench: goroutines leaked:", err)
			return 1
		}
	}
	return code
}

// processSink starts the bulk sink (cmd/bulksink, built by sinkBinary) in a child process and
// returns its URL; it answers one created item per document, counted from
// X-Elastic-Event-Count without decompressing the body. The sink's CPU is not the benchmark
// process's: cpu-ns/event (getrusage RUSAGE_SELF) leaves it out, though the sink still shares
// the machine's cores with the benchmark, which events/s feels.
func processSink(tb testing.TB) string {
	tb.Helper()
	bin, err := sinkBinary()
	require.NoError(tb, err)
	cmd := exec.Command(bin, "-count=header", "-stdin")
	cmd.Stderr = os.Stderr
	p, err := bulksink.Start(cmd)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = p.Stop() })
	return p.URL
}

// bulkSink is a fake Elasticsearch in this process that answers every document as created:
// for TestBenchmarkData, which measures nothing.
func bulkSink(tb testing.TB) string {
	tb.Helper()
	return fakees.New(tb).URL
}

// binDir is the folder, made by TestMain and removed when the tests end, into which
// sinkBinary builds cmd/bulksink.
var binDir string

// sinkBinary builds cmd/bulksink into binDir, once per test binary and only when a benchmark
// asks for the sink (TestBenchmarkData does not), and returns its path. It runs the go command
// on PATH, or $GO: `go test` puts the go command it was started with first on PATH. The
// test binary runs in this package's folder (go test and scripts/bench-compare.sh both start
// it there), so ../cmd/bulksink is the sink of the same tree.
var sinkBinary = sync.OnceValues(func() (string, error) {
	gocmd := os.Getenv("GO")
	if gocmd == "" {
		gocmd = "go"
	}
	bin := filepath.Join(binDir, "bulksink")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(gocmd, "build", "-o", bin, "../cmd/bulksink").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ../cmd/bulksink: %w\n%s", err, out)
	}
	return bin, nil
})

var benchmarkSignals = []benchmarkSignal{
	{
		name:      "logs",
		data:      func(n int) any { return benchmarkLogs(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Logs(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateLogs(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeLogs(context.Context, plog.Logs) error
			}).ConsumeLogs(ctx, data.(plog.Logs))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			return benchdata.AppendLogs(e, buf, data.(plog.Logs), benchmarkLogsStream)
		},
		otlpJSON:       func(data any) ([]byte, error) { return (&plog.JSONMarshaler{}).MarshalLogs(data.(plog.Logs)) },
		otlpProto:      func(data any) ([]byte, error) { return (&plog.ProtoMarshaler{}).MarshalLogs(data.(plog.Logs)) },
		docBytes:       375,
		realisticBytes: 1300,
	},
	{
		name:      "spans",
		data:      func(n int) any { return benchmarkTraces(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Traces(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateTraces(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeTraces(context.Context, ptrace.Traces) error
			}).ConsumeTraces(ctx, data.(ptrace.Traces))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			return benchdata.AppendSpans(e, buf, data.(ptrace.Traces), benchmarkTracesStream)
		},
		otlpJSON:       func(data any) ([]byte, error) { return (&ptrace.JSONMarshaler{}).MarshalTraces(data.(ptrace.Traces)) },
		otlpProto:      func(data any) ([]byte, error) { return (&ptrace.ProtoMarshaler{}).MarshalTraces(data.(ptrace.Traces)) },
		docBytes:       375,
		realisticBytes: 1200,
	},
	{
		name:      "metrics",
		data:      func(n int) any { return benchmarkMetrics(n) },
		realistic: func(g *benchdata.Realistic, n int) any { return g.Metrics(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().CreateMetrics(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeMetrics(context.Context, pmetric.Metrics) error
			}).ConsumeMetrics(ctx, data.(pmetric.Metrics))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			buf, _ = benchdata.AppendMetrics(e, buf, data.(pmetric.Metrics), benchmarkMetricIndex, benchmarkMetricStream, nil)
			return buf
		},
		otlpJSON: func(data any) ([]byte, error) {
			return (&pmetric.JSONMarshaler{}).MarshalMetrics(data.(pmetric.Metrics))
		},
		otlpProto: func(data any) ([]byte, error) {
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(data.(pmetric.Metrics))
		},
		docBytes:       375,
		realisticBytes: 1050,
	},
	{
		// One profile of n samples, each one event; its stacks, frames, executables and host
		// are written by the first push only, as in a steady stream (the serializer's runs
		// likewise remember what they wrote).
		name: "profiles",
		data: func(n int) any { return benchdata.Profiles(n) },
		create: func(tb testing.TB, url string) any {
			tb.Helper()
			exp, err := elasticsearchexporter.NewFactory().(xexporter.Factory).CreateProfiles(context.Background(), benchmarkSettings(), benchmarkConfig(url))
			require.NoError(tb, err)
			startBenchmarkExporter(tb, exp)
			return exp
		},
		push: func(ctx context.Context, exp, data any) error {
			return exp.(interface {
				ConsumeProfiles(context.Context, pprofile.Profiles) error
			}).ConsumeProfiles(ctx, data.(pprofile.Profiles))
		},
		encode: func(e *serializer.Encoder, buf []byte, data any) []byte {
			pd := data.(pprofile.Profiles)
			seen := benchmarkProfilesSeen(e)
			for _, rp := range pd.ResourceProfiles().All() {
				e.SetResource(rp.Resource(), rp.SchemaUrl())
				for _, sp := range rp.ScopeProfiles().All() {
					e.SetScope(sp.Scope(), sp.SchemaUrl())
					for _, p := range sp.Profiles().All() {
						buf = appendProfile(e, buf, pd.Dictionary(), p, seen)
					}
				}
			}
			return buf
		},
		otlpJSON: func(data any) ([]byte, error) {
			return (&pprofile.JSONMarshaler{}).MarshalProfiles(data.(pprofile.Profiles))
		},
		otlpProto: func(data any) ([]byte, error) {
			return (&pprofile.ProtoMarshaler{}).MarshalProfiles(data.(pprofile.Profiles))
		},
		docBytes: 200,
	},
}
