// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter_test

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelcol-es/elasticsearchexporter"
)

// documentsDoc is the page that shows example documents, each a ```json block after a comment
// <!-- golden: <file> line <n> --> naming the golden line it shows.
const documentsDoc = "docs/documents.md"

// documentedGolden is the golden file whose every document documentsDoc shows.
const documentedGolden = "testdata/golden/metrics/documented.ndjson"

var goldenBlock = regexp.MustCompile("(?s)<!-- golden: (\\S+) line (\\d+) -->\n```json\n(.*?)\n```")

// TestDocumentsExamples compares each tagged example of docs/documents.md with the golden line
// it names (which TestGolden keeps equal to what the exporter writes), as JSON with numbers
// compared as written (1.0 is not 1), and checks that every document of documentedGolden is
// shown: the examples cannot go stale, and no point type goes without one.
func TestDocumentsExamples(t *testing.T) {
	page, err := os.ReadFile(documentsDoc)
	require.NoError(t, err)
	blocks := goldenBlock.FindAllSubmatch(page, -1)
	require.NotEmpty(t, blocks, "no tagged example in %s", documentsDoc)
	shown := map[int]bool{}
	files := map[string][]string{}
	for _, b := range blocks {
		file, line, text := string(b[1]), string(b[2]), b[3]
		n, convErr := strconv.Atoi(line)
		require.NoError(t, convErr)
		lines, ok := files[file]
		if !ok {
			raw, readErr := fs.ReadFile(os.DirFS("."), file) // a path the page names, inside the repository
			require.NoError(t, readErr, "the golden file of an example")
			lines = strings.Split(string(raw), "\n")
			files[file] = lines
		}
		require.Positive(t, n)
		require.LessOrEqual(t, n, len(lines), "%s has no line %d", file, n)
		assert.Equal(t, elasticsearchexporter.Decode(t, []byte(lines[n-1])), elasticsearchexporter.Decode(t, text), "the example of %s line %d", file, n)
		if file == documentedGolden {
			shown[n] = true
		}
	}
	raw, err := os.ReadFile(documentedGolden)
	require.NoError(t, err)
	for i, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if n := i + 1; n%2 == 0 {
			assert.True(t, shown[n], "%s does not show the document of %s line %d: %s", documentsDoc, documentedGolden, n, l)
		}
	}
}
