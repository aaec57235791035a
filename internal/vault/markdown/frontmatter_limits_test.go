package markdown

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func wantLimit(t *testing.T, what string, err error) {
	t.Helper()
	var fe *FrontmatterError
	if !errors.As(err, &fe) || !fe.Limit {
		t.Fatalf("%s: err = %v, want a limit error", what, err)
	}
	if !strings.Contains(err.Error(), "the most cortex reads") {
		t.Errorf("%s: %q does not state the limit", what, err)
	}
}

func TestFrontmatterLimits(t *testing.T) {
	fm, err := ParseFrontmatter(manyKeys(MaxFrontmatterKeys))
	if err != nil || len(fm.Map) != MaxFrontmatterKeys || fm.Map["k999"] != 999 {
		t.Fatalf("%d keys: %v, %d keys decoded", MaxFrontmatterKeys, err, len(fm.Map))
	}
	_, err = ParseFrontmatter(manyKeys(MaxFrontmatterKeys + 1))
	wantLimit(t, "one key too many", err)
	// Keys of nested mappings count too.
	nested := "---\nouter:\n"
	for i := range MaxFrontmatterKeys {
		nested += fmt.Sprintf("  n%d: %d\n", i, i)
	}
	_, err = ParseFrontmatter(nested + "---\n")
	wantLimit(t, "nested keys", err)
	_, err = ParseFrontmatter("---\nbig: " + strings.Repeat("x", MaxFrontmatterBytes) + "\n---\n")
	wantLimit(t, "a block past the byte limit", err)
	_, err = ParseFrontmatter(manyKeys(100_000))
	wantLimit(t, "100,000 keys", err)

	// A repeated key is invalid YAML, found on the fast path as the
	// library finds it.
	_, err = ParseFrontmatter("---\na: 1\nb: 2\na: 3\n---\n")
	var fe *FrontmatterError
	if !errors.As(err, &fe) || fe.Limit || fe.Line != 4 {
		t.Fatalf("repeated key: %#v", err)
	}

	// An update may not write what could not be read back.
	set := map[string]any{}
	for i := range MaxFrontmatterKeys + 1 {
		set[fmt.Sprint("s", i)] = i
	}
	_, err = UpdateFrontmatter("body\n", set, nil)
	wantLimit(t, "setting too many keys", err)
	_, err = UpdateFrontmatter(manyKeys(MaxFrontmatterKeys), map[string]any{"one": "more"}, nil)
	wantLimit(t, "growing past the key limit", err)
	_, err = UpdateFrontmatter("body\n", map[string]any{"big": strings.Repeat("x", MaxFrontmatterBytes)}, nil)
	wantLimit(t, "growing past the byte limit", err)
	if _, err := UpdateFrontmatter(manyKeys(MaxFrontmatterKeys), map[string]any{"k0": "changed"}, []string{"k1"}); err != nil {
		t.Fatalf("an update within the limits: %v", err)
	}
}

// Anchors, aliases and merge keys go through the library's decoding and
// give what they always gave.
func TestFrontmatterAliasesAndMerges(t *testing.T) {
	fm, err := ParseFrontmatter("---\nbase: &b {x: 1}\nmore:\n  <<: *b\n  y: 2\ntags: &t [a]\nalso: *t\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := fm.Map["more"].(map[string]any)
	if more["x"] != 1 || more["y"] != 2 || fmt.Sprint(fm.Map["also"]) != "[a]" {
		t.Errorf("decoded %#v", fm.Map)
	}
}

// Replacing a value that carries an anchor still named by an alias would
// write YAML that does not read back: refused.
func TestUpdateKeepsAliasesValid(t *testing.T) {
	_, err := UpdateFrontmatter("---\nk: &x 1\nb: *x\n---\n", map[string]any{"k": 2}, nil)
	if !errors.Is(err, ErrDanglingAlias) {
		t.Fatalf("err = %v, want ErrDanglingAlias", err)
	}
	// An anchor name used twice: replacing the later anchored value would
	// make the alias name the earlier one (here the key "k"), so another
	// property would change without being asked for.
	_, err = UpdateFrontmatter("---\n&x k: &x\n0: *x\n---", map[string]any{"k": "v"}, nil)
	if !errors.Is(err, ErrDanglingAlias) {
		t.Fatalf("rebinding alias: err = %v, want ErrDanglingAlias", err)
	}
	_, err = UpdateFrontmatter("---\na: &x 1\nk: &x 2\nb: *x\n---\n", nil, []string{"k"})
	if !errors.Is(err, ErrDanglingAlias) {
		t.Fatalf("removing the later anchor: err = %v, want ErrDanglingAlias", err)
	}
	out, err := UpdateFrontmatter("---\nk: &x 1\nb: *x\n---\n", map[string]any{"c": 3}, nil)
	if err != nil || !strings.Contains(out, "b: *x") {
		t.Fatalf("an unrelated update: %q, %v", out, err)
	}
}
