package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The generator writes realistic Markdown: nested folders, frontmatter,
// headings, lists, code, wiki links, tags, several languages and a few large
// notes. The same seed always gives the same vault.

var (
	enWords = strings.Fields(`the garden plan meeting notes project budget review travel recipe book idea
		research summary draft release server backup network design family health running music photo
		weekly goals reading list invoice client contract kitchen bicycle mountain river winter summer
		tomato onion garlic pepper apple coffee morning evening database latency memory kernel compiler`)
	esWords = strings.Fields(`canción corazón año niño mañana información reunión proyecto jardín cocina
		música viaje montaña río invierno verano azúcar café pequeño camión lección pensión teléfono`)
	cjkRuns = []string{"会議の記録", "東京で打ち合わせ", "项目预算", "学习计划", "旅行日记", "数据库备份", "日本語のメモ", "北京天气"}
	topics  = []string{"Projects", "Areas", "Resources", "Archive", "Journal", "People", "Recipes", "Travel", "Work", "Reading"}
)

// generate writes n notes under dir and returns their paths.
func generate(dir string, n int, seed uint64) ([]string, int64, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	paths := make([]string, n)
	for i := range paths {
		top := topics[r.IntN(len(topics))]
		sub := fmt.Sprintf("%s %02d", strings.TrimSuffix(top, "s"), r.IntN(12))
		var folder string
		switch r.IntN(3) {
		case 0:
			folder = top
		case 1:
			folder = top + "/" + sub
		default:
			folder = top + "/" + sub + "/" + fmt.Sprintf("%d", 2020+r.IntN(7))
		}
		paths[i] = fmt.Sprintf("%s/%s %d.md", folder, title(r), i)
	}
	var total int64
	for i, p := range paths {
		large := i%997 == 13 // a few large notes
		body := note(r, paths, i, large)
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, 0, err
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			return nil, 0, err
		}
		total += int64(len(body))
	}
	return paths, total, nil
}

func title(r *rand.Rand) string {
	w := []string{}
	for range 2 + r.IntN(3) {
		if r.IntN(6) == 0 {
			w = append(w, esWords[r.IntN(len(esWords))])
		} else {
			w = append(w, enWords[r.IntN(len(enWords))])
		}
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ")
}

func sentence(r *rand.Rand, lang int) string {
	var b strings.Builder
	words := enWords
	if lang == 1 {
		words = esWords
	}
	if lang == 2 {
		for range 2 + r.IntN(4) {
			b.WriteString(cjkRuns[r.IntN(len(cjkRuns))])
		}
		b.WriteString("。")
		return b.String()
	}
	n := 6 + r.IntN(14)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	b.WriteByte('.')
	return b.String()
}

func note(r *rand.Rand, paths []string, self int, large bool) string {
	var b strings.Builder
	lang := 0
	switch x := r.IntN(10); {
	case x == 0:
		lang = 2
	case x < 3:
		lang = 1
	}
	fmt.Fprintf(&b, "---\ntags: [%s, %s]\naliases: [\"%s\"]\ncreated: 2026-%02d-%02d\n---\n",
		enWords[r.IntN(len(enWords))], topics[r.IntN(len(topics))], title(r), 1+r.IntN(12), 1+r.IntN(28))
	fmt.Fprintf(&b, "# %s\n\n", strings.TrimSuffix(filepath.Base(paths[self]), ".md"))
	sections := 3 + r.IntN(4)
	if large {
		sections = 1500
	}
	for s := range sections {
		fmt.Fprintf(&b, "## %s %d\n\n", title(r), s)
		for range 2 + r.IntN(3) {
			b.WriteString(sentence(r, lang))
			b.WriteByte(' ')
		}
		target := paths[r.IntN(len(paths))]
		fmt.Fprintf(&b, "See [[%s]] and #%s.\n\n", strings.TrimSuffix(filepath.Base(target), ".md"), enWords[r.IntN(len(enWords))])
		switch r.IntN(4) {
		case 0:
			for range 3 + r.IntN(4) {
				fmt.Fprintf(&b, "- %s\n", sentence(r, lang))
			}
			b.WriteByte('\n')
		case 1:
			fmt.Fprintf(&b, "```go\nfunc f%d() int { return %d } // #notatag\n```\n\n", s, r.IntN(1000))
		case 2:
			fmt.Fprintf(&b, "- [ ] %s\n- [x] %s\n\n", sentence(r, lang), sentence(r, lang))
		}
	}
	return b.String()
}
