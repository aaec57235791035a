package vault

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Create writes a new note; it never replaces an existing one.
func (v *Vault) Create(ctx context.Context, p, content string) (WriteResult, error) {
	return v.createAs(ctx, KindCreate, p, content, true)
}

// createAs is Create with the kind of change the history records; a
// restore writes a whole earlier version, which no write limit bounds.
func (v *Vault) createAs(ctx context.Context, kind, p, content string, limitWrite bool) (WriteResult, error) {
	// Outside the app's scope nothing more is said about the path (that
	// it is protected, say).
	if e := v.checkCreate(ctx, p); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkCreatable(p); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkWriteSize(content); limitWrite && e != nil {
		return WriteResult{}, e
	}
	if e := v.checkResultSize(len(content)); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkFree(); e != nil {
		return WriteResult{}, e
	}
	unlock, e := v.locks.lock(ctx, p)
	if e != nil {
		return WriteResult{}, e
	}
	defer unlock()
	if e := v.checkNewPath(p, ""); e != nil {
		return WriteResult{}, v.hideExisting(ctx, p, e)
	}
	if e := v.checkPortable(p); e != nil {
		return WriteResult{}, e
	}
	data := []byte(content)
	if isDryRun(ctx) {
		return WriteResult{Path: p, Version: versionOf(data), After: content, DryRun: true}, nil
	}
	wait := v.keepAsync(ctx, Kept{Path: p, Content: data, Kind: kind})
	if e := v.writeAtomic(writeSpec{path: p, data: data, ready: wait.ready}); e != nil {
		wait.undo(ctx)
		return WriteResult{}, e
	}
	v.indexWrite(p, data)
	return WriteResult{Path: p, Version: versionOf(data), After: content}, nil
}

// Append adds text at the end of the note, or at the end of one section of
// it. It needs no version: it changes no existing text.
func (v *Vault) Append(ctx context.Context, p, text, section string) (WriteResult, error) {
	if text == "" {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonNoText, nil)
	}
	return v.modifyAs(ctx, KindAppend, p, "", false, []string{text}, func(cur string) (string, *Error) {
		text := withEOL(cur, text)
		if !strings.HasSuffix(text, "\n") {
			text += eol(cur)
		}
		at := len(cur)
		if section != "" {
			_, bodyStart, end, err := markdown.FindSection(cur, section)
			if err != nil {
				return "", sectionErr(err)
			}
			at = endOfText(cur, bodyStart, end)
		}
		// Text run on below a line ending in ^id joins its block, and the
		// id no longer ends it: links to Note#^id break.
		marked := at > 0 && closesMarkedBlock(cur[:at], text)
		if at > 0 && cur[at-1] != '\n' {
			text = eol(cur) + text
		}
		if marked {
			text = eol(cur) + text
		}
		if at > 0 && startsWithHeading(text) && !endsWithBlankLine(cur[:at]+text[:len(text)-len(strings.TrimLeft(text, "\r\n"))]) {
			// A new heading gets the blank line before it that Markdown
			// editors put there.
			text = eol(cur) + text
		}
		return cur[:at] + text + cur[at:], nil
	})
}

// Edit replaces oldText with newText: exactly one occurrence, or all of
// them with replaceAll.
func (v *Vault) Edit(ctx context.Context, p, version, oldText, newText string, replaceAll bool) (WriteResult, error) {
	if oldText == "" {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonNoOldText, nil)
	}
	return v.modify(ctx, p, version, true, []string{newText}, func(cur string) (string, *Error) {
		n := strings.Count(cur, oldText)
		if n == 0 && strings.Contains(cur, "\r\n") && strings.Contains(oldText, "\n") {
			// The note uses CRLF line ends; callers usually send LF.
			if o := toCRLF(oldText); strings.Count(cur, o) > 0 {
				oldText, newText = o, toCRLF(newText)
				n = strings.Count(cur, oldText)
			}
		}
		switch {
		case n == 0:
			return "", newErr(CodeNoMatch, reasonNone, nil)
		case n > 1 && !replaceAll:
			return "", fail(&Error{Code: CodeMultipleMatches, Count: n})
		}
		return strings.ReplaceAll(cur, oldText, newText), nil
	})
}

// ReplaceSection replaces the body of the section under heading and keeps
// the heading line itself. The body runs to the next heading of the same
// or a higher level, so it holds the subsections below the heading: unless
// subsections is set, a section that has any is refused with
// CodeSectionHasSubsections and their list, since replacing the top heading
// of a note would otherwise erase the whole note below it.
func (v *Vault) ReplaceSection(ctx context.Context, p, version, heading, content string, subsections bool) (WriteResult, error) {
	if strings.TrimSpace(heading) == "" {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonNoHeading, nil)
	}
	return v.modify(ctx, p, version, true, []string{content}, func(cur string) (string, *Error) {
		_, bodyStart, end, err := markdown.FindSection(cur, heading)
		if err != nil {
			return "", sectionErr(err)
		}
		if !subsections {
			if e := subsectionsErr(cur, bodyStart, end); e != nil {
				return "", e
			}
		}
		body := withEOL(cur, content)
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += eol(cur)
		}
		// Keep the blank lines that set the section off from its heading
		// and from the next one, in a note with either line end: the
		// caller sends the text under the heading, which fetch of the
		// section shows after that blank line.
		old := cur[bodyStart:end]
		if body != "" && startsWithEmptyLine(old) && !startsWithEmptyLine(body) {
			body = eol(cur) + body
		}
		if end < len(cur) && endsWithEmptyLine(old) && !endsWithEmptyLine(body) {
			body += eol(cur)
		}
		if bodyStart == len(cur) && bodyStart > 0 && cur[bodyStart-1] != '\n' && body != "" {
			body = eol(cur) + body
		}
		return cur[:bodyStart] + body + cur[end:], nil
	})
}

// UpdateFrontmatter sets and removes top-level frontmatter keys, keeping
// the rest of the note byte for byte.
func (v *Vault) UpdateFrontmatter(ctx context.Context, p, version string, set map[string]any, remove []string) (WriteResult, error) {
	if len(set) == 0 && len(remove) == 0 {
		return WriteResult{}, newErr(CodeInvalidArgument, ReasonNoKeys, nil)
	}
	return v.modify(ctx, p, version, true, nil, func(cur string) (string, *Error) {
		next, err := markdown.UpdateFrontmatter(cur, set, remove)
		if err != nil {
			return "", frontmatterErr(err)
		}
		if grow := len(next) - len(cur); grow > v.maxWrite {
			return "", errWriteTooLarge(grow, v.maxWrite)
		}
		return next, nil
	})
}

// modify runs read-check-write on an existing note under its lock, so that
// of two changes made from the same version exactly one wins. change gets
// the current content and returns the new one; texts are what the caller
// sent, checked against the write limit before any disk access.
func (v *Vault) modify(ctx context.Context, p, version string, needVersion bool, texts []string, change func(cur string) (string, *Error)) (WriteResult, error) {
	return v.modifyAs(ctx, KindEdit, p, version, needVersion, texts, change)
}

// modifyAs is modify with the kind of change the history records.
func (v *Vault) modifyAs(ctx context.Context, kind, p, version string, needVersion bool, texts []string, change func(cur string) (string, *Error)) (WriteResult, error) {
	if e := v.checkChange(ctx, p); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkWritable(p); e != nil {
		return WriteResult{}, e
	}
	if needVersion && version == "" {
		return WriteResult{}, newErr(CodeVersionRequired, reasonNone, nil)
	}
	if e := v.checkWriteSize(texts...); e != nil {
		return WriteResult{}, e
	}
	if e := v.checkFree(); e != nil {
		return WriteResult{}, e
	}
	if !needVersion {
		version = ""
	}
	n, unlock, e := v.lockNote(ctx, p, version)
	if e != nil {
		return WriteResult{}, e
	}
	defer unlock()
	p, data, cur := n.path, n.data, n.version
	next, e := change(string(data))
	if e != nil {
		return WriteResult{}, e
	}
	before := string(data)
	if next == before {
		return WriteResult{Path: p, OldVersion: cur, Version: cur, Before: before, After: next, DryRun: isDryRun(ctx)}, nil
	}
	if e := v.checkResultSize(len(next)); e != nil {
		return WriteResult{}, e
	}
	out := []byte(next)
	if isDryRun(ctx) {
		return WriteResult{Path: p, OldVersion: cur, Version: versionOf(out), Before: before, After: next, DryRun: true}, nil
	}
	// The text being replaced (if cortex has not seen it yet) and the new
	// one are stored before the note changes.
	wait := v.keepAsync(ctx,
		Kept{Path: p, Content: data, Writer: WriterExternal, Kind: KindExternal, Observed: true},
		Kept{Path: p, Content: out, Kind: kind})
	if e := v.writeAtomic(writeSpec{path: p, data: out, prev: n.fi, ready: wait.ready}); e != nil {
		wait.undo(ctx)
		return WriteResult{}, e
	}
	v.indexWrite(p, out)
	return WriteResult{Path: p, OldVersion: cur, Version: versionOf(out), Before: before, After: next}, nil
}

// lockedNote is a note read under its lock.
type lockedNote struct {
	path    string // as spelled on disk
	data    []byte
	fi      fs.FileInfo
	version string
}

// lockNote takes the lock of the note p and reads the note under it, in
// the spelling it has on disk (another normal form of p has the same
// lock). A note the call may not see (private by its frontmatter) is not
// found, before its version is compared: note_changed would tell that it
// is there, and its version. With a version, the note must still be at
// it: note_changed otherwise. On success the caller releases the lock
// with unlock.
func (v *Vault) lockNote(ctx context.Context, p, version string) (lockedNote, func(), *Error) {
	unlock, e := v.locks.lock(ctx, p)
	if e != nil {
		return lockedNote{}, nil, e
	}
	p, data, fi, _, e := v.readNamed(p)
	if e != nil {
		unlock()
		return lockedNote{}, nil, v.hideInPath(accessOf(ctx), p, e)
	}
	if e := v.checkContent(ctx, p, nil, string(data), fi); e != nil {
		unlock()
		return lockedNote{}, nil, e
	}
	n := lockedNote{path: p, data: data, fi: fi, version: versionOf(data)}
	if version != "" && version != n.version {
		unlock()
		return lockedNote{}, nil, versionMismatch(version, n.version)
	}
	return n, unlock, nil
}

// frontmatterErr maps the markdown package's refusals of a frontmatter
// update.
func frontmatterErr(err error) *Error {
	var fe *markdown.FrontmatterError
	var ke *markdown.KeyError
	switch {
	case errors.As(err, &fe) && fe.Limit:
		return fail(&Error{Code: CodeInvalidArgument, Reason: ReasonFrontmatterLimit,
			Limit: markdown.MaxFrontmatterBytes >> 10, Count: markdown.MaxFrontmatterKeys, Err: err})
	case errors.Is(err, markdown.ErrDanglingAlias):
		return newErr(CodeInvalidArgument, ReasonDanglingAlias, err)
	case errors.As(err, &fe):
		return newErr(CodeBadFrontmatter, reasonNone, err)
	case errors.As(err, &ke):
		reason := map[markdown.KeyProblem]string{
			markdown.KeyEmptySet:      ReasonKeyEmptySet,
			markdown.KeyEmptyRemove:   ReasonKeyEmptyRemove,
			markdown.KeySetAndRemoved: ReasonKeySetAndRemoved,
			markdown.KeyValue:         ReasonKeyValue,
		}[ke.Problem]
		return fail(&Error{Code: CodeInvalidArgument, Reason: reason, Subject: clipRunes(ke.Key, 100), Err: err})
	}
	return newErr(CodeInvalidArgument, ReasonFrontmatterUnwritten, err)
}

// sectionErr maps the markdown package's section errors.
func sectionErr(err error) *Error {
	var amb *markdown.AmbiguousError
	if errors.As(err, &amb) {
		e := newErr(CodeSectionAmbiguous, reasonNone, err)
		e.Candidates, e.More = amb.Candidates, amb.More
		return e
	}
	var nf *markdown.NotFoundError
	if errors.As(err, &nf) {
		reason := ReasonNotAmong
		if len(nf.Headings) == 0 {
			reason = ReasonNoHeadings
		}
		e := newErr(CodeSectionNotFound, reason, err)
		e.Candidates, e.More = nf.Headings, nf.More
		return e
	}
	return newErr(CodeSectionNotFound, reasonNone, err)
}

// subsectionsErr refuses to replace content[bodyStart:end] when headings
// lie in it, listing them.
func subsectionsErr(content string, bodyStart, end int) *Error {
	var in []markdown.Heading
	for _, h := range markdown.Headings(content) {
		if h.Start >= bodyStart && h.Start < end {
			in = append(in, h)
		}
	}
	if len(in) == 0 {
		return nil
	}
	e := newErr(CodeSectionHasSubsections, reasonNone, nil)
	e.Candidates, e.More = markdown.HeadingList(in)
	return e
}

// Section returns the section of content under heading, heading line
// included, as FindSection finds it; a missing or ambiguous heading gives
// an *Error that lists the headings to choose from.
func Section(content, heading string) (string, error) {
	start, _, end, err := markdown.FindSection(content, heading)
	if err != nil {
		return "", sectionErr(err)
	}
	return content[start:end], nil
}

// Block returns the block of content that a link's ^id names, or
// section_not_found.
func Block(content, id string) (string, error) {
	start, end, ok := markdown.FindBlock(content, id)
	if !ok {
		e := &Error{Code: CodeSectionNotFound, Reason: ReasonNoBlocks, Subject: clipRunes(id, 100)}
		ids, more := markdown.BlockIDs(content, markdown.MaxCandidates)
		if len(ids) > 0 {
			e.Reason = ReasonNoBlock
			for _, b := range ids {
				e.Candidates = append(e.Candidates, "^"+b)
			}
			e.More = more
		}
		return "", fail(e)
	}
	return content[start:end], nil
}

// endOfText is where text appended to the section [bodyStart, end) goes:
// after its last non-blank line, so that blank lines before the next
// heading stay in place.
func endOfText(cur string, bodyStart, end int) int {
	t := strings.TrimRight(cur[bodyStart:end], " \t\r\n")
	if t == "" {
		return bodyStart
	}
	at := bodyStart + len(t)
	if i := strings.IndexByte(cur[at:end], '\n'); i >= 0 {
		return at + i + 1
	}
	return end
}

// startsWithHeading reports text whose first non-blank line is an ATX
// heading.
func startsWithHeading(text string) bool {
	t := strings.TrimLeft(text, "\r\n")
	line, _, _ := strings.Cut(t, "\n")
	return len(markdown.Headings(line)) > 0 && !strings.HasPrefix(t, "---")
}

// endsWithBlankLine reports text that ends in an empty line (or is empty).
func endsWithBlankLine(s string) bool {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return s == "" || strings.HasSuffix(s, "\n\n")
}

// closesMarkedBlock reports whether text, put right after before (which
// ends in a line end, or gets one), would join the block of before's last
// line, which carries a block id: unless text opens with a blank line, or
// is a list item after a list item (a block of its own).
func closesMarkedBlock(before, text string) bool {
	prev := lastLine(strings.TrimRight(before, "\r\n") + "\n")
	if ids, _ := markdown.BlockIDs(prev, 1); len(ids) == 0 {
		return false
	}
	if strings.TrimSpace(firstLine(text)) == "" {
		return false
	}
	return !(markdown.IsListItem(prev) && markdown.IsListItem(firstLine(text)))
}

// startsWithEmptyLine reports whether s opens with an empty line.
func startsWithEmptyLine(s string) bool {
	return strings.HasPrefix(s, "\n") || strings.HasPrefix(s, "\r\n")
}

// endsWithEmptyLine reports whether s ends with an empty line, with either
// line end (unlike endsWithBlankLine, not when s is empty).
func endsWithEmptyLine(s string) bool {
	return strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, "\n\r\n")
}

// eol is the line end the note uses.
func eol(cur string) string {
	if i := strings.IndexByte(cur, '\n'); i > 0 && cur[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withEOL gives text the note's line ends.
func withEOL(cur, text string) string {
	if eol(cur) == "\r\n" {
		return toCRLF(text)
	}
	return text
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
