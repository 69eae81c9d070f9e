// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/fakees"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadatatest"
)

const metricConcurrencyLimit = "otelcol.elasticsearch.bulk_requests.concurrency_limit"

// concurrencyLimit returns the current value of the concurrency limit gauge.
func concurrencyLimit(tel *componenttest.Telemetry) (int64, bool) {
	m, err := tel.GetMetric(metricConcurrencyLimit)
	if err != nil {
		return 0, false
	}
	g, ok := m.Data.(metricdata.Gauge[int64])
	if !ok || len(g.DataPoints) != 1 {
		return 0, false
	}
	return g.DataPoints[0].Value, true
}

// limitTrajectory records each change of the concurrency limit gauge until stopped.
type limitTrajectory struct {
	mu     sync.Mutex
	values []int64
	stop   chan struct{}
	done   chan struct{}
}

func watchLimit(tel *componenttest.Telemetry) *limitTrajectory {
	lt := &limitTrajectory{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(lt.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-lt.stop:
				return
			case <-tick.C:
			}
			if v, ok := concurrencyLimit(tel); ok {
				lt.mu.Lock()
				if n := len(lt.values); n == 0 || lt.values[n-1] != v {
					lt.values = append(lt.values, v)
				}
				lt.mu.Unlock()
			}
		}
	}()
	return lt
}

func (lt *limitTrajectory) end() []int64 {
	close(lt.stop)
	<-lt.done
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.values
}

// assertLimit checks the gauge with the generated helper once it has reached want.
func assertLimit(t *testing.T, tel *componenttest.Telemetry, want int64, phase string) {
	t.Helper()
	require.Eventually(t, func() bool {
		v, ok := concurrencyLimit(tel)
		return ok && v == want
	}, time.Minute, time.Millisecond, "%s: the concurrency limit reaches %d", phase, want)
	metadatatest.AssertEqualElasticsearchBulkRequestsConcurrencyLimit(t, tel,
		[]metricdata.DataPoint[int64]{{Value: want}}, metricdatatest.IgnoreTimestamp())
}

// assertLimitGrows waits until the gauge is above 1.
func assertLimitGrows(t *testing.T, tel *componenttest.Telemetry, phase string) {
	t.Helper()
	require.Eventually(t, func() bool {
		v, ok := concurrencyLimit(tel)
		return ok && v > 1
	}, time.Minute, time.Millisecond, "%s: the concurrency limit grows above 1", phase)
}

// serviceTime is how long the fake Elasticsearch of TestAdaptiveConcurrencyUnder429 holds each
// bulk request, so that the round-trip time of a request is mostly the server's own.
const serviceTime = 20 * time.Millisecond

// TestAdaptiveConcurrencyUnder429 sends a load that keeps every consumer busy through the logs
// exporter to a fake Elasticsearch that answers 429 for a while, first for every document,
// then for whole requests: the limit on concurrent bulk requests starts low (2), shrinks to 1
// under each kind of 429 and grows again once the server accepts.
// Nothing is lost.
//
// Each condition is a state the limiter reaches by its rules whatever the machine's speed:
// under 429s every window meets back-pressure, so the limit falls to 1 and stays there; once
// they stop, the limit of 1 is reached in every window (more producers than consumers keep the
// blocking queue full), its requests fill most of the 8 KB request size limit, so they are of a
// size worth another slot, and one request at a time is no slower than the baseline learned with
// several in flight, so it grows. How far it grows is not asserted here: the limiter holds it
// back when round-trip times rise, and on a loaded machine they rise with the concurrency of
// this very process (client and server). The whole trajectory, window by window, back to the
// maximum, is pinned with a clock of its own in internal/bulk's
// TestLimiterShrinksUnderBackpressureAndRecovers.
func TestAdaptiveConcurrencyUnder429(t *testing.T) {
	srv := fakees.New(t)
	var rejectRequests atomic.Bool
	srv.OnRequest = func(*http.Request, []fakees.Item) int {
		time.Sleep(serviceTime)
		if rejectRequests.Load() {
			return http.StatusTooManyRequests
		}
		return 0
	}
	cfg := elasticsearchexporter.FaultConfig(srv.URL)
	const consumers = 6
	q := cfg.QueueBatchConfig.Get()
	q.NumConsumers = consumers
	// A queue of a few requests, not the default 20 MiB: the load is tiny requests as fast as the
	// queue takes them, and what the queue holds when the load stops is delivered within the
	// test's wait below.
	q.Sizer = exporterhelper.RequestSizerTypeRequests
	q.QueueSize = 2 * consumers
	cfg.FlowControl.MaxConcurrentRequests = consumers
	b := q.Batch.Get()
	b.MinSize = 4 << 10
	b.MaxSize = 8 << 10
	b.FlushTimeout = time.Millisecond
	require.NoError(t, cfg.Validate())

	exp, tel := startLogsExporter(t, cfg)
	assertLimit(t, tel, 2, "before any request: the limit starts low")
	trajectory := watchLimit(tel)

	// The load: pushes of 20 records from twice as many producers as consumers, each as fast
	// as the blocking queue takes them. Record numbers are unique across producers.
	stop := make(chan struct{})
	var sent, next atomic.Int64
	var wg sync.WaitGroup
	for range 2 * consumers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				seq := int(next.Add(20) - 20)
				if err := exp.ConsumeLogs(context.Background(), elasticsearchexporter.FaultLogBatch(seq, 20, nil)); err != nil {
					t.Errorf("push: %v", err)
					return
				}
				sent.Add(20)
			}
		})
	}

	require.Eventually(t, func() bool { return srv.Stats().Accepted > 2000 }, time.Minute, time.Millisecond)

	srv.SetFaults(fakees.Faults{ItemStatusRate: 1, ItemStatus: http.StatusTooManyRequests})
	assertLimit(t, tel, 1, "every document answered 429")
	srv.SetFaults(fakees.Faults{})
	assertLimitGrows(t, tel, "document 429s ended")

	rejectRequests.Store(true)
	assertLimit(t, tel, 1, "every request answered 429")
	rejectRequests.Store(false)
	assertLimitGrows(t, tel, "request 429s ended")

	close(stop)
	wg.Wait()
	require.Eventually(t, func() bool { return int64(srv.Stats().Accepted) == sent.Load() }, time.Minute, time.Millisecond,
		"every record is indexed")
	// The trajectory is sampled every millisecond, so it may miss a short-lived value: it is
	// logged to show how the limit moved, and the assertions above are the ones that hold.
	t.Logf("concurrency limit trajectory: %v", trajectory.end())
	t.Logf("records: %d; item faults %d", sent.Load(), srv.Stats().ItemFaults)
	assert.Equal(t, sent.Load(), int64(len(srv.AcceptedIDs())), "each record once")
}

// requestSizes records the documents of each bulk request a fake Elasticsearch receives, and
// when the first arrived.
type requestSizes struct {
	mu    sync.Mutex
	docs  []int
	first []time.Time
}

func (r *requestSizes) observe(items []fakees.Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.docs = append(r.docs, len(items))
	r.first = append(r.first, time.Now())
}

func (r *requestSizes) get() ([]int, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.docs), slices.Clone(r.first)
}

// defaultLogsExporter starts the logs exporter at the defaults (deterministic ids on, to count
// each record once) against srv.
func defaultLogsExporter(t *testing.T, srv *fakees.Server) (exporter.Logs, *componenttest.Telemetry) {
	t.Helper()
	cfg := elasticsearchexporter.DefaultWith()
	cfg.Endpoints = []string{srv.URL}
	cfg.DeterministicIDs.Enabled = true
	require.NoError(t, cfg.Validate())
	return startLogsExporter(t, cfg)
}

// startLogsExporter starts the logs exporter of cfg with telemetry of its own, shut down at
// the end of the test.
func startLogsExporter(t *testing.T, cfg *elasticsearchexporter.Config) (exporter.Logs, *componenttest.Telemetry) {
	t.Helper()
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	exp, err := elasticsearchexporter.NewFactory().CreateLogs(context.Background(), metadatatest.NewSettings(tel), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		assert.NoError(t, exp.Shutdown(ctx))
	})
	return exp, tel
}

// At the defaults, a push that arrives while nothing is in flight is sent at once, in a
// request of its own: nothing holds it back waiting for company.
func TestDefaultsSendALonePushAtOnce(t *testing.T) {
	srv := fakees.New(t)
	var sizes requestSizes
	srv.OnRequest = func(_ *http.Request, items []fakees.Item) int {
		sizes.observe(items)
		return 0
	}
	exp, _ := defaultLogsExporter(t, srv)
	const pushes, records = 10, 50
	for i := range pushes {
		start := time.Now()
		require.NoError(t, exp.ConsumeLogs(context.Background(), elasticsearchexporter.FaultLogBatch(i*records, records, nil)))
		require.Eventually(t, func() bool { return srv.Stats().Accepted == (i+1)*records }, 10*time.Second, time.Millisecond)
		_, first := sizes.get()
		// Generous for a loaded machine, far below any timer that would wait for company
		// (the batch's flush_timeout is 10 s).
		assert.Less(t, first[i].Sub(start), 2*time.Second, "push %d reached Elasticsearch at once", i)
	}
	docs, _ := sizes.get()
	assert.Equal(t, slices.Repeat([]int{records}, pushes), docs, "each push alone in its request")
}

// At the defaults, small pushes that arrive together, while the server takes its time, share
// bulk requests: far fewer requests than pushes, and nothing lost.
func TestDefaultsShareRequestsOfSmallPushes(t *testing.T) {
	srv := fakees.New(t)
	var sizes requestSizes
	srv.OnRequest = func(_ *http.Request, items []fakees.Item) int {
		sizes.observe(items)
		time.Sleep(20 * time.Millisecond)
		return 0
	}
	exp, tel := defaultLogsExporter(t, srv)
	const producers, pushesEach, records = 32, 10, 50
	var wg sync.WaitGroup
	var next atomic.Int64
	for range producers {
		wg.Go(func() {
			for range pushesEach {
				seq := int(next.Add(records) - records)
				assert.NoError(t, exp.ConsumeLogs(context.Background(), elasticsearchexporter.FaultLogBatch(seq, records, nil)))
			}
		})
	}
	wg.Wait()
	const total = producers * pushesEach * records
	require.Eventually(t, func() bool { return srv.Stats().Accepted == total }, time.Minute, time.Millisecond)
	assert.Len(t, srv.AcceptedIDs(), total, "each record once")

	docs, _ := sizes.get()
	t.Logf("documents per bulk request: %v", docs)
	assert.Less(t, len(docs), producers*pushesEach/4, "pushes share requests: at least 4 pushes per request on average")
	assert.Greater(t, slices.Max(docs), 5*records)

	// The histogram of documents per request tells the same, once the last request is
	// recorded (after its answer).
	var count uint64
	var sum int64
	require.Eventually(t, func() bool {
		m, err := tel.GetMetric("otelcol.elasticsearch.bulk_requests.documents")
		if err != nil {
			return false
		}
		count, sum = 0, 0
		for _, p := range m.Data.(metricdata.Histogram[int64]).DataPoints {
			count += p.Count
			sum += p.Sum
		}
		return sum == total
	}, 10*time.Second, time.Millisecond)
	assert.Equal(t, uint64(len(docs)), count)
}
