package diff

import (
	"strconv"
	"strings"
)

// Unified renders a diff for a terminal: changed lines with "-" and "+",
// context lines around them with " ", "@@" between distant hunks, and the
// changed words of a changed line in [-removed-] and {+added+}.
func Unified(d []Line, context int) string {
	var b strings.Builder
	show := make([]bool, len(d))
	for i, l := range d {
		if l.Op == Equal {
			continue
		}
		for k := max(0, i-context); k <= min(len(d)-1, i+context); k++ {
			show[k] = true
		}
	}
	last := -2
	for i, l := range d {
		if !show[i] {
			continue
		}
		if last != i-1 {
			b.WriteString("@@ line ")
			n := l.Old
			if n == 0 {
				n = l.New
			}
			b.WriteString(strconv.Itoa(n))
			b.WriteString(" @@\n")
		}
		last = i
		switch l.Op {
		case Equal:
			b.WriteString(" ")
		case Delete:
			b.WriteString("-")
		case Insert:
			b.WriteString("+")
		}
		if l.Spans == nil {
			b.WriteString(l.Text)
		} else {
			for _, s := range l.Spans {
				switch {
				case !s.Changed:
					b.WriteString(s.Text)
				case l.Op == Delete:
					b.WriteString("[-" + s.Text + "-]")
				default:
					b.WriteString("{+" + s.Text + "+}")
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
