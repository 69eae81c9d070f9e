package loadgen

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The metrics of a run describe the HTTP routes of the logs and traces: one time series per
// route (data point attributes loadgen.run_id, http.route and http.request.method), sampled
// every MetricInterval, with one data point of each of MetricNames per route and sample. The
// data points of one route and sample share everything the exporter groups by, so they make
// one document; the documents of a run are numbered 0, 1, ... and document d is route
// d % 5 at sample d / 5. Data point i of a run is metric i % MetricsPerDocument of document
// i / MetricsPerDocument. The samples end at the start of the run, one MetricInterval apart.

// MetricUnit is the unit of every metric; the exporter groups by unit too.
const MetricUnit = "{request}"

// MetricInterval is the time between two samples of a route.
const MetricInterval = time.Second

// The metrics, one of each kind the exporter maps (its dynamic template in parentheses).
const (
	// MetricRequestCount is a monotonic cumulative sum of integers (counter_long).
	MetricRequestCount = "http.server.request.count"
	// MetricEstimatedCount is a monotonic cumulative sum of doubles (counter_double): the
	// count extrapolated from sampled requests.
	MetricEstimatedCount = "http.server.request.estimated_count"
	// MetricActiveRequests is a gauge of integers (gauge_long).
	MetricActiveRequests = "http.server.active_requests"
	// MetricQueueLength is a gauge of doubles (gauge_double): the mean queue length over the
	// interval.
	MetricQueueLength = "http.server.queue.length"
)

// MetricNames lists the metrics in the order of their data points: data point i is of metric
// MetricNames[i % MetricsPerDocument].
var MetricNames = []string{MetricRequestCount, MetricEstimatedCount, MetricActiveRequests, MetricQueueLength}

// MetricTemplates maps each metric to the dynamic template the exporter asks Elasticsearch to
// map it with.
var MetricTemplates = map[string]string{
	MetricRequestCount:   "counter_long",
	MetricEstimatedCount: "counter_double",
	MetricActiveRequests: "gauge_long",
	MetricQueueLength:    "gauge_double",
}

// MetricsPerDocument is the number of data points in each document but maybe the last.
const MetricsPerDocument = 4

// MetricDocuments returns the number of documents that the exporter writes for the first n
// data points of a run, provided that the data points of one document reach it in one push:
// Run never splits a document over two requests, and the collector splits a request only
// when its batch exceeds the batcher's max_size.
func MetricDocuments(n int) int {
	return (n + MetricsPerDocument - 1) / MetricsPerDocument
}

// MetricValues returns the values of document d: the request count, the estimated count, the
// active requests and the queue length. Both counts grow from one sample of a route to the
// next.
func MetricValues(d int) (count int64, estimated float64, active int64, queue float64) {
	route, sample := d%len(routes), d/len(routes)
	count = int64(sample+1) * int64(20+7*route)
	estimated = float64(count)*1.25 + 0.5
	active = int64(d*7%13) + 1
	queue = float64(d*3%10)/4 + 0.125
	return count, estimated, active, queue
}

// metrics returns data points first to first+n-1 of the run; first is a multiple of
// MetricsPerDocument.
func (g *generator) metrics(first, n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	g.resource(rm.Resource())
	sm := rm.ScopeMetrics().AppendEmpty()
	scope(sm.Scope())

	// The timeline: the last sample of the run is at its start, in whole milliseconds.
	end := g.now.Truncate(time.Millisecond)
	samples := (MetricDocuments(g.cfg.Metrics) + len(routes) - 1) / len(routes)
	start := pcommon.NewTimestampFromTime(end.Add(-time.Duration(samples) * MetricInterval))

	ms := sm.Metrics()
	var points [MetricsPerDocument]pmetric.NumberDataPointSlice
	for k, name := range MetricNames {
		m := ms.AppendEmpty()
		m.SetName(name)
		m.SetUnit(MetricUnit)
		switch name {
		case MetricRequestCount, MetricEstimatedCount:
			m.SetDescription("Requests served since the start of the run")
			sum := m.SetEmptySum()
			sum.SetIsMonotonic(true)
			sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			points[k] = sum.DataPoints()
		default:
			m.SetDescription("Requests in progress or waiting")
			points[k] = m.SetEmptyGauge().DataPoints()
		}
		points[k].EnsureCapacity((n + MetricsPerDocument - 1) / MetricsPerDocument)
	}
	for i := first; i < first+n; i++ {
		d, k := i/MetricsPerDocument, i%MetricsPerDocument
		route, sample := d%len(routes), d/len(routes)
		dp := points[k].AppendEmpty()
		// Gauges carry the start timestamp too: the exporter groups by it.
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(pcommon.NewTimestampFromTime(end.Add(-time.Duration(samples-1-sample) * MetricInterval)))
		count, estimated, active, queue := MetricValues(d)
		switch k {
		case 0:
			dp.SetIntValue(count)
		case 1:
			dp.SetDoubleValue(estimated)
		case 2:
			dp.SetIntValue(active)
		case 3:
			dp.SetDoubleValue(queue)
		}
		a := dp.Attributes()
		a.PutStr(RunIDAttribute, g.cfg.RunID)
		a.PutStr("http.request.method", methods[route])
		a.PutStr("http.route", routes[route])
	}
	return md
}
