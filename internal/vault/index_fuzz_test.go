package vault

import (
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// FuzzIndexAgreesWithMatch checks the index against search.Match, which
// decides what a search finds: every note Match accepts is a candidate,
// and without phrases (which the index leaves to Match) every candidate
// is accepted.
func FuzzIndexAgreesWithMatch(f *testing.F) {
	f.Add("basil garlic", "Dir/Note.md", "---\ntags: [food/herbs]\n---\n# Pesto\nBasil and garlic.\n")
	f.Add(`"pine nuts" tag:food`, "a.md", "---\ntags: [Food]\n---\nPine, nuts. #x\n")
	f.Add("会議 東京", "Work/会議.md", "# 会議の記録\n東京で打ち合わせ。\n")
	f.Add("creme bru", "x/y/z.md", "Crème Brûlée and Straße\n")
	f.Add("#a/b folder:Dir", "Dir/n.md", "text #a/b/c and #d\n")
	f.Add("state-of-the-art", "s.md", "state of the art, state-of-the-art\n")
	f.Add("garden OR -rack [status:act] path:dir", "Dir/n.md", "---\nstatus: active\n---\ngarden\n")
	f.Add("-tag:x file:note [owners:bo] OR 🚀", "Dir/Note.md", "---\nowners: [Ana, Bo]\ntags: [x]\n---\n🚀 go\n")
	f.Add("- [ ]", "t.md", "- [ ] task\n")
	f.Add("🚀 go folder:Dir", "Dir/n.md", "🚀 go\n")
	f.Add(`[tags:"a b"] -"old stuff"`, "t.md", "---\ntags: [a b c]\n---\nnew stuff\n")
	f.Fuzz(func(t *testing.T, q, p, content string) {
		if checkPath(p) != nil || !isNoteName(lastSeg(p)) {
			return
		}
		pq := search.ParseQuery(q)
		if pq.Empty() || pq.Unsupported != "" || pq.NoValue != "" {
			return
		}
		x := search.NewIndex()
		x.Put(search.Analyse(p, content, time.Unix(1, 0).UnixNano(), int64(len(content))), true)
		found := len(x.Candidates(pq)) == 1
		score, _ := search.Match(pq, p, markdown.Title(content, p), content)
		if score > 0 && !found {
			t.Fatalf("Match accepts %q for %q but the index has no candidate", p, q)
		}
		if found && score == 0 && len(pq.Phrases) == 0 && !pq.Extended() {
			t.Fatalf("index offers %q for %q but Match refuses it", p, q)
		}
	})
}

func lastSeg(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
