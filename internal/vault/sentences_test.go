package vault

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestEveryRefusalHasItsSentence reads the vault's code: every code and
// reason it refuses with (newErr(code, reason, ...) and Error{Code: ...,
// Reason: ...}) has its own sentence in the table, not the code's general
// one by accident, and every Reason constant is used with a sentence.
func TestEveryRefusalHasItsSentence(t *testing.T) {
	consts := map[string]string{} // identifier -> value, of Code* and Reason*
	var pairs [][2]string         // identifiers of code and reason, where they meet
	var where []token.Position
	fset := token.NewFileSet()
	testkit.InspectGo(t, fset, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) && (strings.HasPrefix(name.Name, "Code") || strings.HasPrefix(name.Name, "Reason") || name.Name == "reasonNone") {
					if lit, ok := n.Values[i].(*ast.BasicLit); ok {
						consts[name.Name] = strings.Trim(lit.Value, `"`)
					}
				}
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "newErr" && len(n.Args) == 3 {
				code, _ := n.Args[0].(*ast.Ident)
				reason, _ := n.Args[1].(*ast.Ident)
				if code == nil || reason == nil {
					t.Errorf("%s: newErr without a code and reason constant", fset.Position(n.Pos()))
					return true
				}
				pairs = append(pairs, [2]string{code.Name, reason.Name})
				where = append(where, fset.Position(n.Pos()))
			}
		case *ast.CompositeLit:
			if id, ok := n.Type.(*ast.Ident); !ok || id.Name != "Error" {
				return true
			}
			var code, reason string
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, _ := kv.Key.(*ast.Ident)
				v, _ := kv.Value.(*ast.Ident)
				if k != nil && v != nil && k.Name == "Code" {
					code = v.Name
				}
				if k != nil && v != nil && k.Name == "Reason" {
					reason = v.Name
				}
			}
			if code != "" {
				pairs = append(pairs, [2]string{code, reason})
				where = append(where, fset.Position(n.Pos()))
			}
		}
		return true
	}, "*.go")
	if len(pairs) < 50 {
		t.Fatalf("found only %d refusals", len(pairs))
	}
	used := map[string]bool{}
	for i, p := range pairs {
		code, ok := consts[p[0]]
		if !ok {
			continue // errStop and the like: never reach a caller
		}
		reason := consts[p[1]]
		used[reason] = true
		k := (&Error{Code: code, Reason: reason}).Key()
		if _, ok := sentences[k]; !ok {
			t.Errorf("%s: no sentence for %s", where[i], k)
		}
	}
	for name, v := range consts {
		if strings.HasPrefix(name, "Reason") && !used[v] {
			// A reason set after the error is built (e.Reason = ...)
			// must still stand in the table with some code.
			found := false
			for k := range sentences {
				found = found || strings.HasSuffix(k, "/"+v)
			}
			if !found {
				t.Errorf("%s (%q) has no sentence", name, v)
			}
		}
	}
	for k, s := range sentences {
		// {why} is a sentence, with its period; {subject} an operator.
		if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "{why}") || strings.ToUpper(s[:1]) != s[:1] {
			t.Errorf("%s: %q is not one sentence (capital first, final period)", k, s)
		}
	}
}
