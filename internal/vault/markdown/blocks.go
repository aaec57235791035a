package markdown

import "strings"

// BlockIDs lists the block ids a note marks (" ^id" ending a line, or "^id"
// alone on one), without '^', in the order they stand, at most max of
// them; more counts the rest. Lines in fenced code and the frontmatter
// mark none, as FindBlock finds none there.
func BlockIDs(content string, max int) (ids []string, more int) {
	forBodyLines(content, func(l line) bool {
		s := strings.TrimRight(content[l.start:l.end], " \t")
		i := strings.LastIndexByte(s, '^')
		if i < 0 || i > 0 && s[i-1] != ' ' && s[i-1] != '\t' || !isBlockID(s[i+1:]) {
			return true
		}
		if len(ids) < max {
			ids = append(ids, s[i+1:])
		} else {
			more++
		}
		return true
	})
	return ids, more
}

// isBlockID reports an id Obsidian makes or accepts: letters, digits and
// dashes.
func isBlockID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
