package vault

import (
	"context"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Place says where AppendAt puts text: at the end of the note (the zero
// value) or of the section under Section; at the start with Start (after
// the frontmatter, or right after the heading of Section); or after the
// block whose id is Block (as in Note#^id, without the caret).
type Place struct {
	Section string
	Start   bool
	Block   string
}

// AppendAt adds text where at says. Like Append it needs no version: no
// existing text is changed, only new text put between lines. Text placed
// before or after other text is kept a block of its own (a blank line
// between), so that it neither joins a paragraph nor moves a block id
// away from the end of its block; list items join a list they are put in.
func (v *Vault) AppendAt(ctx context.Context, p, text string, at Place) (WriteResult, error) {
	if !at.Start && at.Block == "" {
		return v.Append(ctx, p, text, at.Section)
	}
	if text == "" {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonNoText, nil)
	}
	at.Block = strings.TrimPrefix(at.Block, "^")
	if at.Block != "" && (at.Start || at.Section != "") {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonBlockAndPlace, nil)
	}
	return v.modifyAs(ctx, KindAppend, p, "", false, []string{text}, func(cur string) (string, *Error) {
		var pos int
		switch {
		case at.Block != "":
			_, end, ok := markdown.FindBlock(cur, at.Block)
			if !ok {
				return "", fail(&Error{Code: CodeSectionNotFound, Reason: ReasonNoAnchor, Subject: clipRunes(at.Block, 100)})
			}
			pos = end
		case at.Section != "":
			_, bodyStart, _, err := markdown.FindSection(cur, at.Section)
			if err != nil {
				return "", sectionErr(err)
			}
			pos = bodyStart
		default:
			_, pos, _ = markdown.Split(cur)
		}
		return insertBlock(cur, pos, text, at.Block != ""), nil
	})
}

// insertBlock puts text into cur at pos, the start of a line (or the end
// of cur). after says pos follows a block, which text must not join: a
// blank line goes between them unless both are list items. A blank line
// goes between text and a non-blank line after it on the same rule.
func insertBlock(cur string, pos int, text string, after bool) string {
	nl := eol(cur)
	text = withEOL(cur, text)
	if !strings.HasSuffix(text, "\n") {
		text += nl
	}
	before, rest := cur[:pos], cur[pos:]
	if before != "" && !strings.HasSuffix(before, "\n") {
		before += nl
	}
	list := markdown.IsListItem(firstLine(strings.TrimLeft(text, "\r\n")))
	if prev := lastLine(before); after && strings.TrimSpace(prev) != "" && !(list && markdown.IsListItem(prev)) {
		text = nl + text
	}
	if next := firstLine(rest); strings.TrimSpace(next) != "" && !(list && markdown.IsListItem(next)) && !endsWithBlankLine(text) {
		text += nl
	}
	return before + text + rest
}

// firstLine is s up to its first line end.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(l, "\r")
}

// lastLine is the last whole line of s, which ends in a line end.
func lastLine(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	return strings.TrimSuffix(s[strings.LastIndexByte(s, '\n')+1:], "\r")
}
