package markdown

import (
	"net/url"
	"path"
	"strings"
)

// Link is one wiki or Markdown link to a note.
type Link struct {
	Kind    string // "wiki" or "markdown"
	Embed   bool   // written with a leading '!' (![[x]], ![x](y.md))
	Target  string // note part as written, without #heading or |alias; URL-decoded for Markdown links
	Heading string // after '#', if any
	Alias   string // after '|' (wiki) or the link text (Markdown)
	Line    int    // 1-based
	// Start and End delimit the whole link text (from '[' or '!') in content.
	Start, End int
}

// IsNote reports whether the target names a note rather than an attachment
// such as an image or a PDF (judged by a list of common file extensions).
func (l Link) IsNote() bool { return !isAttachment(l.Target) }

// rawLink is a Link plus where its target is written, for rewriting.
type rawLink struct {
	Link
	tStart, tEnd int  // the target as written (for Markdown: the path before '#')
	angle        bool // Markdown destination written as <...>
}

// Links returns the links of the frontmatter and the body in order. In the
// frontmatter only wiki links written as a quoted value count, as Obsidian
// reads properties (related: "[[a]]", - '[[b|x]]'). In the body: [[a]], [[a|alias]],
// [[a#heading]], [[a#h|alias]], ![[a]] and Markdown links [text](path.md),
// [text](path%20with%20space.md), [text](<path with space.md>) to relative
// paths. Markdown links count only when they point at a note (a ".md" path,
// or one without a known attachment extension); URLs with a scheme, "#anchor"
// links and "[[#heading]]" links within the same note are left out, as are
// links in fenced code and inline code. A link never spans lines.
func Links(content string) []Link {
	return links(content, false)
}

// Embeds returns the embeds of the body ("![[diagram.png]]",
// "![chart](img/chart.png)", "![[Other note]]"), attachments included, in
// order.
func Embeds(content string) []Link {
	var out []Link
	for _, l := range links(content, true) {
		if l.Embed {
			out = append(out, l)
		}
	}
	return out
}

func links(content string, attachments bool) []Link {
	raw := scanLinks(content, attachments)
	if len(raw) == 0 {
		return nil
	}
	out := make([]Link, len(raw))
	for i, r := range raw {
		out[i] = r.Link
	}
	return out
}

func scanLinks(content string, attachments bool) []rawLink {
	out := frontmatterLinks(content)
	forBodyLines(content, func(l line) bool {
		s := content[l.start:l.end]
		if strings.IndexByte(s, '[') < 0 {
			return true
		}
		var cs codeSpans
		ls := lineState{wikiClose: -2, budget: 8*len(s) + 4*maxPart}
		for i := 0; i < len(s); {
			switch s[i] {
			case '`':
				i = cs.skip(s, i)
				continue
			case '\\':
				i += 2
				continue
			case '!', '[':
				embed := s[i] == '!'
				j := i
				if embed {
					j++
				}
				if j < len(s) && s[j] == '[' {
					if rl, end, ok := ls.parseWiki(s, j); ok {
						if rl.Target != "" {
							out = append(out, finish(rl, l, i, end, embed))
						}
						i = end
						continue
					}
					if rl, end, ok := ls.parseMarkdownLink(s, j); ok {
						if rl.Target != "" && (attachments || !isAttachment(rl.Target)) {
							out = append(out, finish(rl, l, i, end, embed))
						}
						i = end
						continue
					}
				}
			}
			i++
		}
		return true
	})
	return out
}

func finish(rl rawLink, l line, start, end int, embed bool) rawLink {
	rl.Embed = embed
	rl.Line = l.num
	rl.Start, rl.End = l.start+start, l.start+end
	rl.tStart += l.start
	rl.tEnd += l.start
	return rl
}

// maxPart bounds a link's text, destination and title so that lines full
// of brackets stay cheap to scan.
const maxPart = 1024

// lineState caches bracket searches within one line.
type lineState struct {
	wikiClose int     // next "]]" at or after the last search; -1 none; -2 unknown
	closeOf   []int32 // matching ']' for each '[' (-1 none), computed on demand
	// budget bounds the bytes scanned for Markdown destinations and titles
	// on one line; a pathological line stops yielding Markdown links
	// instead of taking quadratic time.
	budget int
}

// parseWiki parses "[[...]]" at s[i]. Offsets in the result are within s.
func (ls *lineState) parseWiki(s string, i int) (rawLink, int, bool) {
	if !strings.HasPrefix(s[i:], "[[") {
		return rawLink{}, 0, false
	}
	if ls.wikiClose == -2 || ls.wikiClose >= 0 && ls.wikiClose < i+2 {
		ls.wikiClose = -1
		if c := strings.Index(s[i+2:], "]]"); c >= 0 {
			ls.wikiClose = i + 2 + c
		}
	}
	if ls.wikiClose < 0 {
		return rawLink{}, 0, false
	}
	c := ls.wikiClose - (i + 2)
	if c <= 0 || c > maxPart {
		return rawLink{}, 0, false
	}
	inner := s[i+2 : i+2+c]
	if strings.Contains(inner, "[[") {
		return rawLink{}, 0, false
	}
	rl := rawLink{Link: Link{Kind: "wiki"}}
	part := inner
	if p := strings.IndexByte(inner, '|'); p >= 0 {
		rl.Alias = strings.TrimSpace(inner[p+1:])
		part = inner[:p]
		part = strings.TrimSuffix(part, `\`) // "\|" inside tables
	}
	if h := strings.IndexByte(part, '#'); h >= 0 {
		rl.Heading = strings.TrimSpace(part[h+1:])
		part = part[:h]
	}
	lead := len(part) - len(strings.TrimLeft(part, " \t"))
	rl.Target = strings.TrimSpace(part)
	rl.tStart = i + 2 + lead
	rl.tEnd = rl.tStart + len(rl.Target)
	return rl, i + 2 + c + 2, true
}

// parseMarkdownLink parses "[text](destination "title")" at s[i].
func (ls *lineState) parseMarkdownLink(s string, i int) (_ rawLink, _ int, _ bool) {
	if ls.closeOf == nil {
		ls.closeOf = matchBrackets(s)
	}
	j := int(ls.closeOf[i])
	if j < 0 || j+1 >= len(s) || s[j+1] != '(' || ls.budget < 0 {
		return rawLink{}, 0, false
	}
	p := j + 2
	p0 := p
	defer func() { ls.budget -= p - p0 + 1 }()
	text := s[i+1 : j]
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	var dStart, dEnd int
	angle := false
	if p < len(s) && s[p] == '<' {
		e := strings.IndexAny(s[p+1:], "<>")
		if e < 0 || e > maxPart || s[p+1+e] != '>' {
			return rawLink{}, 0, false
		}
		dStart, dEnd, angle = p+1, p+1+e, true
		p = dEnd + 1
	} else {
		dStart = p
		par := 0
	dest:
		for ; p < len(s); p++ {
			if p-dStart > maxPart {
				return rawLink{}, 0, false
			}
			switch s[p] {
			case '\\':
				if p+1 < len(s) {
					p++
				}
			case '(':
				par++
			case ')':
				if par == 0 {
					break dest
				}
				par--
			case ' ', '\t':
				break dest
			}
		}
		dEnd = p
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	if p < len(s) && (s[p] == '"' || s[p] == '\'' || s[p] == '(') && p > dEnd {
		closer := s[p]
		if closer == '(' {
			closer = ')'
		}
		e := strings.IndexByte(s[p+1:], closer)
		if e < 0 || e > maxPart {
			return rawLink{}, 0, false
		}
		p += e + 2
		for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
	}
	if p >= len(s) || s[p] != ')' {
		return rawLink{}, 0, false
	}
	end := p + 1
	rl := rawLink{Link: Link{Kind: "markdown", Alias: text}, angle: angle}
	dest := s[dStart:dEnd]
	if dest == "" || dest[0] == '#' || strings.HasPrefix(dest, "//") || hasScheme(dest) {
		return rl, end, true // a link, but not to a note: Target stays ""
	}
	pathPart := dest
	if h := strings.IndexByte(dest, '#'); h >= 0 {
		pathPart = dest[:h]
		rl.Heading = unescape(dest[h+1:])
	}
	if strings.HasSuffix(pathPart, "/") {
		return rl, end, true
	}
	rl.Target = unescape(pathPart)
	rl.tStart, rl.tEnd = dStart, dStart+len(pathPart)
	return rl, end, true
}

// matchBrackets pairs every '[' of s with its ']' (brackets nest, a
// backslash escapes the next byte). Unpaired ones map to -1.
func matchBrackets(s string) []int32 {
	m := make([]int32, len(s))
	var stack []int32
	for i := 0; i < len(s); i++ {
		m[i] = -1
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				m[i] = -1
			}
		case '[':
			stack = append(stack, int32(i))
		case ']':
			if n := len(stack); n > 0 {
				m[stack[n-1]] = int32(i)
				stack = stack[:n-1]
			}
		}
	}
	return m
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// hasScheme reports a URL scheme such as "https:" or "mailto:" before any
// '/', '?' or '#'.
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':':
			return i > 0
		case c == '/' || c == '?' || c == '#':
			return false
		}
	}
	return false
}

// isAttachment reports a target whose extension is a common non-note file.
func isAttachment(target string) bool {
	ext := strings.ToLower(path.Ext(target))
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".avif", ".ico", ".tif", ".tiff", ".heic",
		".mp3", ".wav", ".m4a", ".ogg", ".flac", ".aac", ".opus", ".3gp",
		".mp4", ".webm", ".mov", ".mkv", ".ogv", ".avi",
		".pdf", ".canvas", ".base", ".txt", ".csv", ".json", ".html", ".htm", ".xml",
		".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".rtf", ".epub",
		".zip", ".gz", ".tar", ".7z":
		return true
	}
	return false
}

// frontmatterLinks finds the wiki links that open a quoted value in the
// frontmatter block: property links as Obsidian reads them.
func frontmatterLinks(content string) []rawLink {
	yamlText, bodyStart, ok := Split(content)
	if !ok || !strings.Contains(yamlText, "[[") {
		return nil
	}
	var out []rawLink
	pos := strings.IndexByte(content, '\n') + 1
	num := 2
	for pos < bodyStart {
		end := strings.IndexByte(content[pos:bodyStart], '\n')
		next := bodyStart
		if end < 0 {
			end = bodyStart
		} else {
			end += pos
			next = end + 1
		}
		s := content[pos:end]
		ls := lineState{wikiClose: -2}
		for i := 1; i+1 < len(s); i++ {
			if s[i] != '[' || s[i+1] != '[' {
				continue
			}
			start, embed := i, false
			if s[i-1] == '!' && i >= 2 {
				start, embed = i-1, true
			}
			if start == 0 || s[start-1] != '"' && s[start-1] != '\'' {
				continue
			}
			if rl, e, ok := ls.parseWiki(s, i); ok {
				if rl.Target != "" {
					out = append(out, finish(rl, line{start: pos, end: end, next: next, num: num}, start, e, embed))
				}
				i = e - 1
			}
		}
		pos = next
		num++
	}
	return out
}
