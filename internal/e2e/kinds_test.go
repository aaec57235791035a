package e2e

import (
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHistoryKindsAgree: the kinds of change are declared twice, in vault
// (what the vault hands history.Keeper) and in store (what the history
// database records), because neither package may import the other. The
// keeper passes a kind through unchanged, so the two sets must be the same
// names with the same values; a kind added on one side only fails here.
func TestHistoryKindsAgree(t *testing.T) {
	kinds := map[string]map[string]string{"internal/vault": {}, "internal/store": {}}
	for _, f := range repoFiles(t) {
		set, ok := kinds[f.pkg]
		if !ok {
			continue
		}
		for _, d := range f.ast.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !strings.HasPrefix(name.Name, "Kind") || i >= len(v.Values) {
						continue
					}
					lit, ok := v.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: %s is not a string literal", f.path, name.Name)
						continue
					}
					set[name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	v, s := kinds["internal/vault"], kinds["internal/store"]
	if len(v) != 7 {
		t.Errorf("vault declares %d kinds, want the seven: %v", len(v), slices.Sorted(maps.Keys(v)))
	}
	if !maps.Equal(v, s) {
		t.Errorf("the kinds differ:\nvault %v\nstore %v", v, s)
	}
}
