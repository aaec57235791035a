package tools

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// sample is an error of key with every value set, as the vault would fill
// them in.
func sample(k string) *vault.Error {
	code, reason, _ := strings.Cut(k, "/")
	return &vault.Error{Code: code, Reason: reason, Subject: "Plan", Detail: "#", Size: 2048, Limit: 1024, Count: 3,
		Why: &vault.Error{Code: vault.CodeInvalidPath, Reason: vault.ReasonHiddenPart}}
}

// TestEveryVaultRefusalHasAToolSentence keeps the one table whole: every
// code and reason the vault reports has its sentence in toolMessages, with
// every value it names filled in, and the table has no sentence for a
// code or reason the vault no longer reports.
func TestEveryVaultRefusalHasAToolSentence(t *testing.T) {
	known := vault.Sentences()
	if len(known) < 20 {
		t.Fatalf("the vault reports only %d codes and reasons", len(known))
	}
	for k := range known {
		if strings.HasPrefix(k, vault.CodeInternal+"/") {
			continue // every internal error is told the one sentence of its code
		}
		msg, ok := toolMessages[k]
		if !ok {
			t.Errorf("%s: no sentence in toolMessages", k)
			continue
		}
		got := toolSentence(sample(k))
		if strings.ContainsAny(got, "{}") || got == "" {
			t.Errorf("%s: %q leaves a value unfilled", k, got)
		}
		if strings.HasSuffix(msg, ".") || msg != strings.ToLower(msg[:1])+msg[1:] && msg[0] != '{' {
			t.Errorf("%s: %q does not fit \"code: sentence\" (lowercase start, no final period)", k, msg)
		}
	}
	for k := range toolMessages {
		if _, ok := known[k]; !ok {
			t.Errorf("toolMessages[%q]: the vault reports no such code or reason", k)
		}
	}
}

// toolWords are the names of the model's tools and the arguments of
// theirs that no ordinary sentence holds (snake_case, metadata.version),
// as tools/list gives them.
func toolWords(t *testing.T) []string {
	e := newEnv(t)
	res, err := e.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"metadata.version"}
	for _, tool := range res.Tools {
		words = append(words, tool.Name)
		raw, _ := json.Marshal(tool.InputSchema)
		var sch struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatal(err)
		}
		for p := range sch.Properties {
			if strings.Contains(p, "_") {
				words = append(words, p)
			}
		}
	}
	slices.Sort(words)
	return slices.Compact(words)
}

// TestVaultSentencesNameNoTool checks that the vault's sentences for people
// (the console, the command line) name no tool and no tool argument: those
// words belong to the tools' own table.
func TestVaultSentencesNameNoTool(t *testing.T) {
	words := toolWords(t)
	if !slices.Contains(words, "delete_note") || !slices.Contains(words, "search") || !slices.Contains(words, "old_text") {
		t.Fatalf("tool words = %q", words)
	}
	var alts []string
	for _, w := range words {
		alts = append(alts, regexp.QuoteMeta(w))
	}
	named := regexp.MustCompile(`(?i)\b(` + strings.Join(alts, "|") + `)\b`)
	// Tools named by plain words ("search", "list", "links") may stand in
	// a sentence only as those words: the one such use is below.
	plain := strings.NewReplacer("symbolic links", "")
	for k, msg := range vault.Sentences() {
		for _, s := range slices.Compact([]string{msg, sample(k).Fill(msg)}) {
			if w := named.FindString(plain.Replace(s)); w != "" {
				t.Errorf("vault sentence %s names %q: %q", k, w, s)
			}
		}
	}
	// Sentences written outside the table (for the operator opening the
	// vault, for instance) must not name a tool either: no string in the
	// vault's code names one of the tools that is not also a word
	// (create_note, metadata.version; "search" and "list" are words).
	var odd []string
	for _, w := range words {
		if strings.ContainsAny(w, "_.") {
			odd = append(odd, regexp.QuoteMeta(w))
		}
	}
	oddNamed := regexp.MustCompile(`\b(` + strings.Join(odd, "|") + `)\b`)
	files, _ := filepath.Glob("../vault/*.go")
	more, _ := filepath.Glob("../vault/markdown/*.go")
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("found %d vault files", len(files))
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil {
				if w := oddNamed.FindString(s); w != "" {
					t.Errorf("%s: a string names %q: %q", fset.Position(lit.Pos()), w, s)
				}
			}
			return true
		})
	}
}
