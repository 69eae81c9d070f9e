// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package routing computes the Elasticsearch index or data stream that each document goes to in
// mapping mode otel, and names the attributes that routing and the exporter consume.
//
// The target of a document is decided in this order, first match wins:
//
//  1. The static index from the configuration (logs_index, metrics_index, traces_index). The
//     document is not sent to a data stream.
//  2. The attribute elasticsearch.index, taken from the first level that has it, looking at the
//     record (log record, data point, span or span event), then its scope, then its resource. It
//     wins over data_stream.* at every level, even a data_stream.* attribute on the record when
//     elasticsearch.index is only on the resource. The value is used verbatim, so a value that
//     Elasticsearch cannot accept as an index name is an error, never sent, and so is a name
//     that starts with "." unless the configuration allows it (confine.go).
//  3. The data stream <type>-<dataset>.otel-<namespace>. The type is the signal's (span events
//     are logs); data_stream.type is ignored. The dataset and the namespace are each looked up on
//     their own, record, then scope, then resource. When no level has a dataset, it is derived
//     from the scope (see [Router.Route]), else it is "generic". The namespace defaults to
//     "default". Both are sanitized the way Elasticsearch requires.
//
// When the configuration lists allowed targets, the name chosen by 2 or 3 must match one of
// them (confine.go). When logstash_format is enabled, the date of the record's timestamp is
// appended to whichever name was chosen.
//
// The other mapping modes change two things (see [Router.SetMode]): the dataset carries no .otel
// suffix, and in mode bodymap the type may come from the attribute data_stream.type.
// [Router.SetDataset] fixes the dataset instead of looking it up: the span events of the ecs
// mode bound for Elastic APM's data streams (apm.go).
//
// Out of scope: the legacy elasticsearch.index.prefix and elasticsearch.index.suffix attributes,
// and writing documents. Routing never mutates pdata: instead of setting the
// data_stream.* attributes on the record, it returns them in a [Target], and the serializer
// leaves out every attribute for which [controlattr.Is] is true.
package routing // import "github.com/otelcol-es/elasticsearchexporter/internal/routing"

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

const (
	// DefaultDataset is the dataset when neither an attribute nor the scope gives one.
	DefaultDataset = "generic"
	// DefaultNamespace is the namespace when no attribute gives one.
	DefaultNamespace = "default"
	// DatasetSuffix is appended to every dataset in mapping mode otel, so that data streams
	// match Elasticsearch's built-in <type>-*.otel-* index templates.
	DatasetSuffix = ".otel"
	// CollectorTelemetryDataset is the dataset derived for the collector's own telemetry.
	CollectorTelemetryDataset = "collectortelemetry"

	// DefaultPrefixSeparator is the default logstash_format.prefix_separator.
	DefaultPrefixSeparator = "-"
	// DefaultDateFormat is the default logstash_format.date_format.
	DefaultDateFormat = "%Y.%m.%d"

	// maxDataStreamPartBytes is the longest dataset (suffix included) or namespace that
	// Elasticsearch allows.
	maxDataStreamPartBytes = 100
	// maxIndexBytes is Elasticsearch's limit on the length of an index name.
	maxIndexBytes = 255
)

// Settings holds the routing part of the exporter configuration. The zero value routes every
// document to its data stream.
type Settings struct {
	// StaticIndex is logs_index, metrics_index or traces_index, depending on the signal. When
	// set it wins over every attribute; it is validated by [NewRouter].
	StaticIndex string
	// LogstashFormat is logstash_format.enabled: append PrefixSeparator and the record's date.
	LogstashFormat bool
	// PrefixSeparator is logstash_format.prefix_separator. Empty means DefaultPrefixSeparator.
	PrefixSeparator string
	// DateFormat is logstash_format.date_format, a strftime pattern. Empty means
	// DefaultDateFormat. See [NewRouter] for the supported verbs.
	DateFormat string
	// AllowDotTargets is dynamic_routing::allow_dot_targets: elasticsearch.index may name an
	// index that starts with "." (see confine.go). False refuses such names.
	AllowDotTargets bool
	// AllowedTargets is dynamic_routing::allowed_targets: when not empty, patterns ("*" matches
	// any run of characters) that every name routed without a static index must match, before
	// the logstash_format date; it is checked by [NewRouter].
	AllowedTargets []string
}

// Pattern is an index pattern covering every name that documents of type typ are routed to
// under s, except the values of elasticsearch.index, which only the records know: the static
// index (followed by the separator and * for its date under logstash_format), else
// "<type>-*-*", the data streams (and their dated names under logstash_format).
func (s Settings) Pattern(typ signal.Kind) string {
	if s.StaticIndex == "" {
		return typ.String() + "-*-*"
	}
	if !s.LogstashFormat {
		return s.StaticIndex
	}
	sep := s.PrefixSeparator
	if sep == "" {
		sep = DefaultPrefixSeparator
	}
	return s.StaticIndex + sep + "*"
}

// Target is where one document goes.
type Target struct {
	// Index is the index or data stream name, the bulk item's _index.
	Index string
	// DataStream is true when Index is a data stream resolved from attributes and defaults: the
	// bulk item then carries require_data_stream and the document a data_stream object made of
	// Type, Dataset and Namespace. It is false for a static index, for elasticsearch.index and
	// whenever logstash_format is enabled.
	DataStream bool
	// Type, Dataset and Namespace are the data_stream fields, each a part of Index; empty when
	// DataStream is false. Dataset includes DatasetSuffix ("generic.otel"), as the document's
	// data_stream.dataset must.
	Type, Dataset, Namespace string
}

// Router resolves the Target of documents. It keeps the bytes of the name it is building and
// the last Target it returned, so that routing a document to the same place as the previous one
// does not allocate.
//
// A Router is NOT safe for concurrent use; pool one per goroutine.
type Router struct {
	static    string
	logstash  bool
	separator string
	date      []dateVerb

	// buf holds the name being built; it is reused by every call.
	buf []byte
	// last is the Target returned by the previous successful call; valid tells whether
	// there has been one.
	last  Target
	valid bool

	// suffix is appended to every dataset: DatasetSuffix in mapping mode otel, else empty.
	suffix string
	// typeFromAttribute lets data_stream.type (logs or metrics) choose the type.
	typeFromAttribute bool
	// dataset, when set (SetDataset), is the dataset of every data stream name.
	dataset string

	// scope is the scope set by SetScope and what has been resolved for it; see RouteRecord.
	scope scopeState
	// empty stands for the attributes of a record that holds no routing attribute.
	empty pcommon.Map
	// datePeriod is how long, in nanoseconds, the date format's output stays the same.
	datePeriod uint64

	// allowDot and allowed are the confinement rules (confine.go); allowed is nil when every
	// name is allowed.
	allowDot bool
	allowed  patterns
}

// SetMode sets how the data stream name is built for the mapping mode of the documents routed
// next. otel appends DatasetSuffix to the dataset (mapping mode otel); without it the dataset is
// used as it is (ecs, none, raw, bodymap). typeFromAttribute lets the attribute
// data_stream.type, looked up on the record, then the scope, then the resource, choose the type
// when its value is "logs" or "metrics" (mapping mode bodymap); other values are ignored. A new
// Router routes for mode otel. The scope set by SetScope stays, but what RouteRecord resolved
// for it is discarded.
func (r *Router) SetMode(otel, typeFromAttribute bool) {
	r.suffix = ""
	if otel {
		r.suffix = DatasetSuffix
	}
	r.typeFromAttribute = typeFromAttribute
	r.scope.ready = false
}

// NewRouter returns a Router for one signal's settings. It rejects a static index that
// Elasticsearch cannot accept, and a date format or prefix separator that cannot be used in an
// index name. The date format is checked even when logstash_format is disabled, so that a typo
// is reported before it is switched on.
//
// The date format takes the strftime verbs of contrib's formatter (lestrrat-go/strftime v1.1.0)
// whose output can be part of an index name: %Y and %y (year, four and two digits), %C
// (century), %m (month), %d (day of the month), %F (%Y-%m-%d), %H and %I (hour, 24- and 12-hour
// clock), %p (am or pm), %M (minute), %S (second), %j (day of the year, three digits), %U, %W
// and %V (week of the year, weeks starting on Sunday, on Monday, and ISO 8601), %u and %w
// (weekday as a number, Monday 1 to Sunday 7, and Sunday 0 to Saturday 6), %b, %h and %B
// (abbreviated and full month name), %a and %A (abbreviated and full weekday name), %Z and %z
// (the time zone, always UTC: utc and +0000) and %% (a percent sign). Numbers are zero-padded
// as contrib pads them. Names are written in English and in lower case, because Elasticsearch
// rejects index names with upper-case letters (contrib writes them capitalized, and then every
// document is rejected). The other verbs of contrib's formatter write spaces, colons, slashes
// or control characters, which no index name may hold, and are refused, as are verbs it does
// not know.
func NewRouter(s Settings) (*Router, error) {
	r := &Router{
		static:    s.StaticIndex,
		logstash:  s.LogstashFormat,
		separator: s.PrefixSeparator,
		buf:       make([]byte, 0, maxIndexBytes),
		suffix:    DatasetSuffix,
		empty:     pcommon.NewMap(),
		allowDot:  s.AllowDotTargets,
	}
	if r.separator == "" {
		r.separator = DefaultPrefixSeparator
	}
	format := s.DateFormat
	if format == "" {
		format = DefaultDateFormat
	}
	var err error
	if r.date, err = parseDateFormat(format); err != nil {
		return nil, err
	}
	r.datePeriod = datePeriod(r.date)
	if r.allowed, err = compilePatterns(s.AllowedTargets); err != nil {
		return nil, fmt.Errorf("invalid dynamic_routing::allowed_targets: %w", err)
	}
	if err := checkLiteral(r.separator); err != nil {
		return nil, fmt.Errorf("invalid logstash_format prefix_separator %q: %w", r.separator, err)
	}
	if r.static != "" {
		if reason := indexNameProblem(r.static); reason != "" {
			return nil, &InvalidIndexNameError{Name: r.static, Source: "static index", Reason: reason}
		}
	}
	return r, nil
}

// Route resolves the Target of one document of type typ (signal.Logs, signal.Metrics or
// signal.Traces, whose names are the type part of a data stream name; span events are
// signal.Logs). record, scope and resource are the attributes of the record (log
// record, data point, span or span event), of its instrumentation scope and of its resource;
// pass an empty map, never a zero pcommon.Map, for a level that has none. scopeName is the
// instrumentation scope's name. ts is the record's timestamp, used only by logstash_format.
//
// Dataset and namespace attributes of any type are accepted and converted the way pdata's
// Value.AsString does (42, true, 1.5); an empty value (an empty string, empty bytes or an empty
// Value) counts as absent, so the lookup goes on to the next level and then to the default,
// because a data stream name with an empty part is unusable. Strings, integers, booleans and
// doubles are converted without allocating; maps, slices and bytes go through AsString.
//
// Only when no level has a dataset is it derived from the scope, first match wins:
//   - the collector's own telemetry, a scope name that is go.opentelemetry.io/collector/ followed
//     by receiver/receiverhelper, scraper/scraperhelper, processor/processorhelper,
//     exporter/exporterhelper or service, either exactly or followed by "/" and more path (so
//     .../service/internal/graph matches, a hypothetical .../servicegraph does not), gives
//     "collectortelemetry";
//   - the scope attribute encoding.format, when it is a non-empty string;
//   - the first path segment <name>receiver, with a non-empty <name>, that directly follows a
//     segment "receiver" (/receiver/<name>receiver, ending at "/" or at the end of the scope
//     name) gives "<name>receiver". A bare /receiver/receiver does not count.
//
// Dataset and namespace are sanitized as Elasticsearch requires: lower-cased with Go's
// unicode.ToLower, rune by rune; in the dataset each of - \ / * ? " < > | , # : and the space
// becomes "_", in the namespace the same set except "-". Each byte that is not valid UTF-8 also
// becomes "_", like any other character that cannot be in a name. The dataset, with its
// suffix (".otel" in the otel mode: 95 bytes are left for the dataset itself; none in the other
// modes: 100 bytes), and the namespace are then cut to 100 bytes each, at a character boundary:
// a character that would straddle the limit is dropped whole.
//
// With logstash_format, PrefixSeparator and the date are appended to the chosen name, and the
// result is a plain index, never a data stream (a date-suffixed name is not a data stream name
// of the form type-dataset-namespace). The date is that of ts in UTC, not of the wall clock, so
// a replay after an outage lands in the day the data belongs to. A zero ts gives the Unix epoch
// (1970-01-01); callers that want a fallback, such as the observed time of a log record whose
// time is unset, pass the timestamp they write as @timestamp.
//
// An error is returned, and nothing should be sent, when typ is unknown, when
// elasticsearch.index holds a value that Elasticsearch cannot accept as an index name (an
// [*InvalidIndexNameError]), when the name is one the configuration does not allow (a
// [*TargetNotAllowedError], see confine.go: a name from elasticsearch.index that starts with
// ".", or a name that matches no pattern of Settings.AllowedTargets), or when the final name
// is longer than 255 bytes.
//
// When the result equals the previous call's, the very same Target (same strings) is returned
// and nothing is allocated; otherwise the new name costs one allocation.
func (r *Router) Route(typ signal.Kind, record, scope, resource pcommon.Map, scopeName string, ts pcommon.Timestamp) (Target, error) {
	if !typ.HasDataStreams() {
		return Target{}, fmt.Errorf("no data stream type for %s documents", typ)
	}
	levels := [3]pcommon.Map{record, scope, resource}
	buf := r.buf[:0]

	if r.static != "" {
		if !r.logstash {
			return Target{Index: r.static}, nil
		}
		buf = append(buf, r.static...)
		return r.plainIndex(buf, ts)
	}

	for level, m := range levels {
		v, ok := m.Get(controlattr.Index)
		if !ok {
			continue
		}
		buf = appendAsString(buf, v)
		if reason := indexNameProblemBytes(buf); reason != "" {
			r.buf = buf[:0]
			return Target{}, &InvalidIndexNameError{Name: string(buf), Source: "attribute " + controlattr.Index, Reason: reason}
		}
		if err := r.confineIndex(buf, level); err != nil {
			r.buf = buf[:0]
			return Target{}, err
		}
		return r.plainIndex(buf, ts)
	}

	if r.typeFromAttribute {
		typ = typeAttribute(levels, typ)
	}
	typeName := typ.String()
	buf = append(buf, typeName...)
	buf = append(buf, '-')
	datasetStart := len(buf)
	maxDataset := maxDataStreamPartBytes - len(r.suffix)
	datasetLevel := -1 // -1: not from an attribute
	var namespaceLevel int
	if r.dataset != "" {
		buf = appendName(buf, r.dataset, true, maxDataset) // SetDataset
	} else if buf, datasetLevel = appendNamePart(buf, levels, controlattr.DataStreamDataset, true, maxDataset); datasetLevel < 0 {
		buf = appendName(buf, derivedDataset(scope, scopeName), true, maxDataset)
	}
	buf = append(buf, r.suffix...)
	datasetEnd := len(buf)
	buf = append(buf, '-')
	namespaceStart := len(buf)
	if buf, namespaceLevel = appendNamePart(buf, levels, controlattr.DataStreamNamespace, false, maxDataStreamPartBytes); namespaceLevel < 0 {
		buf = append(buf, DefaultNamespace...)
	}
	if err := r.confineDataStream(buf, datasetLevel, namespaceLevel); err != nil {
		r.buf = buf[:0]
		return Target{}, err
	}

	if r.logstash {
		return r.plainIndex(buf, ts)
	}
	r.buf = buf
	if r.valid && r.last.DataStream && string(buf) == r.last.Index &&
		len(r.last.Type) == len(typeName) && len(r.last.Dataset) == datasetEnd-datasetStart {
		return r.last, nil
	}
	index := string(buf)
	r.last = Target{
		Index:      index,
		DataStream: true,
		Type:       index[:len(typeName)],
		Dataset:    index[datasetStart:datasetEnd],
		Namespace:  index[namespaceStart:],
	}
	r.valid = true
	return r.last, nil
}

// typeAttribute returns the value of the first data_stream.type attribute when it is "logs" or
// "metrics", else typ.
func typeAttribute(levels [3]pcommon.Map, typ signal.Kind) signal.Kind {
	for _, m := range levels {
		v, ok := m.Get(controlattr.DataStreamType)
		if !ok {
			continue
		}
		if v.Type() == pcommon.ValueTypeStr {
			switch v.Str() {
			case signal.Logs.String():
				return signal.Logs
			case signal.Metrics.String():
				return signal.Metrics
			}
		}
		return typ
	}
	return typ
}

// plainIndex finishes a name that is not a data stream: it appends the logstash_format date when
// enabled, checks the length, and returns the cached Target when the name is unchanged.
func (r *Router) plainIndex(buf []byte, ts pcommon.Timestamp) (Target, error) {
	if r.logstash {
		buf = append(buf, r.separator...)
		buf = appendDate(buf, r.date, ts.AsTime())
	}
	r.buf = buf
	if len(buf) > maxIndexBytes {
		return Target{}, &InvalidIndexNameError{Name: string(buf), Source: "routed name", Reason: reasonTooLong}
	}
	if r.valid && !r.last.DataStream && string(buf) == r.last.Index {
		return r.last, nil
	}
	r.last = Target{Index: string(buf)}
	r.valid = true
	return r.last, nil
}

// appendNamePart appends the sanitized value of the first level whose attribute key is present
// and not empty. It returns that level's index in levels, or -1 when none has one.
func appendNamePart(dst []byte, levels [3]pcommon.Map, key string, replaceDash bool, limit int) ([]byte, int) {
	for level, m := range levels {
		v, ok := m.Get(key)
		if !ok {
			continue
		}
		n := len(dst)
		dst = appendSanitizedValue(dst, v, replaceDash, limit)
		if len(dst) > n {
			return dst, level
		}
	}
	return dst, -1
}

// Scope-derived datasets.
const (
	collectorModule = "go.opentelemetry.io/collector/"
	receiverSegment = "/receiver/"
	receiverSuffix  = "receiver"
)

// collectorTelemetryPackages are the collector packages, under collectorModule, whose scopes
// carry the collector's own telemetry.
var collectorTelemetryPackages = [...]string{
	"receiver/receiverhelper",
	"scraper/scraperhelper",
	"processor/processorhelper",
	"exporter/exporterhelper",
	"service",
}

// derivedDataset returns the dataset derived from the scope, or DefaultDataset. The result is
// not yet sanitized.
func derivedDataset(scope pcommon.Map, scopeName string) string {
	if isCollectorTelemetry(scopeName) {
		return CollectorTelemetryDataset
	}
	if v, ok := scope.Get(EncodingFormatAttribute); ok && v.Type() == pcommon.ValueTypeStr && v.Str() != "" {
		return v.Str()
	}
	if name, ok := receiverName(scopeName); ok {
		return name
	}
	return DefaultDataset
}

// isCollectorTelemetry reports whether scopeName is one of collectorTelemetryPackages, or a path
// below one of them.
func isCollectorTelemetry(scopeName string) bool {
	rest, ok := strings.CutPrefix(scopeName, collectorModule)
	if !ok {
		return false
	}
	for _, pkg := range collectorTelemetryPackages {
		if tail, ok := strings.CutPrefix(rest, pkg); ok && (tail == "" || tail[0] == '/') {
			return true
		}
	}
	return false
}

// receiverName returns the first segment <name>receiver, with a non-empty <name>, that follows a
// segment "receiver" in scopeName.
func receiverName(scopeName string) (string, bool) {
	from := 0
	for {
		i := strings.Index(scopeName[from:], receiverSegment)
		if i < 0 {
			return "", false
		}
		start := from + i + len(receiverSegment)
		segment := scopeName[start:]
		if end := strings.IndexByte(segment, '/'); end >= 0 {
			segment = segment[:end]
		}
		if len(segment) > len(receiverSuffix) && strings.HasSuffix(segment, receiverSuffix) {
			return segment, true
		}
		// Go on from the "/" that ends "/receiver/", which may open the next "/receiver/".
		from = start - 1
	}
}
