// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the exporter module's root, seen from this folder.
const repoRoot = "../../../.."

// funcNames returns the functions and methods of the package in dir, its test files included
// (the profiles of `make request-cost` are of a benchmark), as a CPU profile names them: Func,
// (*T).Method, T.Method.
func funcNames(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				switch rt := fd.Recv.List[0].Type.(type) {
				case *ast.StarExpr:
					if id, ok := rt.X.(*ast.Ident); ok {
						name = "(*" + id.Name + ")." + name
					}
				case *ast.Ident:
					name = rt.Name + "." + name
				}
			}
			names = append(names, name)
		}
	}
	return names
}

// moduleFuncs are the function names of this repository's packages, read once per package.
type moduleFuncs map[string][]string

// assertExists fails when name, a function-name prefix as a CPU profile names it, is of this
// repository and names a package or a function that no longer exists; what names it is said in
// the failure.
func (m moduleFuncs) assertExists(t *testing.T, name, what string) {
	t.Helper()
	rest, ok := strings.CutPrefix(name, module)
	if !ok || rest == "" {
		return
	}
	// rest is "/internal/bulk.name", ".name" (the root package) or "/internal/serializer".
	pkg, fn, hasFn := strings.Cut(rest, ".")
	dir := filepath.Join(repoRoot, filepath.FromSlash(pkg))
	if !hasFn {
		assert.DirExists(t, dir, "%s %q", what, name)
		return
	}
	names, seen := m[dir]
	if !seen {
		names = funcNames(t, dir)
		m[dir] = names
	}
	found := false
	for _, n := range names {
		found = found || strings.HasPrefix(n, fn)
	}
	assert.True(t, found, "%s %q: no function of %s starts with %q", what, name, dir, fn)
}
