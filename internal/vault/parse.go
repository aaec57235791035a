package vault

import (
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
	n.Tags = mergeTags(fm.Tags, markdown.InlineTags(n.Content))
	n.Title = fm.Title
	if n.Title == "" {
		n.Title = markdown.BodyTitle(n.Content, n.Path)
	}
}

// mergeTags joins frontmatter and inline tags, dropping repeats that
// differ only in case (the first spelling wins).
func mergeTags(fm, inline []string) []string {
	if len(inline) == 0 {
		return fm
	}
	out := make([]string, 0, len(fm)+len(inline))
	seen := make(map[string]bool, len(fm)+len(inline))
	for _, list := range [][]string{fm, inline} {
		for _, t := range list {
			k := strings.ToLower(t)
			if !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
	}
	return out
}
