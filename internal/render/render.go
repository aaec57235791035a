// Package render turns a note's Markdown into HTML for the owner's eyes.
// It owns the one promise that matters here: the only tags and attributes
// in its output are the ones it writes, so nothing in a note can become
// markup, a link to a script or a script. It is strings only: it never
// reads notes, files or the network.
package render

import (
	"html"
	"html/template"
	"net/url"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Note turns a note's Markdown into HTML for the owner's eyes. It knows
// the common blocks (headings, paragraphs, lists, quotes, fenced code,
// rules, frontmatter, pipe tables) and inlines (code, strong, emphasis, links,
// [[wikilinks]]); everything else shows as text. Every character of the
// note is escaped and the only tags are the ones written here, so raw
// HTML in a note is shown, never run. Links go to other notes (/notes/…)
// or to http, https and mailto addresses; no other scheme is linked.
func Note(content string) template.HTML { return NoteAt(content, "") }

// NoteAt is Note for a page served somewhere other than the console, such
// as an MCP App's view: links to other notes are made absolute by putting
// site, the console's public URL without a final slash, before /notes/….
func NoteAt(content, site string) template.HTML {
	var b strings.Builder
	b.Grow(len(content) + len(content)/4)
	if yaml, start, ok := markdown.Split(content); ok {
		b.WriteString(`<pre class="frontmatter">`)
		b.WriteString(html.EscapeString(strings.TrimRight(yaml, "\n")))
		b.WriteString("</pre>\n")
		content = content[start:]
	}
	r := renderer{b: &b, site: site}
	for _, line := range strings.Split(content, "\n") {
		r.line(strings.TrimSuffix(line, "\r"))
	}
	r.close()
	return template.HTML(b.String()) // #nosec G203 -- every piece of the note went through html.EscapeString or escapeURL
}

type renderer struct {
	b     *strings.Builder
	site  string // put before a note link's /notes/…
	block string // "p", "ul", "ol", "quote", "code", "table", or "" between blocks
	fence string // the fence that opened a code block
	para  []string
	align []string // a table's column classes ("", "c" or "r")
}

func (r *renderer) line(s string) {
	if r.block == "code" {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, r.fence) && strings.Trim(t, r.fence[:1]) == "" {
			r.b.WriteString("</code></pre>\n")
			r.block = ""
			return
		}
		r.b.WriteString(html.EscapeString(s))
		r.b.WriteByte('\n')
		return
	}
	t := strings.TrimSpace(s)
	if r.block == "table" {
		if strings.Contains(t, "|") {
			r.row("td", cells(t))
			return
		}
		r.close()
	}
	switch {
	case t == "":
		r.close()
	case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
		r.close()
		r.block, r.fence = "code", t[:3]
		r.b.WriteString("<pre><code>")
	case heading(t) > 0:
		r.close()
		n := heading(t)
		tag := "h" + string(rune('0'+n))
		r.b.WriteString("<" + tag + ">")
		r.inline(strings.TrimSpace(strings.TrimRight(t[n:], "#")))
		r.b.WriteString("</" + tag + ">\n")
	case rule(t):
		r.close()
		r.b.WriteString("<hr>\n")
	case strings.HasPrefix(t, ">"):
		r.open("quote")
		r.para = append(r.para, strings.TrimSpace(strings.TrimPrefix(t, ">")))
	case bullet(t) > 0:
		r.item("ul", t[bullet(t):])
	case ordered(t) > 0:
		r.item("ol", t[ordered(t):])
	case r.block == "p" && r.startTable(t):
	default:
		if r.block == "ul" || r.block == "ol" {
			r.close()
		}
		r.open("p")
		r.para = append(r.para, t)
	}
}

// open starts block unless it is the one open.
func (r *renderer) open(block string) {
	if r.block != block {
		r.close()
		r.block = block
	}
}

func (r *renderer) item(list, text string) {
	if r.block != list {
		r.close()
		r.block = list
		r.b.WriteString("<" + list + ">\n")
	}
	r.b.WriteString("<li>")
	switch {
	case strings.HasPrefix(text, "[ ] "):
		r.b.WriteString("☐ ")
		text = text[4:]
	case strings.HasPrefix(text, "[x] "), strings.HasPrefix(text, "[X] "):
		r.b.WriteString("☑ ")
		text = text[4:]
	}
	r.inline(text)
	r.b.WriteString("</li>\n")
}

// close ends the open block.
func (r *renderer) close() {
	switch r.block {
	case "p", "quote":
		if r.block == "quote" {
			r.b.WriteString("<blockquote>")
		}
		r.b.WriteString("<p>")
		for i, l := range r.para {
			if i > 0 {
				r.b.WriteString("<br>\n")
			}
			r.inline(l)
		}
		r.b.WriteString("</p>")
		if r.block == "quote" {
			r.b.WriteString("</blockquote>")
		}
		r.b.WriteByte('\n')
	case "ul", "ol":
		r.b.WriteString("</" + r.block + ">\n")
	case "code":
		r.b.WriteString("</code></pre>\n")
	case "table":
		r.b.WriteString("</tbody></table>\n")
	}
	r.block, r.para, r.align = "", nil, nil
}

// startTable starts a table when t is a delimiter row (|:--|--:|) with as
// many cells as the paragraph's last line, which becomes the header; the
// lines before it stay a paragraph.
func (r *renderer) startTable(t string) bool {
	head := r.para[len(r.para)-1]
	if !strings.Contains(t, "-") || !strings.Contains(head, "|") && !strings.Contains(t, "|") {
		return false
	}
	names, delims := cells(head), cells(t)
	if len(names) != len(delims) {
		return false
	}
	align := make([]string, len(delims))
	for i, d := range delims {
		left, right := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":")
		if strings.Trim(d, ":") == "" || strings.Trim(d, "-:") != "" || strings.Contains(strings.Trim(d, ":"), ":") {
			return false
		}
		switch {
		case left && right:
			align[i] = "c"
		case right:
			align[i] = "r"
		}
	}
	r.para = r.para[:len(r.para)-1]
	if len(r.para) > 0 {
		r.close()
	}
	r.block, r.para, r.align = "table", nil, align
	r.b.WriteString("<table><thead>")
	r.row("th", names)
	r.b.WriteString("</thead><tbody>\n")
	return true
}

// row writes one table row of the table's width: missing cells are empty,
// cells beyond the header's are left out.
func (r *renderer) row(tag string, cs []string) {
	r.b.WriteString("<tr>")
	for i, a := range r.align {
		r.b.WriteString("<" + tag)
		if a != "" {
			r.b.WriteString(` class="` + a + `"`)
		}
		r.b.WriteString(">")
		if i < len(cs) {
			r.inline(cs[i])
		}
		r.b.WriteString("</" + tag + ">")
	}
	r.b.WriteString("</tr>")
	if tag == "td" {
		r.b.WriteByte('\n')
	}
}

// cells splits a table line at its pipes; an outer pipe at either end is
// optional and \| is a pipe inside a cell (as in [[note\|alias]]).
func cells(t string) []string {
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var out []string
	var cell strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			cell.WriteByte('|')
			i++
		case t[i] == '|':
			out = append(out, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(t[i])
		}
	}
	return append(out, strings.TrimSpace(cell.String()))
}

func heading(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ') {
		return 0
	}
	return n
}

func rule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	return strings.Trim(strings.ReplaceAll(t, " ", ""), string(c)) == ""
}

func bullet(t string) int {
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && t[1] == ' ' {
		return 2
	}
	return 0
}

func ordered(t string) int {
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n == 0 || n+1 >= len(t) || (t[n] != '.' && t[n] != ')') || t[n+1] != ' ' {
		return 0
	}
	return n + 2
}

// maxSpan bounds how far an inline mark (code, link, emphasis) may reach.
const maxSpan = 2048

// inline writes s with its inline markup; depth bounds nesting.
func (r *renderer) inline(s string) { r.inlineDepth(s, 0) }

func (r *renderer) inlineDepth(s string, depth int) {
	b := r.b
	for i := 0; i < len(s); {
		rest := s[i:]
		// Closing marks are looked for this far ahead only, so a line
		// of a million '[' costs a million short searches, not a square.
		near := rest[:min(len(rest), maxSpan)]
		switch {
		case rest[0] == '`':
			if j := strings.IndexByte(near[1:], '`'); j >= 0 {
				b.WriteString("<code>" + html.EscapeString(rest[1:1+j]) + "</code>")
				i += j + 2
				continue
			}
		case strings.HasPrefix(rest, "![[") || strings.HasPrefix(rest, "[["):
			open := strings.Index(rest, "[[") + 2
			if j := strings.Index(near[open:], "]]"); j >= 0 {
				r.wikilink(rest[open : open+j])
				i += open + j + 2
				continue
			}
		case rest[0] == '[' || strings.HasPrefix(rest, "!["):
			if text, dest, n := mdLink(near); n > 0 {
				r.link(text, dest, depth)
				i += n
				continue
			}
		case depth < 4 && (strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__")):
			if j := strings.Index(near[2:], rest[:2]); j > 0 {
				b.WriteString("<strong>")
				r.inlineDepth(rest[2:2+j], depth+1)
				b.WriteString("</strong>")
				i += j + 4
				continue
			}
		case depth < 4 && (rest[0] == '*' || rest[0] == '_') && len(rest) > 1 && rest[1] != ' ' && (i == 0 || s[i-1] == ' ' || rest[0] == '*'):
			if j := strings.IndexByte(near[1:], rest[0]); j > 0 && rest[j] != ' ' {
				b.WriteString("<em>")
				r.inlineDepth(rest[1:1+j], depth+1)
				b.WriteString("</em>")
				i += j + 2
				continue
			}
		case strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "http://"):
			n := strings.IndexAny(rest, " \t<>\"'")
			if n < 0 {
				n = len(rest)
			}
			u := strings.TrimRight(rest[:n], ".,;:!?)")
			r.anchor(u, u, true)
			i += len(u)
			continue
		}
		// One character (or one run of plain text) as text.
		j := 1
		for j < len(rest) && !special(rest[j:]) {
			j++
		}
		b.WriteString(html.EscapeString(rest[:j]))
		i += j
	}
}

// wikilink writes [[target#heading|alias]] as a link to the note page of
// target; the note page resolves a name to its note.
func (r *renderer) wikilink(inner string) {
	target, alias, _ := strings.Cut(inner, "|")
	text := alias
	if text == "" {
		text = target
	}
	target, _, _ = strings.Cut(target, "#")
	target = strings.TrimSpace(target)
	if target == "" {
		r.b.WriteString(html.EscapeString(text))
		return
	}
	r.b.WriteString(`<a class="wikilink" href="` + html.EscapeString(SiteNoteURL(r.site, target)) + `">` + html.EscapeString(text) + "</a>")
}

// mdLink parses [text](dest) at the start of s (or ![alt](dest)) and says
// how many bytes it took; 0 when s does not start with one.
func mdLink(s string) (text, dest string, n int) {
	start := 1
	if s[0] == '!' {
		start = 2
	}
	end := strings.Index(s, "](")
	if end < start {
		return "", "", 0
	}
	// The destination ends at the ')' that balances its '(' (URLs such
	// as Wikipedia's have parentheses).
	depth, close := 0, -1
	for i := end + 2; i < len(s) && close < 0; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				close = i
			}
			depth--
		}
	}
	if close < 0 {
		return "", "", 0
	}
	return s[start:end], strings.TrimSpace(s[end+2 : close]), close + 1
}

// link writes a Markdown link: to another note when dest is a relative
// path, to dest when its scheme is safe, else as plain text.
func (r *renderer) link(text, dest string, depth int) {
	u, err := url.Parse(dest)
	switch {
	case err != nil:
		r.inlineDepth(text, depth+1)
	case u.Scheme == "" && u.Host == "" && u.Path != "" && !strings.HasPrefix(u.Path, "/"):
		p, _ := url.PathUnescape(u.Path)
		r.anchor(text, SiteNoteURL(r.site, p), false)
	case u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto":
		r.anchor(text, dest, true)
	default:
		r.inlineDepth(text, depth+1)
	}
}

func (r *renderer) anchor(text, href string, external bool) {
	r.b.WriteString(`<a href="` + html.EscapeString(href) + `"`)
	if external {
		r.b.WriteString(` rel="noopener noreferrer nofollow"`)
	}
	r.b.WriteString(">")
	r.b.WriteString(html.EscapeString(text)) // no markup, so no link inside a link
	r.b.WriteString("</a>")
}

// special reports whether s starts with something inline markup may begin
// with; plain text runs up to the next such place.
func special(s string) bool {
	switch s[0] {
	case '`', '[', '!', '*', '_':
		return true
	case 'h':
		return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
	}
	return false
}
