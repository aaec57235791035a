package markdown

import "strings"

// line is one line of a note. end excludes the line break ("\n" or "\r\n").
type line struct {
	start, end, next int
	num              int // 1-based
}

// forBodyLines calls fn for every line after the frontmatter that is outside
// fenced code blocks; fence lines themselves are skipped too. fn returns
// false to stop early.
func forBodyLines(content string, fn func(l line) bool) {
	_, pos, _ := Split(content)
	num := 1 + strings.Count(content[:pos], "\n")
	var fenceCh byte
	fenceLen := 0
	for pos < len(content) {
		end := strings.IndexByte(content[pos:], '\n')
		next := len(content)
		if end < 0 {
			end = len(content)
		} else {
			end += pos
			next = end + 1
		}
		text := end
		if text > pos && content[text-1] == '\r' {
			text--
		}
		s := content[pos:text]
		switch {
		case fenceLen > 0:
			if isFenceClose(s, fenceCh, fenceLen) {
				fenceLen = 0
			}
		default:
			if ch, n, ok := fenceOpen(s); ok {
				fenceCh, fenceLen = ch, n
			} else if !fn(line{start: pos, end: text, next: next, num: num}) {
				return
			}
		}
		pos = next
		num++
	}
}

// fenceOpen reports whether s opens a fenced code block (``` or ~~~, at most
// three spaces of indentation).
func fenceOpen(s string) (ch byte, n int, ok bool) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	if i >= len(s) || (s[i] != '`' && s[i] != '~') {
		return 0, 0, false
	}
	ch = s[i]
	j := i
	for j < len(s) && s[j] == ch {
		j++
	}
	if j-i < 3 {
		return 0, 0, false
	}
	if ch == '`' && strings.IndexByte(s[j:], '`') >= 0 {
		return 0, 0, false
	}
	return ch, j - i, true
}

func isFenceClose(s string, ch byte, n int) bool {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	j := i
	for j < len(s) && s[j] == ch {
		j++
	}
	if j-i < n {
		return false
	}
	return strings.TrimRight(s[j:], " \t") == ""
}

// codeSpans skips inline code spans within one line. A run of n backticks
// opens a span that closes at the next run of exactly n backticks; a run
// without a partner is literal text. Failed searches are remembered so a
// line full of unmatched backticks stays linear.
type codeSpans struct {
	noClose uint64       // bit n-1 set: no closing run of length n remains
	noLong  map[int]bool // the same for runs longer than 64
}

// skip returns the index just after the code span (or literal run) that
// starts with the backtick at s[i].
func (c *codeSpans) skip(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '`' {
		j++
	}
	n := j - i
	if c.known(n) {
		return j
	}
	for k := j; k < len(s); {
		b := strings.IndexByte(s[k:], '`')
		if b < 0 {
			break
		}
		k += b
		e := k
		for e < len(s) && s[e] == '`' {
			e++
		}
		if e-k == n {
			return e
		}
		k = e
	}
	c.remember(n)
	return j
}

func (c *codeSpans) known(n int) bool {
	if n <= 64 {
		return c.noClose&(1<<(n-1)) != 0
	}
	return c.noLong[n]
}

func (c *codeSpans) remember(n int) {
	if n <= 64 {
		c.noClose |= 1 << (n - 1)
		return
	}
	if c.noLong == nil {
		c.noLong = map[int]bool{}
	}
	c.noLong[n] = true
}
