package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/cortex-mcp/cortex/"

// fileCalls are the functions that open, create, change or list files.
var fileCalls = map[string]bool{
	"os.Open": true, "os.OpenFile": true, "os.ReadFile": true, "os.WriteFile": true, "os.Create": true,
	"os.CreateTemp": true, "os.Remove": true, "os.RemoveAll": true, "os.Rename": true, "os.OpenRoot": true,
	"os.OpenInRoot": true, "os.ReadDir": true, "os.Truncate": true, "os.Link": true, "os.Symlink": true,
	"os.Chmod": true, "os.Chtimes": true, "os.DirFS": true, "filepath.WalkDir": true, "filepath.Walk": true,
	"filepath.Glob": true, "os.CopyFS": true,
}

// fileUsers may touch files and why. Everything else must ask a package
// that owns the files it needs; in particular only the vault touches notes.
var fileUsers = map[string]string{
	"internal/vault":   "owns the notes",
	"internal/store":   "owns the state database file in the state folder",
	"internal/config":  "creates the vault and state folders at start; reads the cgroup's and the machine's memory for the default memory limit",
	"internal/certs":   "keeps the ACME certificate cache in the state folder",
	"internal/backup":  "writes and reads backup archives; reaches notes and the state only through vault and store",
	"internal/profile": "writes a CPU profile to the file the operator names, only when asked",
	"internal/testkit": "test-only: lays out a test's vault and reads it back, as the tests themselves do",
}

type goFile struct {
	pkg  string // repo-relative dir
	path string
	ast  *ast.File
}

func repoFiles(t *testing.T) []goFile {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var files []goFile
	fset := token.NewFileSet()
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			files = append(files, goFile{pkg: filepath.ToSlash(rel), path: p, ast: f})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatal("no Go files found")
	}
	return files
}

func within(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

func TestOnlyTheVaultTouchesFiles(t *testing.T) {
	for _, f := range repoFiles(t) {
		allowed := false
		for dir := range fileUsers {
			if within(f.pkg, dir) {
				allowed = true
			}
		}
		if allowed {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if ok && fileCalls[id.Name+"."+sel.Sel.Name] {
				t.Errorf("%s uses %s.%s: only %v may touch files", f.path, id.Name, sel.Sel.Name, keys(fileUsers))
			}
			return true
		})
	}
}

// leaves are the packages vault and store may import, each importing no
// cortex package itself, and why they are shared.
var leaves = map[string]string{
	"internal/fsync": "the one rule for syncing a file or folder and which refusals mean the file system has nothing more to give",
}

func TestVaultAndStoreImportNoOtherInternalPackage(t *testing.T) {
	for _, f := range repoFiles(t) {
		for _, owner := range []string{"internal/vault", "internal/store"} {
			if !within(f.pkg, owner) {
				continue
			}
			for _, imp := range f.ast.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				rel := strings.TrimPrefix(p, module)
				if strings.HasPrefix(p, module) && !within(rel, owner) && leaves[rel] == "" {
					t.Errorf("%s imports %s; %s must import no other internal package but %v", f.path, p, owner, keys(leaves))
				}
			}
		}
	}
}

// searchImports are the only imports of package search beyond the
// standard library's string and data packages: it is fed by the vault and
// never reaches files, the log or the vault itself.
var searchImports = map[string]bool{module + "internal/vault/markdown": true}

// notForSearch are the standard packages that reach files, the process or
// the log.
var notForSearch = map[string]bool{"os": true, "io/fs": true, "path/filepath": true, "log": true, "log/slog": true, "syscall": true}

func TestSearchIsStringsAndData(t *testing.T) {
	seen := false
	for _, f := range repoFiles(t) {
		if !within(f.pkg, "internal/vault/search") {
			continue
		}
		seen = true
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) && !searchImports[p] || notForSearch[p] {
				t.Errorf("%s imports %s; search may import only %v of cortex, and nothing that reaches files or the log", f.path, p, searchImports)
			}
		}
	}
	if !seen {
		t.Error("no files of internal/vault/search found")
	}
}

// TestDiffIsStringsOnly: the console, the history and the tools share
// package diff, so it must bring none of them in, nor reach files or the
// log.
func TestDiffIsStringsOnly(t *testing.T) {
	seen := false
	for _, f := range repoFiles(t) {
		if f.pkg != "internal/diff" {
			continue
		}
		seen = true
		for _, imp := range f.ast.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, module) || notForSearch[p] {
				t.Errorf("%s imports %s; diff may import only the standard library's string and data packages", f.path, p)
			}
		}
	}
	if !seen {
		t.Error("no files of internal/diff found")
	}
}

// TestLeavesImportNoInternalPackage: what vault and store share must not
// bring the rest of cortex in through the back door.
func TestLeavesImportNoInternalPackage(t *testing.T) {
	for _, f := range repoFiles(t) {
		if leaves[f.pkg] == "" {
			continue
		}
		for _, imp := range f.ast.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, module) {
				t.Errorf("%s imports %s; a package vault and store share must import no cortex package", f.path, p)
			}
		}
	}
}

func TestNothingImportsCmdOrTests(t *testing.T) {
	for _, f := range repoFiles(t) {
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"cmd") || strings.HasPrefix(p, module+"internal/e2e") {
				t.Errorf("%s imports %s", f.path, p)
			}
		}
	}
}

// TestTestkitIsForTestsOnly: the shared test helpers stay out of the
// binary, and any package's tests (store's and vault's too) may use them.
func TestTestkitIsForTestsOnly(t *testing.T) {
	for _, f := range repoFiles(t) {
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			switch {
			case f.pkg == "internal/testkit":
				t.Errorf("%s imports %s; testkit must import no other cortex package", f.path, p)
			case within(f.pkg, "internal/testkit"):
				// A sub-package (notekit) builds on the packages it sets
				// up; their own tests cannot use it, which the compiler
				// enforces as an import cycle.
			case within(strings.TrimPrefix(p, module), "internal/testkit"):
				t.Errorf("%s imports %s; only _test.go files may", f.path, p)
			}
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// runtimeSettings are the calls that change the whole process's runtime.
var runtimeSettings = map[string]bool{
	"debug.SetGCPercent": true, "debug.SetMemoryLimit": true, "debug.FreeOSMemory": true,
	"debug.SetMaxThreads": true, "debug.SetMaxStack": true,
}

// TestOnlyCmdTunesTheRuntime: the collector's target and the memory handed
// back are the process's business, set in cmd; a library package asks for
// them through a hook (vault.Options.BulkRead) instead of changing them for
// everyone.
func TestOnlyCmdTunesTheRuntime(t *testing.T) {
	for _, f := range repoFiles(t) {
		if within(f.pkg, "cmd") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && runtimeSettings[id.Name+"."+sel.Sel.Name] {
				t.Errorf("%s calls %s.%s: only cmd changes the process's runtime settings", f.path, id.Name, sel.Sel.Name)
			}
			return true
		})
	}
}

// TestScopeIsStringsOnly: the patterns that decide what each app may see
// are read the same everywhere because one leaf package reads them; it
// imports no other cortex package and touches no file.
func TestScopeIsStringsOnly(t *testing.T) {
	for _, f := range repoFiles(t) {
		if f.pkg != "internal/vault/scope" {
			continue
		}
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) || p == "os" || p == "io/fs" {
				t.Errorf("%s imports %s; the scope package works on strings only", f.path, p)
			}
		}
	}
}

// TestBinaryCarriesTimeZones: the console shows times in the owner's time
// zone, loaded by name; the binary embeds the time zone database, so a zone
// that loads on a developer's machine loads in every image too (the base
// `make image` assembles has no /usr/share/zoneinfo).
func TestBinaryCarriesTimeZones(t *testing.T) {
	for _, f := range repoFiles(t) {
		if f.pkg != "cmd/cortex" {
			continue
		}
		for _, imp := range f.ast.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "time/tzdata" {
				return
			}
		}
	}
	t.Error(`cmd/cortex does not import _ "time/tzdata"`)
}
