package vault

import (
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
	n.Tags = markdown.MergeTags(fm.Tags, markdown.InlineTags(n.Content))
	n.Title = fm.Title
	if n.Title == "" {
		n.Title = markdown.BodyTitle(n.Content, n.Path)
	}
}
