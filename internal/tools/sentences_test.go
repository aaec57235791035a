package tools

import (
	"encoding/json"
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// sample is an error of key with every value set, as the vault would fill
// them in.
func sample(k string) *vault.Error {
	code, reason, _ := strings.Cut(k, "/")
	return &vault.Error{Code: code, Reason: reason, Subject: "Plan", Detail: "#", Size: 2048, Limit: 1024, Count: 3,
		Why: &vault.Error{Code: vault.CodeInvalidPath, Reason: vault.ReasonHiddenPart}}
}

// constValues reads the string constants of the Go files matched by glob
// whose names start with one of prefixes.
func constValues(t *testing.T, glob string, prefixes ...string) map[string]string {
	consts := map[string]string{}
	testkit.InspectGo(t, token.NewFileSet(), func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if i >= len(vs.Values) || !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name.Name, p) }) {
				continue
			}
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				consts[name.Name], _ = strconv.Unquote(lit.Value)
			}
		}
		return true
	}, glob)
	return consts
}

// ownRefusals reads the tools' code for the refusals of their own: every
// vault.Error literal with a code and maybe a reason, and every reason set
// on one afterwards (e.Reason = reasonX), as table keys and reasons.
func ownRefusals(t *testing.T) (keys map[string]string, reasons map[string]bool) {
	vaultConsts := constValues(t, "../vault/*.go", "Code", "Reason")
	own := constValues(t, "*.go", "code", "reason")
	value := func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.SelectorExpr:
			v, ok := vaultConsts[e.Sel.Name]
			return v, ok
		case *ast.Ident:
			v, ok := own[e.Name]
			return v, ok
		}
		return "", false
	}
	keys, reasons = map[string]string{}, map[string]bool{}
	fset := token.NewFileSet()
	testkit.InspectGo(t, fset, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Error" {
				return true
			}
			var code, reason string
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					k, _ := kv.Key.(*ast.Ident)
					if v, ok := value(kv.Value); ok && k != nil && k.Name == "Code" {
						code = v
					} else if ok && k != nil && k.Name == "Reason" {
						reason = v
					}
				}
			}
			if code != "" {
				keys[key(code, reason)] = fset.Position(n.Pos()).String()
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reason" {
					for _, r := range n.Rhs {
						if v, ok := value(r); ok {
							reasons[v] = true
						}
					}
				}
			}
		}
		return true
	}, "*.go")
	return keys, reasons
}

// TestEveryRefusalHasAToolSentence keeps the one table whole: every code
// and reason the vault reports, and every refusal of the tools' own, has
// its sentence in toolMessages, with every value it names filled in; and
// the table has no sentence for a refusal nobody makes.
func TestEveryRefusalHasAToolSentence(t *testing.T) {
	known := vault.Sentences()
	if len(known) < 20 {
		t.Fatalf("the vault reports only %d codes and reasons", len(known))
	}
	keys, reasons := ownRefusals(t)
	if len(keys) < 20 || !reasons[reasonIDIntoSection] {
		t.Fatalf("found only %d refusals of the tools' own and reasons %v", len(keys), reasons)
	}
	all := map[string]string{}
	for k := range known {
		if !strings.HasPrefix(k, vault.CodeInternal+"/") {
			all[k] = "the vault" // internal errors are all told the sentence of their code
		}
	}
	for k, where := range keys {
		all[k] = where
	}
	for k, where := range all {
		msg, ok := toolMessages[k]
		if !ok {
			t.Errorf("%s (%s): no sentence in toolMessages", k, where)
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
		_, reason, _ := strings.Cut(k, "/")
		if _, ok := all[k]; !ok && !reasons[reason] {
			t.Errorf("toolMessages[%q]: no refusal has this code and reason", k)
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
	fset := token.NewFileSet()
	files := testkit.InspectGo(t, fset, func(n ast.Node) bool {
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
	}, "../vault/*.go", "../vault/markdown/*.go")
	if files < 20 {
		t.Fatalf("found %d vault files", files)
	}
}
