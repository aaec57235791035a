package vault

import (
	"context"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Attachments are the files beside the notes that notes embed: images,
// PDFs, audio. They can be listed and read, never written, moved or
// deleted through the tools.

// Attachment is a file that is not a note.
type Attachment struct {
	Path      string
	Size      int64
	Modified  time.Time
	MediaType string
	// Data is the file's content when it was asked for and is no larger
	// than the limit given; nil otherwise.
	Data []byte
	// Version is a short hash of Data, "" when Data is nil.
	Version string
}

// mediaTypes maps the extensions of common attachments to their media
// types, so that the answer does not depend on the host's mime tables.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".svg": "image/svg+xml", ".bmp": "image/bmp", ".avif": "image/avif", ".heic": "image/heic", ".ico": "image/x-icon",
	".tif": "image/tiff", ".tiff": "image/tiff",
	".pdf": "application/pdf", ".txt": "text/plain", ".csv": "text/csv", ".json": "application/json",
	".html": "text/html", ".htm": "text/html", ".xml": "application/xml",
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
	".canvas": "application/json", ".base": "text/yaml", ".zip": "application/zip",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".epub": "application/epub+zip",
}

// MediaType is the media type of a file name, by its extension.
func MediaType(name string) string {
	if t, ok := mediaTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// ViewableImage reports the image types a model can be shown.
func ViewableImage(mediaType string) bool {
	switch mediaType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// isAttachmentName reports a file name list shows as an attachment: any
// regular file that is not a note, a conflict copy or a temporary file.
func isAttachmentName(name string) bool {
	return !hasNoteExt(name) && !isTempName(name) && !isConflictName(name)
}

// checkAttachment validates the path of an attachment to read.
func (v *Vault) checkAttachment(p string) *Error {
	if e := checkPath(p); e != nil {
		return e
	}
	if v.isProtected(p) {
		return newErr(CodeProtectedPath, reasonNone, nil)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg[0] == '.' && seg != trashDir {
			return newErr(CodeProtectedPath, ReasonHiddenFile, nil)
		}
	}
	if !isAttachmentName(path.Base(p)) {
		return newErr(CodeNotANote, ReasonNotShown, nil)
	}
	return nil
}

// ReadAttachment returns the attachment at p; its content only when read
// is set and it is at most limit bytes. An image's media type is checked
// against its first bytes, so that a file named .png that is not one is
// not passed on as an image.
func (v *Vault) ReadAttachment(ctx context.Context, p string, read bool, limit int64) (*Attachment, error) {
	if e := v.checkHome(); e != nil {
		return nil, e
	}
	if e := v.checkSee(ctx, p); e != nil {
		return nil, e
	}
	if e := v.checkAttachment(p); e != nil {
		return nil, e
	}
	if e := ctxErr(ctx); e != nil {
		return nil, e
	}
	r, _, release, e := v.openDir(path.Dir(p))
	if e != nil {
		return nil, v.hideInPath(accessOf(ctx), p, e)
	}
	defer release()
	name := path.Base(p)
	fi, err := r.Lstat(name)
	if err != nil {
		return nil, fsErr("lstat", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, newErr(CodeInvalidPath, ReasonLinkFile, nil)
	}
	if !fi.Mode().IsRegular() {
		return nil, newErr(CodeNotANote, ReasonSpecialFile, nil)
	}
	a := &Attachment{Path: p, Size: fi.Size(), Modified: fi.ModTime(), MediaType: MediaType(name)}
	if !read || fi.Size() > limit {
		return a, nil
	}
	data, st, e := v.readIn(r, name, fi)
	if e != nil {
		return nil, e
	}
	if int64(len(data)) > limit {
		return a, nil
	}
	if ViewableImage(a.MediaType) && http.DetectContentType(data) != a.MediaType {
		a.MediaType = http.DetectContentType(data)
	}
	a.Data, a.Version, a.Size, a.Modified = data, versionOf(data), int64(len(data)), st.ModTime()
	return a, nil
}

// findAttachment finds the attachments named name as an embed names them:
// the vault path, the path beside the note at the top, else every file of
// that name (ignoring case), shortest path first.
func (v *Vault) findAttachment(ctx context.Context, name, from string) ([]string, *Error) {
	name = strings.TrimLeft(strings.TrimSpace(name), "/")
	if name == "" || hasNoteExt(name) {
		return nil, nil
	}
	for _, p := range []string{path.Join(path.Dir(from), name), name} {
		if checkPath(p) != nil || v.checkAttachment(p) != nil || !v.pathVisible(accessOf(ctx), p) {
			continue
		}
		if fi, err := v.root.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return []string{p}, nil
		}
	}
	want := strings.ToLower(path.Clean(name))
	var out []string
	e := v.walkFiles(ctx, "", true, func(w walkEntry) *Error {
		if lp := strings.ToLower(w.path); !w.info.IsDir() && isAttachmentName(w.name) && (lp == want || strings.HasSuffix(lp, "/"+want)) {
			out = append(out, w.path)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b string) int { return len(a) - len(b) })
	return out, e
}

// Embed is one embed of a note: "![[diagram.png]]" or "![[Other note]]".
type Embed struct {
	Raw    string // the target as written
	Target string // the note or file it shows, "" when there is none
	Line   int
}

// Embeds lists the embeds of the note at p, each resolved to the note or
// attachment it shows.
func (v *Vault) Embeds(ctx context.Context, p string) ([]Embed, error) {
	p, data, e := v.readToScan(ctx, p)
	if e != nil {
		return nil, e
	}
	out := []Embed{}
	var all []string // note paths, listed once when there is no index
	for _, l := range markdown.Embeds(string(data)) {
		em := Embed{Raw: l.Target, Line: l.Line}
		if l.IsNote() {
			var paths []string
			if x := v.ix.current(); x != nil {
				paths = x.KeyPaths(markdown.LinkKeys(p, l))
				v.ix.mu.RUnlock()
				paths = v.visibleNotes(accessOf(ctx), paths)
			} else {
				if all == nil {
					if all, e = v.notePaths(ctx); e != nil {
						return nil, e
					}
				}
				paths = all
			}
			em.Target = markdown.NewResolver(append(paths, p)).Resolve(p, l)
		} else if found, e := v.findAttachment(ctx, l.Target, p); e != nil {
			return nil, e
		} else if len(found) > 0 {
			em.Target = found[0]
		}
		out = append(out, em)
	}
	return out, nil
}
