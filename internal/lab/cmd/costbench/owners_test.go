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

// TestOwnersNameExistingFunctions fails for an owner of the profile splits, or a push function of
// the split's "under push", that names a function of this repository that no longer exists: its
// samples would fall to another part.
func TestOwnersNameExistingFunctions(t *testing.T) {
	cache := map[string][]string{}
	all := append(append([]owner{}, owners...), requestOwners...)
	for _, f := range underPush {
		all = append(all, owner{prefix: f})
	}
	for _, o := range all {
		rest, ok := strings.CutPrefix(o.prefix, module)
		if !ok || rest == "" {
			continue
		}
		// rest is "/internal/bulk.name", ".name" (the root package) or "/internal/serializer".
		pkg, fn, hasFn := strings.Cut(rest, ".")
		dir := filepath.Join(repoRoot, filepath.FromSlash(pkg))
		if !hasFn {
			assert.DirExists(t, dir, "owner %q", o.prefix)
			continue
		}
		names, seen := cache[dir]
		if !seen {
			names = funcNames(t, dir)
			cache[dir] = names
		}
		found := false
		for _, n := range names {
			found = found || strings.HasPrefix(n, fn)
		}
		assert.True(t, found, "owner %q: no function of %s starts with %q", o.prefix, dir, fn)
	}
}
