// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter"
)

// TestConfigurationDocCoversEveryKey walks every mapstructure key of Config and fails for
// each one that docs/configuration.md has no row for, and for each row that names no key.
//
// Required are the leaf keys of the exporter's own settings (a section such as `retry` is
// covered by its keys), and the top-level names of the two upstream settings whose full
// reference lives upstream: the confighttp client settings squashed at the top level
// (`tls`, `keepalive`, ...) and the sending queue (`sending_queue::batch`, ...). Their deeper
// keys may have rows (where this exporter's defaults differ, say) but need none.
func TestConfigurationDocCoversEveryKey(t *testing.T) {
	keys := map[string]bool{} // every key; true for the keys that need a row
	walkConfigKeys(reflect.TypeFor[elasticsearchexporter.Config](), "", keysOwn, keys)
	// A key of the exporter's own inside the upstream `tls` section, which Unmarshal takes out
	// of it into a field that the walk does not see (`mapstructure:"-"`).
	keys[elasticsearchexporter.CATrustedFingerprintKey] = true
	require.NotEmpty(t, keys)

	rows := elasticsearchexporter.ConfigDocRows(t, elasticsearchexporter.ConfigDoc)
	documented := map[string]int{}
	for _, r := range rows {
		documented[r.Key]++
		if documented[r.Key] == 2 {
			t.Errorf("%s:%d: `%s` has a second row; keep one row per key", elasticsearchexporter.ConfigDoc, r.Line, r.Key)
		}
		if _, ok := keys[r.Key]; !ok {
			t.Errorf("%s:%d: `%s` is not a key of Config; remove the row or fix the key", elasticsearchexporter.ConfigDoc, r.Line, r.Key)
		}
	}
	var missing []string
	for k, required := range keys {
		if required && documented[k] == 0 {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	for _, k := range missing {
		t.Errorf("%s has no row for %s: add a row | `%s` | type | default | meaning | contrib | to a table whose first header is \"Key\"",
			elasticsearchexporter.ConfigDoc, strings.ReplaceAll(k, "::", "."), k)
	}
}

// keyMode tells how the keys of a struct are required.
type keyMode int

const (
	keysOwn         keyMode = iota // the exporter's settings: every leaf needs a row
	keysUpstreamTop                // the top level of an upstream type: every field needs a row
	keysUpstream                   // below the top level of an upstream type: known, no row needed
)

// upstreamConfig reports whether t is one of the collector's settings types that
// docs/configuration.md lists by name and links to.
func upstreamConfig(t reflect.Type) bool {
	return t == reflect.TypeFor[confighttp.ClientConfig]() || t == reflect.TypeFor[exporterhelper.QueueBatchConfig]()
}

// walkConfigKeys records in keys the mapstructure key of every field of the struct type t,
// under prefix, and of the fields of its nested structs: through squashed fields, pointers,
// configoptional.Optional (whose struct values also take an `enabled` key) and slices of
// structs. A struct with no mapstructure fields (component.ID, say) is a leaf.
func walkConfigKeys(t reflect.Type, prefix string, mode keyMode, keys map[string]bool) {
	for f := range t.Fields() {
		tag := f.Tag.Get("mapstructure")
		name, opts, _ := strings.Cut(tag, ",")
		squash := slices.Contains(strings.Split(opts, ","), "squash")
		if name == "-" || (!f.IsExported() && !squash) {
			continue
		}
		if squash {
			// The fields of a squashed struct are at this struct's level.
			inner := mode
			if mode == keysOwn && upstreamConfig(f.Type) {
				inner = keysUpstreamTop
			}
			walkConfigKeys(f.Type, prefix, inner, keys)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		key := name
		if prefix != "" {
			key = prefix + "::" + name
		}
		walkConfigValue(f.Type, key, mode, keys)
	}
}

// walkConfigValue records key, a field of type t in a struct walked in mode, and the keys
// below it.
func walkConfigValue(t reflect.Type, key string, mode keyMode, keys map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	optional := t.Kind() == reflect.Struct && t.PkgPath() == "go.opentelemetry.io/collector/config/configoptional" &&
		strings.HasPrefix(t.Name(), "Optional[")
	if optional {
		value, ok := t.FieldByName("value")
		if !ok {
			panic("configoptional.Optional has no value field any more; teach walkConfigValue its new layout")
		}
		t = value.Type
	}
	nested := t.Kind() == reflect.Struct && hasMapstructureFields(t)
	keys[key] = keys[key] || mode == keysUpstreamTop || (mode == keysOwn && !nested)
	if !nested {
		return
	}
	inner := nestedMode(t, mode)
	if optional {
		// An Optional struct section can be turned off with `enabled: false`.
		keys[key+"::enabled"] = keys[key+"::enabled"] || inner != keysUpstream
	}
	walkConfigKeys(t, key, inner, keys)
}

// nestedMode is the mode of the fields of struct type t, met in a struct walked in mode.
func nestedMode(t reflect.Type, mode keyMode) keyMode {
	switch {
	case mode == keysOwn && upstreamConfig(t):
		return keysUpstreamTop
	case mode == keysOwn:
		return keysOwn
	default:
		return keysUpstream
	}
}

// hasMapstructureFields reports whether the struct type t has a field that is decoded by
// key: an exported field, or a squashed one, that is not tagged "-".
func hasMapstructureFields(t reflect.Type) bool {
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if name != "-" && (f.IsExported() || strings.Contains(opts, "squash")) {
			return true
		}
	}
	return false
}

// markdownLink matches an inline Markdown link or image and captures its target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocsLinksResolve checks that every relative link of README.md, CONTRIBUTING.md,
// docs/*.md and docs/dev/*.md names a file or folder of the repository and, when it has a
// #fragment into a Markdown file, a heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	dev, err := filepath.Glob("docs/dev/*.md")
	require.NoError(t, err)
	docs = append(docs, dev...)
	docs = append(docs, "README.md", "CONTRIBUTING.md")
	anchors := map[string]map[string]bool{}
	for _, doc := range docs {
		for _, l := range markdownLinks(t, doc) {
			target, fragment, _ := strings.Cut(l.target, "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := doc
			if target != "" {
				file = filepath.Join(filepath.Dir(doc), target)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link to %s: %v", doc, l.line, l.target, err)
					continue
				}
			}
			if fragment == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if anchors[file] == nil {
				anchors[file] = markdownAnchors(t, file)
			}
			if !anchors[file][fragment] {
				t.Errorf("%s:%d: link to %s: %s has no heading with the anchor #%s", doc, l.line, l.target, file, fragment)
			}
		}
	}
}

type markdownLinkAt struct {
	target string
	line   int
}

// markdownLinks returns the inline links of the Markdown file path, outside code blocks.
func markdownLinks(t *testing.T, path string) []markdownLinkAt {
	t.Helper()
	var links []markdownLinkAt
	elasticsearchexporter.ForMarkdownLines(t, path, func(line int, text string) {
		for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
			links = append(links, markdownLinkAt{target: m[1], line: line})
		}
	})
	return links
}

// markdownAnchors returns the anchors GitHub gives the headings of the Markdown file path:
// lower case, punctuation other than '-' and '_' removed, spaces turned into '-', and "-1",
// "-2", ... appended to repeated ones.
func markdownAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	seen := map[string]int{}
	elasticsearchexporter.ForMarkdownLines(t, path, func(_ int, text string) {
		if !strings.HasPrefix(text, "#") {
			return
		}
		heading := strings.TrimSpace(strings.TrimLeft(text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
				b.WriteRune(r)
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			anchors[anchor+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	})
	return anchors
}
