// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package routing

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

type routeCase struct {
	name      string
	settings  Settings
	typ       signal.Kind // signal.Logs, the zero value, when unset
	record    map[string]any
	scope     map[string]any
	resource  map[string]any
	scopeName string
	ts        pcommon.Timestamp
	want      Target
	wantErr   string
}

func runRouteCases(t *testing.T, tests []routeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRouter(tt.settings)
			require.NoError(t, err)
			typ := tt.typ
			record, scope, resource := attrs(t, tt.record), attrs(t, tt.scope), attrs(t, tt.resource)
			got, err := r.Route(typ, record, scope, resource, tt.scopeName, tt.ts)
			requireScopedRoute(t, tt.settings, typ, record, scope, resource, tt.scopeName, tt.ts)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, Target{}, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if got.DataStream {
				assert.Empty(t, indexNameProblem(got.Index), "data stream name must be a valid index name")
			}
		})
	}
}

func TestRoutePrecedence(t *testing.T) {
	runRouteCases(t, []routeCase{
		{
			name: "defaults logs",
			want: dataStream("logs", "generic.otel", "default"),
		},
		{
			name: "defaults metrics",
			typ:  signal.Metrics,
			want: dataStream("metrics", "generic.otel", "default"),
		},
		{
			name: "defaults traces",
			typ:  signal.Traces,
			want: dataStream("traces", "generic.otel", "default"),
		},
		{
			name:     "dataset record over scope over resource",
			record:   map[string]any{controlattr.DataStreamDataset: "rec"},
			scope:    map[string]any{controlattr.DataStreamDataset: "scope"},
			resource: map[string]any{controlattr.DataStreamDataset: "res"},
			want:     dataStream("logs", "rec.otel", "default"),
		},
		{
			name:     "dataset scope over resource",
			scope:    map[string]any{controlattr.DataStreamDataset: "scope"},
			resource: map[string]any{controlattr.DataStreamDataset: "res"},
			want:     dataStream("logs", "scope.otel", "default"),
		},
		{
			name:     "dataset from resource",
			resource: map[string]any{controlattr.DataStreamDataset: "res"},
			want:     dataStream("logs", "res.otel", "default"),
		},
		{
			name:     "namespace record over scope over resource",
			record:   map[string]any{controlattr.DataStreamNamespace: "rec"},
			scope:    map[string]any{controlattr.DataStreamNamespace: "scope"},
			resource: map[string]any{controlattr.DataStreamNamespace: "res"},
			want:     dataStream("logs", "generic.otel", "rec"),
		},
		{
			name:     "namespace scope over resource",
			scope:    map[string]any{controlattr.DataStreamNamespace: "scope"},
			resource: map[string]any{controlattr.DataStreamNamespace: "res"},
			want:     dataStream("logs", "generic.otel", "scope"),
		},
		{
			name:     "namespace from resource",
			resource: map[string]any{controlattr.DataStreamNamespace: "res"},
			want:     dataStream("logs", "generic.otel", "res"),
		},
		{
			name:     "dataset and namespace looked up independently",
			record:   map[string]any{controlattr.DataStreamNamespace: "prod"},
			resource: map[string]any{controlattr.DataStreamDataset: "nginx"},
			want:     dataStream("logs", "nginx.otel", "prod"),
		},
		{
			name:   "data_stream.type attribute is ignored",
			typ:    signal.Metrics,
			record: map[string]any{controlattr.DataStreamType: "logs"},
			want:   dataStream("metrics", "generic.otel", "default"),
		},
		{
			name:   "elasticsearch.index on record",
			record: map[string]any{controlattr.Index: "my-index"},
			want:   index("my-index"),
		},
		{
			name:     "elasticsearch.index record over scope over resource",
			record:   map[string]any{controlattr.Index: "rec"},
			scope:    map[string]any{controlattr.Index: "scope"},
			resource: map[string]any{controlattr.Index: "res"},
			want:     index("rec"),
		},
		{
			name:     "elasticsearch.index scope over resource",
			scope:    map[string]any{controlattr.Index: "scope"},
			resource: map[string]any{controlattr.Index: "res"},
			want:     index("scope"),
		},
		{
			name:     "elasticsearch.index on resource wins over data_stream on record",
			record:   map[string]any{controlattr.DataStreamDataset: "rec", controlattr.DataStreamNamespace: "rec"},
			scope:    map[string]any{controlattr.DataStreamDataset: "scope"},
			resource: map[string]any{controlattr.Index: "res-index"},
			want:     index("res-index"),
		},
		{
			name:      "elasticsearch.index wins over scope-derived dataset",
			scope:     map[string]any{controlattr.Index: "scope-index", EncodingFormatAttribute: "aws.vpcflow"},
			scopeName: "go.opentelemetry.io/collector/service",
			want:      index("scope-index"),
		},
		{
			name:     "static index wins over every attribute",
			settings: Settings{StaticIndex: "static"},
			record:   map[string]any{controlattr.Index: "rec", controlattr.DataStreamDataset: "rec"},
			resource: map[string]any{controlattr.Index: "res"},
			want:     index("static"),
		},
		{
			name:     "static index that looks like a data stream is still a plain index",
			settings: Settings{StaticIndex: "logs-generic.otel-default"},
			want:     index("logs-generic.otel-default"),
		},
		{
			name:    "a signal without data streams",
			typ:     signal.Profiles,
			wantErr: "no data stream type for profiles documents",
		},
	})
}

func TestRouteEmptyValues(t *testing.T) {
	runRouteCases(t, []routeCase{
		{
			name:   "empty dataset on record falls through to scope",
			record: map[string]any{controlattr.DataStreamDataset: ""},
			scope:  map[string]any{controlattr.DataStreamDataset: "scope"},
			want:   dataStream("logs", "scope.otel", "default"),
		},
		{
			name:      "empty dataset everywhere derives from the scope",
			record:    map[string]any{controlattr.DataStreamDataset: ""},
			resource:  map[string]any{controlattr.DataStreamDataset: ""},
			scopeName: "example.com/receiver/otlpreceiver",
			want:      dataStream("logs", "otlpreceiver.otel", "default"),
		},
		{
			name:   "empty bytes dataset counts as absent",
			record: map[string]any{controlattr.DataStreamDataset: []byte{}},
			want:   dataStream("logs", "generic.otel", "default"),
		},
		{
			name:   "empty value dataset counts as absent",
			record: map[string]any{controlattr.DataStreamDataset: nil},
			want:   dataStream("logs", "generic.otel", "default"),
		},
		{
			name:     "empty namespace on record falls through to resource",
			record:   map[string]any{controlattr.DataStreamNamespace: ""},
			resource: map[string]any{controlattr.DataStreamNamespace: "res"},
			want:     dataStream("logs", "generic.otel", "res"),
		},
		{
			name:   "empty namespace everywhere is the default",
			record: map[string]any{controlattr.DataStreamNamespace: ""},
			want:   dataStream("logs", "generic.otel", "default"),
		},
		{
			name:     "empty elasticsearch.index is an error, not a fall-through",
			record:   map[string]any{controlattr.Index: ""},
			resource: map[string]any{controlattr.Index: "res"},
			wantErr:  `invalid index name "" from attribute elasticsearch.index: must not be empty`,
		},
	})
}

func TestRouteNonStringValues(t *testing.T) {
	runRouteCases(t, []routeCase{
		{name: "int dataset", record: map[string]any{controlattr.DataStreamDataset: 42}, want: dataStream("logs", "42.otel", "default")},
		{name: "negative int dataset replaces the minus", record: map[string]any{controlattr.DataStreamDataset: -7}, want: dataStream("logs", "_7.otel", "default")},
		{name: "negative int namespace keeps the minus", record: map[string]any{controlattr.DataStreamNamespace: -7}, want: dataStream("logs", "generic.otel", "-7")},
		{name: "bool dataset", record: map[string]any{controlattr.DataStreamDataset: true}, want: dataStream("logs", "true.otel", "default")},
		{name: "bool namespace", record: map[string]any{controlattr.DataStreamNamespace: false}, want: dataStream("logs", "generic.otel", "false")},
		{name: "double dataset", record: map[string]any{controlattr.DataStreamDataset: 1.5}, want: dataStream("logs", "1.5.otel", "default")},
		{name: "integral double dataset", record: map[string]any{controlattr.DataStreamDataset: 2.0}, want: dataStream("logs", "2.otel", "default")},
		{name: "large double dataset", record: map[string]any{controlattr.DataStreamDataset: 1e21}, want: dataStream("logs", "1e+21.otel", "default")},
		{name: "small double dataset replaces the minus", record: map[string]any{controlattr.DataStreamDataset: 1e-7}, want: dataStream("logs", "1e_7.otel", "default")},
		{name: "small double namespace", record: map[string]any{controlattr.DataStreamNamespace: 1e-7}, want: dataStream("logs", "generic.otel", "1e-7")},
		{
			name:   "map dataset is its JSON, sanitized",
			record: map[string]any{controlattr.DataStreamDataset: map[string]any{"a": "B"}},
			want:   dataStream("logs", "{_a___b_}.otel", "default"),
		},
		{
			name:   "slice namespace is its JSON, sanitized",
			record: map[string]any{controlattr.DataStreamNamespace: []any{"x", 1}},
			want:   dataStream("logs", "generic.otel", "[_x__1]"),
		},
		{
			name:   "bytes dataset is its base64, sanitized",
			record: map[string]any{controlattr.DataStreamDataset: []byte{0xff}},
			want:   dataStream("logs", "_w==.otel", "default"),
		},
		{name: "int elasticsearch.index", record: map[string]any{controlattr.Index: 42}, want: index("42")},
		{name: "bool elasticsearch.index", resource: map[string]any{controlattr.Index: true}, want: index("true")},
		{name: "double elasticsearch.index", scope: map[string]any{controlattr.Index: 1.5}, want: index("1.5")},
		{
			name:    "negative int elasticsearch.index",
			record:  map[string]any{controlattr.Index: -1},
			wantErr: `invalid index name "-1" from attribute elasticsearch.index: must not start with "-", "_" or "+"`,
		},
		{
			name:    "map elasticsearch.index",
			record:  map[string]any{controlattr.Index: map[string]any{"a": 1}},
			wantErr: `invalid index name "{\"a\":1}" from attribute elasticsearch.index: must not contain '"'`,
		},
	})
}

func TestRouteScopeDerivedDataset(t *testing.T) {
	const contribReceiver = "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/"
	tests := []routeCase{
		{name: "receiverhelper", scopeName: "go.opentelemetry.io/collector/receiver/receiverhelper", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "scraperhelper", scopeName: "go.opentelemetry.io/collector/scraper/scraperhelper", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "processorhelper", scopeName: "go.opentelemetry.io/collector/processor/processorhelper", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "exporterhelper", scopeName: "go.opentelemetry.io/collector/exporter/exporterhelper", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "service", typ: signal.Metrics, scopeName: "go.opentelemetry.io/collector/service", want: dataStream("metrics", "collectortelemetry.otel", "default")},
		{name: "path below service", scopeName: "go.opentelemetry.io/collector/service/internal/graph", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "path below exporterhelper", scopeName: "go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper", want: dataStream("logs", "collectortelemetry.otel", "default")},
		{name: "longer segment than service is not telemetry", scopeName: "go.opentelemetry.io/collector/servicefoo", want: dataStream("logs", "generic.otel", "default")},
		{name: "longer segment than exporterhelper is not telemetry", scopeName: "go.opentelemetry.io/collector/exporter/exporterhelperx", want: dataStream("logs", "generic.otel", "default")},
		{name: "other collector package is not telemetry", scopeName: "go.opentelemetry.io/collector/processor/batchprocessor", want: dataStream("logs", "generic.otel", "default")},
		{name: "collector path not at the start is not telemetry", scopeName: "example.com/go.opentelemetry.io/collector/service", want: dataStream("logs", "generic.otel", "default")},
		{name: "module path alone is not telemetry", scopeName: "go.opentelemetry.io/collector/", want: dataStream("logs", "generic.otel", "default")},
		{
			name:      "collector telemetry wins over encoding.format",
			scopeName: "go.opentelemetry.io/collector/service",
			scope:     map[string]any{EncodingFormatAttribute: "aws.vpcflow"},
			want:      dataStream("logs", "collectortelemetry.otel", "default"),
		},
		{
			name:      "dataset attribute wins over collector telemetry",
			scopeName: "go.opentelemetry.io/collector/service",
			resource:  map[string]any{controlattr.DataStreamDataset: "mine"},
			want:      dataStream("logs", "mine.otel", "default"),
		},
		{
			name:  "encoding.format",
			scope: map[string]any{EncodingFormatAttribute: "aws.vpcflow"},
			want:  dataStream("logs", "aws.vpcflow.otel", "default"),
		},
		{
			name:  "encoding.format is sanitized",
			scope: map[string]any{EncodingFormatAttribute: "AWS-VPC:Flow"},
			want:  dataStream("logs", "aws_vpc_flow.otel", "default"),
		},
		{
			name:      "encoding.format wins over receiver segment",
			scope:     map[string]any{EncodingFormatAttribute: "aws.vpcflow"},
			scopeName: contribReceiver + "awss3receiver",
			want:      dataStream("logs", "aws.vpcflow.otel", "default"),
		},
		{
			name:      "empty encoding.format is skipped",
			scope:     map[string]any{EncodingFormatAttribute: ""},
			scopeName: contribReceiver + "awss3receiver",
			want:      dataStream("logs", "awss3receiver.otel", "default"),
		},
		{
			name:  "non-string encoding.format is skipped",
			scope: map[string]any{EncodingFormatAttribute: 5},
			want:  dataStream("logs", "generic.otel", "default"),
		},
		{
			name:     "encoding.format on record or resource is not used",
			record:   map[string]any{EncodingFormatAttribute: "a"},
			resource: map[string]any{EncodingFormatAttribute: "b"},
			want:     dataStream("logs", "generic.otel", "default"),
		},
		{
			name:      "dataset attribute wins over encoding.format",
			record:    map[string]any{controlattr.DataStreamDataset: "mine"},
			scope:     map[string]any{EncodingFormatAttribute: "aws.vpcflow"},
			want:      dataStream("logs", "mine.otel", "default"),
			scopeName: contribReceiver + "awss3receiver",
		},
		{
			name:      "receiver segment in the middle",
			typ:       signal.Metrics,
			scopeName: contribReceiver + "hostmetricsreceiver/internal/scraper/cpuscraper",
			want:      dataStream("metrics", "hostmetricsreceiver.otel", "default"),
		},
		{
			name:      "receiver segment at the end",
			typ:       signal.Traces,
			scopeName: "go.opentelemetry.io/collector/receiver/otlpreceiver",
			want:      dataStream("traces", "otlpreceiver.otel", "default"),
		},
		{name: "bare receiver does not count", scopeName: "example.com/receiver/receiver", want: dataStream("logs", "generic.otel", "default")},
		{name: "bare receiver then a named one", scopeName: "example.com/receiver/receiver/fooreceiver", want: dataStream("logs", "fooreceiver.otel", "default")},
		{name: "first named receiver wins", scopeName: "example.com/receiver/areceiver/receiver/breceiver", want: dataStream("logs", "areceiver.otel", "default")},
		{name: "segment must end with receiver", scopeName: "example.com/receiver/fooreceiverx", want: dataStream("logs", "generic.otel", "default")},
		{name: "segment must follow a receiver segment", scopeName: "example.com/receivers/fooreceiver", want: dataStream("logs", "generic.otel", "default")},
		{name: "receiver segment needs the leading slash", scopeName: "receiver/fooreceiver", want: dataStream("logs", "generic.otel", "default")},
		{name: "empty segment does not count", scopeName: "example.com/receiver//fooreceiver", want: dataStream("logs", "generic.otel", "default")},
		{name: "receiver name is sanitized", scopeName: "example.com/receiver/Foo-Barreceiver", want: dataStream("logs", "foo_barreceiver.otel", "default")},
		{
			name:      "dataset attribute wins over receiver segment",
			scope:     map[string]any{controlattr.DataStreamDataset: "mine"},
			scopeName: contribReceiver + "filelogreceiver",
			want:      dataStream("logs", "mine.otel", "default"),
		},
		{
			name:      "namespace attribute still applies to a derived dataset",
			resource:  map[string]any{controlattr.DataStreamNamespace: "prod"},
			scopeName: contribReceiver + "filelogreceiver",
			want:      dataStream("logs", "filelogreceiver.otel", "prod"),
		},
	}
	runRouteCases(t, tests)
}

func TestRouteSanitizing(t *testing.T) {
	var tests []routeCase
	for _, c := range `-\/*?"<>| ,#:` {
		tests = append(tests, routeCase{
			name:   "dataset replaces " + string(c),
			record: map[string]any{controlattr.DataStreamDataset: "a" + string(c) + "b"},
			want:   dataStream("logs", "a_b.otel", "default"),
		})
		wantNamespace := "a_b"
		if c == '-' {
			wantNamespace = "a-b"
		}
		tests = append(tests, routeCase{
			name:   "namespace sanitizes " + string(c),
			record: map[string]any{controlattr.DataStreamNamespace: "a" + string(c) + "b"},
			want:   dataStream("logs", "generic.otel", wantNamespace),
		})
	}
	tests = append(tests, []routeCase{
		{
			name:   "characters Elasticsearch accepts are kept",
			record: map[string]any{controlattr.DataStreamDataset: "a.b_c+d=e!f%g@h", controlattr.DataStreamNamespace: "a.b_c+d=e!f%g@h"},
			want:   dataStream("logs", "a.b_c+d=e!f%g@h.otel", "a.b_c+d=e!f%g@h"),
		},
		{
			name:   "ASCII lower-casing",
			record: map[string]any{controlattr.DataStreamDataset: "NGINX.Access", controlattr.DataStreamNamespace: "PROD"},
			want:   dataStream("logs", "nginx.access.otel", "prod"),
		},
		{
			name:   "Unicode lower-casing",
			record: map[string]any{controlattr.DataStreamDataset: "ÄBC", controlattr.DataStreamNamespace: "ÖSTERREICH"},
			want:   dataStream("logs", "äbc.otel", "österreich"),
		},
		{
			// Go's unicode.ToLower maps U+0130 to a plain "i" (one byte shorter). Java's
			// Locale.ROOT lower-casing would give "i" plus U+0307; both are valid names.
			name:   "Turkish dotted capital I becomes a plain i",
			record: map[string]any{controlattr.DataStreamDataset: "İSTANBUL"},
			want:   dataStream("logs", "istanbul.otel", "default"),
		},
		{
			// unicode.ToLower works rune by rune, so there is no final-sigma rule.
			name:   "Greek capital sigma always becomes medial sigma",
			record: map[string]any{controlattr.DataStreamDataset: "ΣΑΣ"},
			want:   dataStream("logs", "σασ.otel", "default"),
		},
		{
			name:   "capital sharp s and Kelvin sign",
			record: map[string]any{controlattr.DataStreamNamespace: "ẞ\u212a"},
			want:   dataStream("logs", "generic.otel", "ßk"),
		},
		{
			name:   "invalid UTF-8 bytes become underscores",
			record: map[string]any{controlattr.DataStreamDataset: "a\xffb\xc3", controlattr.DataStreamNamespace: "\xe2\x82x"},
			want:   dataStream("logs", "a_b_.otel", "__x"),
		},
		{
			name:   "a valid replacement character is kept",
			record: map[string]any{controlattr.DataStreamDataset: "a\ufffdb"},
			want:   dataStream("logs", "a\ufffdb.otel", "default"),
		},
	}...)
	runRouteCases(t, tests)
}

func TestRouteTruncation(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	runRouteCases(t, []routeCase{
		{
			name:   "dataset of 95 bytes is kept",
			record: map[string]any{controlattr.DataStreamDataset: a(95)},
			want:   dataStream("logs", a(95)+".otel", "default"),
		},
		{
			name:   "dataset of 96 bytes is cut to 95",
			record: map[string]any{controlattr.DataStreamDataset: a(96)},
			want:   dataStream("logs", a(95)+".otel", "default"),
		},
		{
			name:   "dataset ending with a two-byte character at 95 bytes is kept",
			record: map[string]any{controlattr.DataStreamDataset: a(93) + "é"},
			want:   dataStream("logs", a(93)+"é.otel", "default"),
		},
		{
			name:   "two-byte character straddling the dataset cut is dropped whole",
			record: map[string]any{controlattr.DataStreamDataset: a(94) + "é"},
			want:   dataStream("logs", a(94)+".otel", "default"),
		},
		{
			name:   "three-byte character straddling the dataset cut is dropped whole",
			record: map[string]any{controlattr.DataStreamDataset: a(93) + "€b"},
			want:   dataStream("logs", a(93)+".otel", "default"),
		},
		{
			// U+023A is two bytes, its lower case U+2C65 three: the budget counts the output.
			name:   "character that grows when lower-cased is measured after lower-casing",
			record: map[string]any{controlattr.DataStreamDataset: a(93) + "\u023a"},
			want:   dataStream("logs", a(93)+".otel", "default"),
		},
		{
			// U+0130 is two bytes and lower-cases to one.
			name:   "character that shrinks when lower-cased leaves room",
			record: map[string]any{controlattr.DataStreamDataset: a(93) + "İİ"},
			want:   dataStream("logs", a(93)+"ii.otel", "default"),
		},
		{
			name:   "long non-string dataset is cut too",
			record: map[string]any{controlattr.DataStreamDataset: map[string]any{"k": a(120)}},
			want:   dataStream("logs", `{_k___`+a(89)+".otel", "default"),
		},
		{
			name:   "namespace of 100 bytes is kept",
			record: map[string]any{controlattr.DataStreamNamespace: a(100)},
			want:   dataStream("logs", "generic.otel", a(100)),
		},
		{
			name:   "namespace of 101 bytes is cut to 100",
			record: map[string]any{controlattr.DataStreamNamespace: a(101)},
			want:   dataStream("logs", "generic.otel", a(100)),
		},
		{
			name:   "two-byte character straddling the namespace cut is dropped whole",
			record: map[string]any{controlattr.DataStreamNamespace: a(99) + "ü"},
			want:   dataStream("logs", "generic.otel", a(99)),
		},
		{
			name:   "four-byte character straddling the namespace cut is dropped whole",
			record: map[string]any{controlattr.DataStreamNamespace: a(97) + "😀"},
			want:   dataStream("logs", "generic.otel", a(97)),
		},
		{
			name:   "longest data stream name",
			typ:    signal.Metrics,
			record: map[string]any{controlattr.DataStreamDataset: a(200), controlattr.DataStreamNamespace: a(200)},
			want:   dataStream("metrics", a(95)+".otel", a(100)),
		},
	})
}

func TestRouteInvalidIndexAttribute(t *testing.T) {
	tests := []routeCase{
		{name: "empty", record: map[string]any{controlattr.Index: ""}, wantErr: `"" from attribute elasticsearch.index: must not be empty`},
		{name: "upper-case ASCII", record: map[string]any{controlattr.Index: "Logs"}, wantErr: `"Logs" from attribute elasticsearch.index: must be lower case`},
		{name: "upper-case Unicode", resource: map[string]any{controlattr.Index: "logs-Ä"}, wantErr: `"logs-Ä" from attribute elasticsearch.index: must be lower case`},
		{name: "starts with minus", record: map[string]any{controlattr.Index: "-logs"}, wantErr: `"-logs" from attribute elasticsearch.index: must not start with "-", "_" or "+"`},
		{name: "starts with underscore", record: map[string]any{controlattr.Index: "_logs"}, wantErr: `must not start with "-", "_" or "+"`},
		{name: "starts with plus", record: map[string]any{controlattr.Index: "+logs"}, wantErr: `must not start with "-", "_" or "+"`},
		{name: "dot", record: map[string]any{controlattr.Index: "."}, wantErr: `"." from attribute elasticsearch.index: must not be "." or ".."`},
		{name: "dot dot", record: map[string]any{controlattr.Index: ".."}, wantErr: `must not be "." or ".."`},
		{name: "256 bytes", record: map[string]any{controlattr.Index: strings.Repeat("a", 256)}, wantErr: "must not be longer than 255 bytes"},
		{name: "invalid UTF-8", record: map[string]any{controlattr.Index: "logs\xff"}, wantErr: `"logs\xff" from attribute elasticsearch.index: must be valid UTF-8`},
	}
	for _, c := range `\/*?"<>|,#: ` {
		tests = append(tests, routeCase{
			name:    "contains " + string(c),
			scope:   map[string]any{controlattr.Index: "a" + string(c) + "b"},
			wantErr: strconv.Quote("a"+string(c)+"b") + " from attribute elasticsearch.index: must not contain " + strconv.QuoteRune(c),
		})
	}
	runRouteCases(t, tests)

	t.Run("error type", func(t *testing.T) {
		r, err := NewRouter(Settings{})
		require.NoError(t, err)
		_, err = r.Route(signal.Logs, attrs(t, map[string]any{controlattr.Index: "A"}), pcommon.NewMap(), pcommon.NewMap(), "", 0)
		var invalid *InvalidIndexNameError
		require.ErrorAs(t, err, &invalid)
		assert.Equal(t, InvalidIndexNameError{Name: "A", Source: "attribute elasticsearch.index", Reason: reasonUpper}, *invalid)
	})
}

func TestRouteValidIndexAttribute(t *testing.T) {
	runRouteCases(t, []routeCase{
		{name: "hidden index, dot targets allowed", settings: Settings{AllowDotTargets: true}, record: map[string]any{controlattr.Index: ".hidden"}, want: index(".hidden")},
		{name: "hidden index", record: map[string]any{controlattr.Index: ".hidden"}, wantErr: `target ".hidden" from attribute elasticsearch.index on the record is not allowed`},
		{name: "dots inside", record: map[string]any{controlattr.Index: "a..b"}, want: index("a..b")},
		{name: "lower-case Unicode", record: map[string]any{controlattr.Index: "logs-äbc"}, want: index("logs-äbc")},
		{name: "255 bytes", record: map[string]any{controlattr.Index: strings.Repeat("a", 255)}, want: index(strings.Repeat("a", 255))},
		{name: "other punctuation", record: map[string]any{controlattr.Index: "a+b=c!d%e@f&g"}, want: index("a+b=c!d%e@f&g")},
	})
}

func TestRouteLogstashFormat(t *testing.T) {
	logstash := func(s Settings) Settings {
		s.LogstashFormat = true
		return s
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		newYork = time.FixedZone("EST", -5*3600)
	}
	runRouteCases(t, []routeCase{
		{
			name:     "static index with defaults",
			settings: logstash(Settings{StaticIndex: "logstash"}),
			ts:       ts2023,
			want:     index("logstash-2023.12.02"),
		},
		{
			name:     "static index with separator and format",
			settings: logstash(Settings{StaticIndex: "logstash", PrefixSeparator: ".", DateFormat: "%Y-%m-%d"}),
			ts:       ts2023,
			want:     index("logstash.2023-12-02"),
		},
		{
			name:     "data stream name becomes a plain index",
			settings: logstash(Settings{}),
			record:   map[string]any{controlattr.DataStreamDataset: "nginx"},
			ts:       ts2023,
			want:     index("logs-nginx.otel-default-2023.12.02"),
		},
		{
			name:     "metrics in otel mode",
			settings: logstash(Settings{}),
			typ:      signal.Metrics,
			ts:       ts2023,
			want:     index("metrics-generic.otel-default-2023.12.02"),
		},
		{
			name:     "elasticsearch.index",
			settings: logstash(Settings{}),
			resource: map[string]any{controlattr.Index: "app"},
			ts:       ts2023,
			want:     index("app-2023.12.02"),
		},
		{
			name:     "two-digit year, month, day",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%y%m%d"}),
			ts:       ts2023,
			want:     index("i-231202"),
		},
		{
			name:     "time of day",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%Y.%m.%d.%H%M%S"}),
			ts:       ts2023,
			want:     index("i-2023.12.02.101010"),
		},
		{
			name:     "day of the year",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%Y.%j"}),
			ts:       pcommon.NewTimestampFromTime(time.Date(2024, 1, 9, 0, 0, 0, 0, time.UTC)),
			want:     index("i-2024.009"),
		},
		{
			name:     "names are lower case",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%b-%B-%a-%A"}),
			ts:       ts2023,
			want:     index("i-dec-december-sat-saturday"),
		},
		{
			name:     "percent sign",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%Y%%"}),
			ts:       ts2023,
			want:     index("i-2023%"),
		},
		{
			name:     "every usable verb",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%C.%F.%U.%W.%V.%u.%w.%I%p.%h.%Z%z"}),
			ts:       ts2023,
			want:     index("i-20.2023-12-02.48.48.48.6.6.10am.dec.utc+0000"),
		},
		{
			name:     "format without verbs",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "archive"}),
			ts:       ts2023,
			want:     index("i-archive"),
		},
		{
			name:     "date is taken in UTC",
			settings: logstash(Settings{StaticIndex: "i"}),
			ts:       pcommon.NewTimestampFromTime(time.Date(2023, 12, 2, 21, 30, 0, 0, newYork)),
			want:     index("i-2023.12.03"),
		},
		{
			name:     "zero timestamp is the Unix epoch",
			settings: logstash(Settings{StaticIndex: "i", DateFormat: "%Y.%m.%d.%H"}),
			ts:       0,
			want:     index("i-1970.01.01.00"),
		},
		{
			name:     "last representable time",
			settings: logstash(Settings{StaticIndex: "i"}),
			ts:       pcommon.Timestamp(1<<63 - 1),
			want:     index("i-2262.04.11"),
		},
		{
			name:     "disabled logstash format appends nothing",
			settings: Settings{StaticIndex: "i", DateFormat: "%Y"},
			ts:       ts2023,
			want:     index("i"),
		},
		{
			name:     "suffix making the name too long",
			settings: logstash(Settings{StaticIndex: strings.Repeat("a", 250)}),
			ts:       ts2023,
			wantErr:  "from routed name: must not be longer than 255 bytes",
		},
		{
			name:     "invalid elasticsearch.index is reported before the date",
			settings: logstash(Settings{}),
			record:   map[string]any{controlattr.Index: "A"},
			ts:       ts2023,
			wantErr:  `invalid index name "A" from attribute elasticsearch.index: must be lower case`,
		},
	})
}

func TestNewRouterErrors(t *testing.T) {
	tests := []struct {
		name     string
		settings Settings
		wantErr  string
	}{
		{name: "unsupported verb", settings: Settings{DateFormat: "%Y.%Q"}, wantErr: `invalid logstash_format date_format "%Y.%Q": unsupported verb "%Q", which contrib's strftime (lestrrat-go/strftime v1.1.0) does not know either (supported: %A %a %B %b %C %d %F %H %h %I %j %M %m %p %S %U %u %V %W %w %Y %y %Z %z %%)`},
		{name: "space-padded day verb", settings: Settings{DateFormat: "%e"}, wantErr: `invalid logstash_format date_format "%e": %e pads the day with a space`},
		{name: "multi-byte verb", settings: Settings{DateFormat: "%Y%ä"}, wantErr: `unsupported verb "%ä"`},
		{name: "lone percent", settings: Settings{DateFormat: "%Y%"}, wantErr: `date_format "%Y%": it ends with a lone %`},
		{name: "checked when logstash is disabled", settings: Settings{LogstashFormat: false, DateFormat: "%T"}, wantErr: `%T writes the time as 15:04:05`},
		{name: "upper-case literal", settings: Settings{DateFormat: "%YT%H"}, wantErr: `date_format "%YT%H": literal text "T": must be lower case`},
		{name: "colon literal", settings: Settings{DateFormat: "%H:%M"}, wantErr: `literal text ":": must not contain ':'`},
		{name: "space literal", settings: Settings{DateFormat: "%Y %m"}, wantErr: `literal text " ": must not contain ' '`},
		{name: "invalid separator", settings: Settings{LogstashFormat: true, PrefixSeparator: "#"}, wantErr: `invalid logstash_format prefix_separator "#": must not contain '#'`},
		{name: "upper-case separator", settings: Settings{PrefixSeparator: "X"}, wantErr: `prefix_separator "X": must be lower case`},
		{name: "upper-case static index", settings: Settings{StaticIndex: "Logs"}, wantErr: `invalid index name "Logs" from static index: must be lower case`},
		{name: "static index with a slash", settings: Settings{StaticIndex: "a/b"}, wantErr: `from static index: must not contain '/'`},
		{name: "static index starting with underscore", settings: Settings{StaticIndex: "_all"}, wantErr: `must not start with`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRouter(tt.settings)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, r)
		})
	}
}

func TestNewRouterDefaults(t *testing.T) {
	r, err := NewRouter(Settings{StaticIndex: "i", LogstashFormat: true})
	require.NoError(t, err)
	got, err := r.Route(signal.Logs, pcommon.NewMap(), pcommon.NewMap(), pcommon.NewMap(), "", ts2023)
	require.NoError(t, err)
	assert.Equal(t, index("i-2023.12.02"), got, "empty separator and date format take the defaults")
}

// TestRouteCache checks that the cached Target is only reused for the same name and kind.
func TestRouteCache(t *testing.T) {
	r, err := NewRouter(Settings{})
	require.NoError(t, err)
	empty := pcommon.NewMap()
	route := func(record pcommon.Map) (Target, error) {
		return r.Route(signal.Logs, record, empty, empty, "", 0)
	}
	nginx := attrs(t, map[string]any{controlattr.DataStreamDataset: "nginx"})
	apache := attrs(t, map[string]any{controlattr.DataStreamDataset: "apache"})
	sameName := attrs(t, map[string]any{controlattr.Index: "logs-nginx.otel-default"})
	invalid := attrs(t, map[string]any{controlattr.Index: "Bad"})

	first, err := route(nginx)
	require.NoError(t, err)
	assert.Equal(t, dataStream("logs", "nginx.otel", "default"), first)

	got, err := route(apache)
	require.NoError(t, err)
	assert.Equal(t, dataStream("logs", "apache.otel", "default"), got)

	got, err = route(sameName)
	require.NoError(t, err)
	assert.Equal(t, index("logs-nginx.otel-default"), got, "same name, but not a data stream")

	_, err = route(invalid)
	require.Error(t, err)

	got, err = route(nginx)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	again, err := route(nginx)
	require.NoError(t, err)
	assert.Same(t, unsafe.StringData(got.Index), unsafe.StringData(again.Index), "repeated route reuses the cached strings")
	assert.Same(t, unsafe.StringData(got.Dataset), unsafe.StringData(again.Dataset))
	assert.Equal(t, "logs-nginx.otel-default", got.Index)

	// A data stream after a plain index of the same name must not reuse the plain Target.
	_, err = route(sameName)
	require.NoError(t, err)
	got, err = route(nginx)
	require.NoError(t, err)
	assert.Equal(t, first, got)
}

func TestRouteAllocs(t *testing.T) {
	empty := pcommon.NewMap()
	tests := []struct {
		name      string
		settings  Settings
		record    pcommon.Map
		scope     pcommon.Map
		resource  pcommon.Map
		scopeName string
		next      func(pcommon.Timestamp) pcommon.Timestamp
	}{
		{name: "data stream defaults", record: empty, scope: empty, resource: empty},
		{
			name:     "data stream from attributes",
			record:   attrs(t, map[string]any{"http.method": "GET", controlattr.DataStreamNamespace: "Prod"}),
			scope:    empty,
			resource: attrs(t, map[string]any{"service.name": "svc", controlattr.DataStreamDataset: "NGINX-Access"}),
		},
		{
			name:     "data stream from non-string attributes",
			record:   attrs(t, map[string]any{controlattr.DataStreamDataset: 42, controlattr.DataStreamNamespace: 1.5}),
			scope:    empty,
			resource: empty,
		},
		{
			name:      "data stream from scope name",
			record:    empty,
			scope:     empty,
			resource:  empty,
			scopeName: "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver/internal/scraper/cpuscraper",
		},
		{name: "static index", settings: Settings{StaticIndex: "static"}, record: empty, scope: empty, resource: empty},
		{
			name:     "static index logstash same day",
			settings: Settings{StaticIndex: "static", LogstashFormat: true, DateFormat: "%Y.%m.%d"},
			record:   empty, scope: empty, resource: empty,
			next: func(ts pcommon.Timestamp) pcommon.Timestamp { return ts + pcommon.Timestamp(time.Second) },
		},
		{
			name:     "data stream logstash same day",
			settings: Settings{LogstashFormat: true, DateFormat: "%b.%A.%j"},
			record:   empty, scope: empty, resource: empty,
			next: func(ts pcommon.Timestamp) pcommon.Timestamp { return ts + pcommon.Timestamp(time.Second) },
		},
		{
			name:     "elasticsearch.index",
			record:   attrs(t, map[string]any{controlattr.Index: "my-index"}),
			scope:    empty,
			resource: empty,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRouter(tt.settings)
			require.NoError(t, err)
			ts := ts2023
			first, err := r.Route(signal.Logs, tt.record, tt.scope, tt.resource, tt.scopeName, ts)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(100, func() {
				if tt.next != nil {
					ts = tt.next(ts)
				}
				got, err := r.Route(signal.Logs, tt.record, tt.scope, tt.resource, tt.scopeName, ts)
				if err != nil || got != first {
					t.Fatalf("Route = %+v, %v, want %+v", got, err, first)
				}
			})
			assert.Zero(t, allocs)
		})
	}
}

// FuzzRouteDataStream checks that any dataset, namespace and scope name give a data stream name
// Elasticsearch accepts.
func FuzzRouteDataStream(f *testing.F) {
	f.Add("nginx", "default", "")
	f.Add("ÄBC-x:y", "Prod-1", "example.com/receiver/fooreceiver")
	f.Add("a\xffb", "\xe2\x82", "go.opentelemetry.io/collector/service")
	f.Add(strings.Repeat("é", 60), strings.Repeat("€", 40), "")
	f.Add("", "", "example.com/receiver/receiver")
	f.Fuzz(func(t *testing.T, dataset, namespace, scopeName string) {
		r, err := NewRouter(Settings{})
		require.NoError(t, err)
		record := pcommon.NewMap()
		record.PutStr(controlattr.DataStreamDataset, dataset)
		record.PutStr(controlattr.DataStreamNamespace, namespace)
		got, err := r.Route(signal.Metrics, record, pcommon.NewMap(), pcommon.NewMap(), scopeName, 0)
		require.NoError(t, err)
		requireScopedRoute(t, Settings{}, signal.Metrics, record, pcommon.NewMap(), pcommon.NewMap(), scopeName, 0)
		require.True(t, got.DataStream)
		require.Empty(t, indexNameProblem(got.Index), "index %q", got.Index)
		require.Equal(t, got.Type+"-"+got.Dataset+"-"+got.Namespace, got.Index)
		require.True(t, strings.HasSuffix(got.Dataset, DatasetSuffix))
		require.LessOrEqual(t, len(got.Dataset), 100)
		require.LessOrEqual(t, len(got.Namespace), 100)
		require.NotEmpty(t, strings.TrimSuffix(got.Dataset, DatasetSuffix))
		require.NotEmpty(t, got.Namespace)
		require.NotContains(t, strings.TrimSuffix(got.Dataset, DatasetSuffix), "-")
		require.True(t, utf8.ValidString(got.Index))
		for _, c := range got.Index {
			require.Equal(t, unicode.ToLower(c), c, "index %q", got.Index)
		}
	})
}

// TestRouteModes checks the data stream names of the mapping modes other than otel: no .otel
// suffix, a dataset of up to 100 bytes, and in bodymap a type taken from data_stream.type
// when it is logs or metrics.
func TestRouteModes(t *testing.T) {
	long := strings.Repeat("d", 120)
	tests := []struct {
		name              string
		otel, typeFromAtt bool
		typ               signal.Kind
		record, resource  map[string]any
		want              Target
	}{
		{name: "otel", otel: true, typ: signal.Logs, want: dataStream("logs", "generic.otel", "default")},
		{name: "ecs", typ: signal.Logs, want: dataStream("logs", "generic", "default")},
		{name: "ecs traces dataset", typ: signal.Traces, record: map[string]any{"data_stream.dataset": "App"}, want: dataStream("traces", "app", "default")},
		{
			name: "no suffix keeps 100 bytes", typ: signal.Logs, record: map[string]any{"data_stream.dataset": long},
			want: dataStream("logs", long[:100], "default"),
		},
		{
			name: "suffix keeps 95 bytes", otel: true, typ: signal.Logs, record: map[string]any{"data_stream.dataset": long},
			want: dataStream("logs", long[:95]+".otel", "default"),
		},
		{name: "type ignored without bodymap", typ: signal.Logs, record: map[string]any{"data_stream.type": "metrics"}, want: dataStream("logs", "generic", "default")},
		{name: "bodymap metrics", typeFromAtt: true, typ: signal.Logs, record: map[string]any{"data_stream.type": "metrics"}, want: dataStream("metrics", "generic", "default")},
		{name: "bodymap type from resource", typeFromAtt: true, typ: signal.Logs, resource: map[string]any{"data_stream.type": "metrics"}, want: dataStream("metrics", "generic", "default")},
		{
			name: "bodymap record type wins", typeFromAtt: true, typ: signal.Logs,
			record: map[string]any{"data_stream.type": "logs"}, resource: map[string]any{"data_stream.type": "metrics"},
			want: dataStream("logs", "generic", "default"),
		},
		{name: "bodymap other type ignored", typeFromAtt: true, typ: signal.Logs, record: map[string]any{"data_stream.type": "traces"}, want: dataStream("logs", "generic", "default")},
		{name: "bodymap type not a string", typeFromAtt: true, typ: signal.Logs, record: map[string]any{"data_stream.type": 1}, want: dataStream("logs", "generic", "default")},
	}
	r, err := NewRouter(Settings{})
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.SetMode(tt.otel, tt.typeFromAtt)
			got, err := r.Route(tt.typ, attrs(t, tt.record), pcommon.NewMap(), attrs(t, tt.resource), "", 0)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestRouteLogstashFormatModes pins the date-suffixed names of the default data stream in the
// otel and ecs modes, the examples of docs/configuration.md and docs/documents.md: plain
// indices, not data streams.
func TestRouteLogstashFormatModes(t *testing.T) {
	r, err := NewRouter(Settings{LogstashFormat: true})
	require.NoError(t, err)
	ts := pcommon.NewTimestampFromTime(time.Date(2025, 1, 31, 23, 59, 59, 0, time.UTC))
	for _, tt := range []struct {
		name string
		otel bool
		want string
	}{
		{name: "otel", otel: true, want: "logs-generic.otel-default-2025.01.31"},
		{name: "ecs", want: "logs-generic-default-2025.01.31"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r.SetMode(tt.otel, false)
			got, err := r.Route(signal.Logs, pcommon.NewMap(), pcommon.NewMap(), pcommon.NewMap(), "", ts)
			require.NoError(t, err)
			assert.Equal(t, index(tt.want), got)
		})
	}
}
