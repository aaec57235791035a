package vault

import (
	"path"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// fillMarkdown sets the fields of n that come from its Markdown text.
// Malformed frontmatter is reported, and the note stays readable.
func fillMarkdown(n *Note) {
	fm, err := markdown.ParseFrontmatter(n.Content)
	if err != nil {
		n.FrontmatterError = err.Error()
	}
	n.Frontmatter = fm.Map
	n.Aliases = fm.Aliases
	n.Tags = fm.Tags
	n.Title = titleOf(n.Path, n.Content, fm.Title)
}

// noteTitle is the title of a note: frontmatter title, else first H1,
// else the file name without .md.
func noteTitle(p, content string) string {
	fm, _ := markdown.ParseFrontmatter(content)
	return titleOf(p, content, fm.Title)
}

func titleOf(p, content, fmTitle string) string {
	if fmTitle != "" {
		return fmTitle
	}
	for _, h := range markdown.Headings(content) {
		if h.Level == 1 && h.Text != "" {
			return h.Text
		}
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}

// noteTags lists the tags of a note.
func noteTags(content string) []string {
	fm, _ := markdown.ParseFrontmatter(content)
	return fm.Tags
}

// matcher scores notes against a query.
type matcher struct{ terms []string }

func newMatcher(text string) *matcher {
	return &matcher{terms: strings.Fields(strings.ToLower(text))}
}

// match requires every term in the path, title or content; the score
// counts occurrences, with title and path hits weighing more.
func (m *matcher) match(p, title, content string) (float64, string) {
	lc := strings.ToLower(content)
	lt := strings.ToLower(title + " " + p)
	score := 0.0
	first := -1
	for _, t := range m.terms {
		c, h := strings.Count(lc, t), strings.Count(lt, t)
		if c+h == 0 {
			return 0, ""
		}
		score += float64(c) + 5*float64(h)
		if i := strings.Index(lc, t); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return score, snippetAt(content, first)
}

func snippetAt(content string, at int) string {
	if at < 0 {
		at = 0
	}
	start := max(0, at-60)
	end := min(len(content), at+100)
	for start > 0 && content[start]&0xc0 == 0x80 {
		start--
	}
	for end < len(content) && content[end]&0xc0 == 0x80 {
		end++
	}
	return strings.Join(strings.Fields(content[start:end]), " ")
}
