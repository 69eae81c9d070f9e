// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/freelist"
	"github.com/otelcol-es/elasticsearchexporter/internal/loglimit"
	"github.com/otelcol-es/elasticsearchexporter/internal/metadata"
	"github.com/otelcol-es/elasticsearchexporter/internal/profilecache"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// Settings are what a Pipeline takes from the exporter's configuration.
type Settings struct {
	// LogsIndex, MetricsIndex and TracesIndex are logs_index, metrics_index and traces_index;
	// span events follow LogsIndex.
	LogsIndex, MetricsIndex, TracesIndex string
	// LogstashFormat, PrefixSeparator and DateFormat are logstash_format's settings.
	LogstashFormat  bool
	PrefixSeparator string
	DateFormat      string
	// AllowDotTargets and AllowedTargets are dynamic_routing's settings (routing.Settings).
	AllowDotTargets bool
	AllowedTargets  []string
	// AllowedModes is mapping::allowed_modes, which Validate has checked.
	AllowedModes []string
	// LogsDynamicID, LogsDynamicPipeline, TracesDynamicID and DeterministicIDs are the
	// corresponding `enabled` switches.
	LogsDynamicID, LogsDynamicPipeline, TracesDynamicID, DeterministicIDs bool
	// ECSSpanEventsToLogs is mapping::ecs_span_events_to_logs: span events of the ecs mode go to
	// Elastic APM's data streams (spanevents.go).
	ECSSpanEventsToLogs bool
	// PersistentQueue tells that the sending queue keeps its batches in a storage extension
	// (see persistentQueueRule).
	PersistentQueue bool
	// NumConsumers is how many push states are kept between pushes, for the pushes of every
	// signal together: sending_queue::num_consumers, how many pushes of one signal run at once
	// (each signal has its own queue), or the exporter's default of it when the sending queue
	// is off and pushes run on the callers' goroutines. The pushes that run beyond it (those of
	// several signals at once, or of callers without a queue) make states that are not kept.
	NumConsumers int
	// MaxInflightBytes is flow_control::max_inflight_bytes; 0: no cap.
	MaxInflightBytes int64
	// LogRateLimit is the least time between two lines about records rejected before sending.
	LogRateLimit time.Duration
}

// Routing returns the routing settings of the documents whose static index (logs_index,
// metrics_index or traces_index) is static.
func (s *Settings) Routing(static string) routing.Settings {
	return routing.Settings{
		StaticIndex:     static,
		LogstashFormat:  s.LogstashFormat,
		PrefixSeparator: s.PrefixSeparator,
		DateFormat:      s.DateFormat,
		AllowDotTargets: s.AllowDotTargets,
		AllowedTargets:  s.AllowedTargets,
	}
}

// DataStreams is told the data stream of each document a push adds, unless it is the one told
// last in that push (the exporter's check of the index templates, cheap for a name it has seen).
type DataStreams interface {
	Observe(index string)
}

// Pipeline runs the pushes of the logs, metrics, traces and profiles exporters of one
// component. Pushes run concurrently; each takes its own state from a free list.
type Pipeline struct {
	set       Settings
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder

	// allowedModes and defaultMode are mapping::allowed_modes and the mode it implies for
	// records that ask for none (DefaultMode), parsed once.
	allowedModes [serializer.NumModes]bool
	defaultMode  serializer.Mode

	// budget caps the bytes held by pushes of every signal, and estimates holds the bytes per
	// record that pushes take room for before they encode (admission.go).
	budget    *bulk.ByteBudget
	estimates [signal.Count]atomic.Int64

	states *freelist.List[*pushState]

	// invalidRouteLog limits the log lines about records rejected before sending.
	invalidRouteLog *loglimit.Limiter

	// profiles records the profiling documents written within their lifetime (profiles.go).
	profiles *profilecache.Cache

	// indexer sends the documents; dataStreams is told each data stream a push writes to.
	indexer     *bulk.Indexer
	dataStreams DataStreams
}

// CheckSettings checks the routing settings, so that a bad static index or date format fails
// at the exporter's creation, before anything is started, with a message that quotes the key.
func CheckSettings(set Settings) error {
	if _, _, _, _, err := newRouters(&set); err != nil {
		return err
	}
	_, err := newAPMRouters(&set)
	return err
}

// New builds the pipeline whose documents ix sends and whose data streams ds is told of, once
// the exporter has started them: the pipeline is complete when it is built. budget is the
// in-flight byte cap that ix shares. ix and ds are nil only for a pipeline that never sends
// (the tests of admission and of the walk).
func New(set Settings, ix *bulk.Indexer, ds DataStreams, budget *bulk.ByteBudget, tel *metadata.TelemetryBuilder, logger *zap.Logger) (*Pipeline, error) {
	p := &Pipeline{
		set: set, logger: logger, telemetry: tel, budget: budget,
		indexer: ix, dataStreams: ds,
		states:          newStateList(set),
		invalidRouteLog: loglimit.New(set.LogRateLimit),
		profiles:        profilecache.New(profilecache.Defaults()),
	}
	p.allowedModes, p.defaultMode = parseModes(set.AllowedModes)
	if set.MaxInflightBytes > 0 && budget != nil {
		// The batches kept between pushes are counted in the cap for good (see newStateList).
		budget.Reserve(stateRetention(set))
	}
	if _, err := p.newPushState(); err != nil {
		return nil, err
	}
	return p, nil
}

// PushLogs sends the log records of ld.
func (p *Pipeline) PushLogs(ctx context.Context, ld plog.Logs) error {
	return push(ctx, p, signal.Logs, ld, ld.LogRecordCount(), walkLogs)
}

// PushMetrics sends the data points of md.
func (p *Pipeline) PushMetrics(ctx context.Context, md pmetric.Metrics) error {
	return push(ctx, p, signal.Metrics, md, md.DataPointCount(), walkMetrics)
}

// PushTraces sends the spans of td and their events. Its records are spans and span events,
// which are documents of their own.
func (p *Pipeline) PushTraces(ctx context.Context, td ptrace.Traces) error {
	n := 0
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			n += spanDocuments(ss.Spans())
		}
	}
	return push(ctx, p, signal.Traces, td, n, walkTraces)
}

// PushProfiles sends the documents of the profiles of pd. Its records are samples: each
// becomes at least one event.
func (p *Pipeline) PushProfiles(ctx context.Context, pd pprofile.Profiles) error {
	return push(ctx, p, signal.Profiles, pd, pd.SampleCount(), walkProfiles)
}

// push is the path that every signal's push takes: admission under the in-flight byte cap,
// a push state from the free list with a batch buffer of the estimated size (admission.go),
// the mapping modes of the request, the walk of the signal's
// data (which routes, encodes and batches each record), then the send and its accounting.
func push[T any](ctx context.Context, p *Pipeline, sig signal.Kind, data T, records int, walk func(context.Context, *pushState, T)) error {
	a, err := p.admit(ctx, sig, records)
	if err != nil {
		return err
	}
	defer func() { p.budget.Release(a.held) }()
	st, err := p.getState()
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	defer p.putState(st)
	growBatch(&st.batch, a.encoded, records)
	// The modes live in the push state: the walk is called through a function value, to which
	// a pointer to a local would escape (an allocation per push).
	st.modes = p.newModes(ctx, sig)
	walk(ctx, st, data)
	res, err := p.send(ctx, st, &a)
	if sig == signal.Profiles {
		st.forgetUnstoredProfiles(res)
	}
	return err
}
