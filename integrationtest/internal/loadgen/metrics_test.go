package loadgen

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// encoded is the metric documents the exporter's encoder writes, with their templates.
type encoded struct {
	docs      []map[string]any
	templates []map[string]string
}

var metricsStream = serializer.DataStream{Type: "metrics", Dataset: "generic.otel", Namespace: "default"}

// encode returns the documents that the exporter's encoder makes of md in one push, each data
// point bound for one data stream, as the pipeline has the encoder write them
// (internal/pipeline/metrics.go).
func encode(md pmetric.Metrics) *encoded {
	var enc serializer.Encoder
	s := &encoded{}
	enc.BeginMetrics()
	for _, rm := range md.ResourceMetrics().All() {
		enc.AddMetricsResource(rm)
		for _, sm := range rm.ScopeMetrics().All() {
			enc.AddMetricsScope(sm)
			for _, m := range sm.Metrics().All() {
				n, rj := enc.AddMetric(m)
				if rj.Reason != "" {
					panic("data points not written: " + rj.Reason)
				}
				for i := range n {
					if enc.MetricPoint(i).NoIndex {
						panic("data point with the _noindex hint")
					}
					enc.AddMetricPoint(enc.MetricTarget("metrics-generic.otel-default", metricsStream))
				}
			}
		}
	}
	enc.GroupMetrics()
	for {
		d, out, more := enc.AppendMetricsDocument(nil)
		if !more {
			return s
		}
		if len(out.Rejected) > 0 || out.NonFinite > 0 || !out.Written {
			panic("data points not written")
		}
		var doc map[string]any
		if err := json.Unmarshal(d, &doc); err != nil {
			panic(err)
		}
		s.docs = append(s.docs, doc)
		tpl := map[string]string{}
		for _, t := range out.Templates {
			tpl[t.Path] = t.Template
		}
		s.templates = append(s.templates, tpl)
	}
}

// TestMetricDocuments sends runs to a fake receiver and encodes each request as the exporter
// does: the documents number MetricDocuments(n) whether the requests are pushed one by one or
// merged into one push, and hold n data points in all.
func TestMetricDocuments(t *testing.T) {
	for _, tc := range []struct{ points, batch int }{
		{1, 500}, {4, 500}, {7, 3}, {1000, 100}, {999, 10}, {2003, 500},
	} {
		var mu sync.Mutex
		var requests []pmetric.Metrics
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			assert.Equal(t, "/v1/metrics", r.URL.Path)
			b, _ := io.ReadAll(r.Body)
			req := pmetricotlp.NewExportRequest()
			if !assert.NoError(t, req.UnmarshalProto(b)) {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			mu.Lock()
			requests = append(requests, req.Metrics())
			mu.Unlock()
		}))
		cfg := DefaultConfig()
		cfg.Endpoint, cfg.Metrics, cfg.Batch, cfg.RunID = srv.URL, tc.points, tc.batch, "test"
		res, err := Run(context.Background(), cfg)
		srv.Close()
		require.NoError(t, err)
		want := MetricDocuments(tc.points)
		assert.Equal(t, tc.points, res.DataPoints)
		assert.Equal(t, want, res.MetricDocs)
		assert.Equal(t, len(requests), res.MetricRequests)

		merged := pmetric.NewMetrics()
		docs, points := 0, 0
		for i, md := range requests {
			if i < len(requests)-1 {
				assert.Zero(t, md.DataPointCount()%MetricsPerDocument, "request %d ends in a partial document", i)
			}
			s := encode(md)
			docs += len(s.docs)
			for _, d := range s.docs {
				points += len(d["metrics"].(map[string]any))
			}
			md.ResourceMetrics().MoveAndAppendTo(merged.ResourceMetrics())
		}
		assert.Equal(t, want, docs, "%d points, batch %d: documents, request by request", tc.points, tc.batch)
		assert.Equal(t, tc.points, points, "%d points, batch %d: metrics in the documents", tc.points, tc.batch)
		assert.Len(t, encode(merged).docs, want, "%d points, batch %d: documents, all requests in one push", tc.points, tc.batch)
	}
}

// TestMetricDocumentFields checks document 0: its values, and the dynamic templates the
// exporter asks for.
func TestMetricDocumentFields(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Metrics, cfg.RunID = 40, "test"
	g := &generator{cfg: cfg, now: time.Now()}
	s := encode(g.metrics(0, 40))
	require.Len(t, s.docs, 10)
	var doc map[string]any
	var tpl map[string]string
	for i, d := range s.docs {
		attrs := d["attributes"].(map[string]any)
		if attrs["http.route"] == "/api/orders" && (doc == nil || d["@timestamp"].(float64) < doc["@timestamp"].(float64)) {
			doc, tpl = d, s.templates[i]
		}
	}
	require.NotNil(t, doc)
	count, estimated, active, queue := MetricValues(0)
	assert.Equal(t, map[string]any{
		MetricRequestCount:   float64(count),
		MetricEstimatedCount: estimated,
		MetricActiveRequests: float64(active),
		MetricQueueLength:    queue,
	}, doc["metrics"])
	assert.Equal(t, map[string]any{RunIDAttribute: "test", "http.route": "/api/orders", "http.request.method": "GET"}, doc["attributes"])
	assert.Equal(t, MetricUnit, doc["unit"])
	for name, want := range MetricTemplates {
		assert.Equal(t, want, tpl["metrics."+name], name)
	}
	// Two samples of a route: 1 s apart, the later one at the start of the run.
	assert.Equal(t, g.now.UnixMilli()-1000, int64(doc["@timestamp"].(float64)))
	assert.Equal(t, g.now.UnixMilli()-2000, int64(doc["start_timestamp"].(float64)))
	assert.EqualValues(t, 20, count)
	next, _, _, _ := MetricValues(5)
	assert.Equal(t, 2*count, next, "the counter of route 0 at sample 1")
}
