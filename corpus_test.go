// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// corpusDir holds real configurations of contrib's elasticsearch exporter, written by others
// (Elastic's EDOT samples, Helm values and documentation, Elastic Agent's translation of the
// Beats Elasticsearch output and its tests, contrib's own testdata, README, issues and pull
// requests), one file each. Each file is the `exporters:` section of the configuration, with
// only its elasticsearch exporters, under a header:
//
//	# Source: <repository> <path> @ <commit>   (or a pull request or issue)
//	# Changed: <what was replaced to make the file self-contained, or "nothing.">
//	# Contrib: loads
//	# Contrib: refuses: <the error contrib gives>
//	# Here: refuses: <a part of the error this exporter gives>   (when contrib refuses it)
const corpusDir = "testdata/corpus"

// knownOpenDifference is a difference from contrib that a configuration of the corpus
// triggers, and that this exporter does not say at startup yet: no line in startup_notes.go,
// or none quoted in docs/moving-from-contrib.md. applies reports whether the raw exporter
// section (as the file has it) triggers it.
type knownOpenDifference struct {
	name    string
	reason  string
	applies func(section map[string]any) bool
	// line is a part of the start-up line the difference logs that docs/moving-from-contrib.md
	// does not quote yet, or "" when it logs none.
	line string
	// refused is a part of the error with which this exporter refuses a configuration that
	// contrib loads, or "" when it loads it.
	refused string
	// pending: contrib loads the configuration and this exporter does not yet, until the key
	// is supported; the test accepts the refusal, and the load once it comes.
	pending bool
}

// knownOpenDifferences is the one list of the differences from contrib that the corpus
// triggers and that log no quoted line yet, each with the reason. TestCorpus logs every file
// that triggers one, so that none passes silently; when a difference gets its start-up line
// and its quote in docs/moving-from-contrib.md, its entry goes.
var knownOpenDifferences = []knownOpenDifference{}

// TestCorpus loads each configuration of testdata/corpus as a collector does (confmap,
// Unmarshal into the factory's default, Validate, then the logs, metrics and traces
// exporters created with an observed logger) and checks that:
//   - it loads when contrib loads it, and fails, with the error contrib gives, when contrib
//     refuses it (the file's header says which);
//   - every Warn and Info line logged while the exporters are created is one that
//     docs/moving-from-contrib.md quotes (see quotedLineMatches);
//   - every difference from contrib that it triggers without such a line is in
//     knownOpenDifferences, which the test logs for each file.
func TestCorpus(t *testing.T) {
	t.Setenv(esclient.EnvURL, "")
	quotes := elasticsearchexporter.MovingDocQuotes(t)
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 40, "the corpus holds at least 40 configurations")

	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			h := readCorpusHeader(t, file)
			sections := corpusSections(t, file)
			require.NotEmpty(t, sections, "%s has no elasticsearch exporter", file)
			for _, s := range sections {
				var open []knownOpenDifference
				for _, d := range knownOpenDifferences {
					if d.applies(s.raw) {
						open = append(open, d)
						t.Logf("%s triggers a known open difference, %s: %s", s.id, d.name, d.reason)
					}
				}
				pending := slices.ContainsFunc(open, func(d knownOpenDifference) bool { return d.pending })
				refusedHere := slices.IndexFunc(open, func(d knownOpenDifference) bool { return d.refused != "" })
				lines, err := loadAsCollector(t, s)
				switch {
				case h.refused:
					require.Error(t, err, "contrib refuses %s (%s) and this exporter loads it", s.id, h.contrib)
					assert.Contains(t, err.Error(), h.here, "%s is refused with the error the header gives", s.id)
				case refusedHere >= 0:
					require.Error(t, err, "%s: known open difference %q says this exporter refuses it", s.id, open[refusedHere].name)
					assert.Contains(t, err.Error(), open[refusedHere].refused)
				case pending && err != nil:
					t.Logf("%s: pending, refused until its key is supported: %v", s.id, err)
				default:
					require.NoError(t, err, "contrib loads %s", s.id)
				}
				for _, line := range lines {
					if slices.ContainsFunc(quotes, func(q string) bool { return elasticsearchexporter.QuotedLineMatches(line, q) }) {
						continue
					}
					if slices.ContainsFunc(open, func(d knownOpenDifference) bool { return d.line != "" && strings.Contains(line, d.line) }) {
						t.Logf("%s logs a line that %s does not quote yet (a known open difference): %q", s.id, elasticsearchexporter.MovingDoc, line)
						continue
					}
					t.Errorf("%s logs a start-up line that %s does not quote: %q", s.id, elasticsearchexporter.MovingDoc, line)
				}
			}
		})
	}
}

// TestCorpusKeysInConfigurationDoc checks that every key that a configuration of the corpus
// uses, where contrib loads it, has a row in docs/configuration.md: in a "Key" table, or in
// the table of deprecated keys. A key inside a section documented as a whole (`tls::ca_file`
// under `tls`, a header name under `headers`) is covered by the section's row.
func TestCorpusKeysInConfigurationDoc(t *testing.T) {
	documented := map[string]bool{}
	for _, r := range elasticsearchexporter.ConfigDocRows(t, elasticsearchexporter.ConfigDoc) {
		documented[r.Key] = true
	}
	for _, k := range configDocFirstCells(t, elasticsearchexporter.ConfigDoc, "Deprecated key") {
		documented[k] = true
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	require.NoError(t, err)
	used := map[string]string{} // key -> the first file that uses it
	for _, file := range files {
		if readCorpusHeader(t, file).refused {
			continue // not contrib's keys
		}
		for _, s := range corpusSections(t, file) {
			if slices.ContainsFunc(knownOpenDifferences, func(d knownOpenDifference) bool { return d.pending && d.applies(s.raw) }) {
				continue // its key gets its row with its support
			}
			for _, k := range corpusKeys(s.raw, "") {
				if _, ok := used[k]; !ok {
					used[k] = file
				}
			}
		}
	}
	require.NotEmpty(t, used)
	for _, k := range slices.Sorted(maps.Keys(used)) {
		covered := false
		for p := k; p != "" && !covered; {
			covered = documented[p]
			i := strings.LastIndex(p, "::")
			if i < 0 {
				break
			}
			p = p[:i]
		}
		if !covered {
			t.Errorf("%s uses `%s`, which %s has no row for: add one to its \"Key\" table", used[k], k, elasticsearchexporter.ConfigDoc)
		}
	}
}

// corpusKeys returns the leaf keys of the raw section, with the collector's "::" separator.
func corpusKeys(m map[string]any, prefix string) []string {
	var keys []string
	for k, v := range m {
		key := prefix + k
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			keys = append(keys, corpusKeys(sub, key+"::")...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// configDocFirstCells returns the keys in backticks of the first cells of the rows of the
// tables of the Markdown file path whose first header is header.
func configDocFirstCells(t *testing.T, path, header string) []string {
	t.Helper()
	var keys []string
	in := false
	elasticsearchexporter.ForMarkdownLines(t, path, func(_ int, text string) {
		text = strings.TrimSpace(text)
		switch {
		case !strings.HasPrefix(text, "|"):
			in = false
		case elasticsearchexporter.FirstCell(text) == header:
			in = true
		case in && !elasticsearchexporter.DocTableSeparator.MatchString(text):
			if m := elasticsearchexporter.DocKeyCell.FindStringSubmatch(elasticsearchexporter.FirstCell(text)); m != nil {
				keys = append(keys, m[1])
			}
		}
	})
	require.NotEmpty(t, keys, "%s has no table whose first header is %q", path, header)
	return keys
}

// loadAsCollector unmarshals the section into the factory's default configuration, validates
// it, creates the logs, metrics and traces exporters with an observed logger and shuts them
// down, and returns the Warn and Info lines logged, in order.
func loadAsCollector(t *testing.T, s corpusSection) ([]string, error) {
	t.Helper()
	f := elasticsearchexporter.NewFactory()
	cfg := f.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(s.raw).Unmarshal(cfg); err != nil {
		return nil, err
	}
	if err := confmap.Validate(cfg); err != nil {
		return nil, err
	}
	core, logs := observer.New(zapcore.InfoLevel)
	set := elasticsearchexporter.TestSettings()
	set.ID = s.id
	set.Logger = zap.New(core)
	ctx := context.Background()
	var created []component.Component
	defer func() {
		for _, c := range created {
			assert.NoError(t, c.Shutdown(ctx))
		}
	}()
	logsExp, err := f.CreateLogs(ctx, set, cfg)
	if err != nil {
		return nil, err
	}
	created = append(created, logsExp)
	metricsExp, err := f.CreateMetrics(ctx, set, cfg)
	if err != nil {
		return nil, err
	}
	created = append(created, metricsExp)
	tracesExp, err := f.CreateTraces(ctx, set, cfg)
	if err != nil {
		return nil, err
	}
	created = append(created, tracesExp)
	var lines []string
	for _, e := range logs.All() {
		lines = append(lines, e.Message)
	}
	return lines, nil
}

// corpusSection is one elasticsearch exporter of a corpus file.
type corpusSection struct {
	id  component.ID
	raw map[string]any
}

// corpusSections returns the elasticsearch exporters of the file, in the order of their IDs.
func corpusSections(t *testing.T, file string) []corpusSection {
	t.Helper()
	cm, err := confmaptest.LoadConf(file)
	require.NoError(t, err)
	exporters, err := cm.Sub("exporters")
	require.NoError(t, err)
	var sections []corpusSection
	for key, v := range exporters.ToStringMap() {
		var id component.ID
		require.NoError(t, id.UnmarshalText([]byte(key)), "%s: exporter ID %q", file, key)
		if id.Type().String() != "elasticsearch" {
			continue
		}
		raw, _ := v.(map[string]any)
		if raw == nil {
			raw = map[string]any{}
		}
		sections = append(sections, corpusSection{id: id, raw: raw})
	}
	slices.SortFunc(sections, func(a, b corpusSection) int { return strings.Compare(a.id.String(), b.id.String()) })
	return sections
}

// corpusHeader is what a corpus file's header says.
type corpusHeader struct {
	source, changed, contrib string
	refused                  bool
	here                     string // a part of the error this exporter gives, when refused
}

var contribRefuses = regexp.MustCompile(`^refuses[^:]*: .+$`)

// readCorpusHeader reads the header of the file and fails the test for a header without a
// source, without a line saying what was changed, or without contrib's verdict.
func readCorpusHeader(t *testing.T, file string) corpusHeader {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var h corpusHeader
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case strings.HasPrefix(text, "Source: "):
			h.source = strings.TrimPrefix(text, "Source: ")
		case strings.HasPrefix(text, "Changed: "):
			h.changed = strings.TrimPrefix(text, "Changed: ")
		case strings.HasPrefix(text, "Contrib: "):
			h.contrib = strings.TrimPrefix(text, "Contrib: ")
		case strings.HasPrefix(text, "Here: refuses: "):
			h.here = strings.TrimPrefix(text, "Here: refuses: ")
		}
	}
	require.NotEmpty(t, h.source, "%s: the header names no source (# Source: repository path @ commit)", file)
	require.NotEmpty(t, h.changed, "%s: the header does not say what was changed (# Changed: ...)", file)
	switch {
	case h.contrib == "loads":
	case contribRefuses.MatchString(h.contrib):
		h.refused = true
		require.NotEmpty(t, h.here, "%s: contrib refuses it; the header must say with which error this exporter does (# Here: refuses: <part of the error>)", file)
	default:
		t.Fatalf("%s: the header's contrib line must be `# Contrib: loads` or `# Contrib: refuses...: <error>`, got %q", file, h.contrib)
	}
	return h
}
