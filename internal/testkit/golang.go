package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// InspectGo parses every Go file the globs match, test files left out, and
// walks each with fn as ast.Inspect does, positions recorded in fset. It
// returns how many files it read, so that a test can tell a glob that
// matched nothing from code that has nothing to find.
func InspectGo(t testing.TB, fset *token.FileSet, fn func(ast.Node) bool, globs ...string) int {
	t.Helper()
	read := 0
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, fn)
			read++
		}
	}
	return read
}
