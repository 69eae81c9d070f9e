package estest

import (
	"embed"
	"net/http"
	"testing"
)

// The integ-test-zip archive of Elasticsearch has no built-in logs-otel@template,
// traces-otel@template and metrics-otel@template, so documents routed to logs-*.otel-*,
// traces-*.otel-* and metrics-*.otel-* would find no data stream template; the exporter sets
// require_data_stream, so Elasticsearch would refuse them. These stand-ins create the same data
// streams with core field types only: passthrough objects for the attributes, strings mapped as
// keyword, body.text as text.
//
// The logs one has the index mode and the index sort of the built-in logs-otel@mappings: logsdb,
// sorted on resource.attributes.host.name ascending, then @timestamp descending; it maps
// resource.attributes.host.name, since the archive refuses an index sort on a field that is
// not mapped when the backing index is created. So the suites
// and make cost-es index logs as a 9.x cluster does, and read back the synthetic _source that
// logsdb returns (docs/documents.md says what it changes).
//
// The metrics one is shaped like the built-in metrics-otel@template (and the component
// templates it is composed of): a time series data stream (index.mode time_series, with the
// routing path written out, since the module that computes it is missing), a dynamic: false
// root, attributes, scope.attributes and resource.attributes as passthrough dimensions with
// the built-in priorities, metrics as a passthrough object, _metric_names_hash and unit as
// dimensions, start_timestamp as date_nanos, ignore_malformed, the field limit, the semantic
// convention aliases, and the dynamic templates the exporter names (counter_long, gauge_long,
// counter_double, gauge_double with time_series_metric). The archive lacks the histogram and
// aggregate_metric_double field types: the histogram, summary and summary_minmax templates map
// an object instead, whose counts, values, sum, value_count, min and max sub-fields are
// numbers, so each value is indexed. docs/documents.md lists every difference from the
// built-in template, docs/dev/tsdb-facts.md the measurements behind them. scripts/demo.sh
// installs the same files.
//
// The five profiling ones stand in for Elasticsearch 9.6's profiling-<kind>-otel@template
// (events, stacktraces, stackframes, executables, hosts; x-pack otel-data), which 9.5 and the
// archive lack: the patterns, priorities, lifecycle, mappings and settings of the built-in
// templates and their profiling-<kind>-otel@mappings component templates (logsdb mode, index
// sort, best_compression and synthetic source where they set them), with one shard, no
// replicas, the default refresh interval and no tier preference. docs/documents.md lists the
// differences.
//
//go:embed templates/*.json
var templateFS embed.FS

// Template is one stand-in index template.
type Template struct {
	Name    string // name of the stand-in template
	Builtin string // the built-in template it stands in for
	Body    []byte // JSON body of PUT _index_template/<Name>
}

// OTelTemplates returns the stand-in templates for logs-*.otel-* (first), traces-*.otel-*,
// metrics-*.otel-* and the five profiling data streams of the otel mode.
func OTelTemplates() []Template {
	out := []Template{
		{Name: "otelcol-es-logs-otel", Builtin: "logs-otel@template"},
		{Name: "otelcol-es-traces-otel", Builtin: "traces-otel@template"},
		{Name: "otelcol-es-metrics-otel", Builtin: "metrics-otel@template"},
	}
	files := []string{"templates/logs-otel.json", "templates/traces-otel.json", "templates/metrics-otel.json"}
	for _, kind := range []string{"events", "stacktraces", "stackframes", "executables", "hosts"} {
		out = append(out, Template{Name: "otelcol-es-profiling-" + kind + "-otel", Builtin: "profiling-" + kind + "-otel@template"})
		files = append(files, "templates/profiling-"+kind+"-otel.json")
	}
	for i, file := range files {
		b, err := templateFS.ReadFile(file)
		if err != nil {
			panic(err) // embedded above; cannot happen
		}
		out[i].Body = b
	}
	return out
}

// InstallOTelTemplates puts each stand-in template (see [OTelTemplates]) unless the node has
// the built-in template it stands in for, as a full distribution of Elasticsearch does (8.16
// or later for logs, traces and metrics, 9.6 or later for the profiling ones). It is idempotent; data streams created before keep their mappings.
func (c *Client) InstallOTelTemplates(t testing.TB) {
	t.Helper()
	for _, tmpl := range OTelTemplates() {
		status, _, err := c.Do(http.MethodGet, "/_index_template/"+tmpl.Builtin, nil)
		if err != nil {
			t.Fatalf("estest: GET _index_template/%s: %v", tmpl.Builtin, err)
		}
		if status == http.StatusOK {
			continue
		}
		c.MustDo(t, http.MethodPut, "/_index_template/"+tmpl.Name, tmpl.Body)
	}
}
