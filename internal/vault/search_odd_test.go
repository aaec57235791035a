package vault

import (
	"errors"
	"strings"
	"testing"
)

// TestSearchOddQueries: half-written operators, stray brackets and ORs,
// very long and invalid UTF-8 queries answer (often nothing) or refuse
// with invalid_argument, with the index built or not, and never panic.
func TestSearchOddQueries(t *testing.T) {
	queries := []string{"[", "]", "[:]", "[]", "-[", "-[]", "-[:]", "- [", "[a:b OR]", "[a:OR b]", "[:x]", "[x:\"]",
		"OR", "OR OR", "a OR", "OR a", "-", "--", "\"", "-\"\"", "tag:", "#", "path:", "file:", "-[status:OR]",
		strings.Repeat("a OR ", 5000), strings.Repeat("[a:b OR c OR d] ", 40), strings.Repeat("-[x:y OR z] ", 40),
		strings.Repeat("[", 10000), "\xff\xfe", "[\xff:\xfe]", "-[\xff]", "a\x00b"}
	for _, indexed := range []bool{false, true} {
		v, _ := newTestVault(t, map[string]string{
			"a.md": "---\nstatus: active\ntags: [x]\n---\nalpha beta [link]\n",
			"b.md": "gamma - [ ] task\n",
		}, func(o *Options) { o.Index = indexed })
		if err := v.WaitIndexed(ctx); err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			_, err := v.SearchPage(ctx, Query{Text: q})
			var ve *Error
			if err != nil && (!errors.As(err, &ve) || ve.Code != CodeInvalidArgument) {
				t.Errorf("indexed %v, %.40q: %v", indexed, q, err)
			}
		}
	}
}
