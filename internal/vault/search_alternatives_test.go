package vault

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearchTooManyAlternatives: a query with more alternatives than a
// search takes (each OR, and each combination of a property's values) is
// refused, rather than answered as complete without the notes that the
// alternatives left out would have found.
func TestSearchTooManyAlternatives(t *testing.T) {
	files := map[string]string{}
	var vals, words []string
	for i := range 40 {
		val := fmt.Sprintf("s%c%c", 'a'+i/26, 'a'+i%26)
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("---\nstatus: %s\n---\nword%s\n", val, val)
		vals = append(vals, val)
		words = append(words, "word"+val)
	}
	v, _ := newTestVault(t, files, func(o *Options) { o.Index = true })
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"[status:" + strings.Join(vals, " OR ") + "]",
		strings.Join(words, " OR "),
		"[status:" + strings.Join(vals[:7], " OR ") + "] [status:" + strings.Join(vals[:7], " OR ") + "]",
	} {
		p, err := v.SearchPage(ctx, Query{Text: q, Limit: 50})
		if err == nil {
			t.Errorf("%.40q… = %d hits, complete; want invalid_argument", q, len(p.Hits))
			continue
		}
		wantCode(t, err, CodeInvalidArgument)
		if !strings.Contains(err.Error(), "alternatives") {
			t.Errorf("%.40q…: %v", q, err)
		}
	}
	// Up to the limit, every alternative is searched.
	p, err := v.SearchPage(ctx, Query{Text: "[status:" + strings.Join(vals[:32], " OR ") + "]", Limit: 50})
	if err != nil || len(p.Hits) != 32 {
		t.Errorf("32 alternatives: %d hits, %v", len(p.Hits), err)
	}
}
