package tools

import (
	"context"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// Paging of fetch, in characters (Unicode code points).
const (
	defaultFetchChars = 20000
	maxFetchChars     = 100000
)

type fetchIn struct {
	ID       string   `json:"id,omitempty" jsonschema:"the note's path or name"`
	IDs      []string `json:"ids,omitempty" jsonschema:"instead of id: up to 20 notes to read at once"`
	Section  string   `json:"section,omitempty" jsonschema:"return only the section under this heading, e.g. Plan or ## Plan"`
	Offset   int      `json:"offset,omitempty" jsonschema:"character to start at; pass metadata.next_offset to read the next page"`
	MaxChars int      `json:"max_chars,omitempty" jsonschema:"most characters to return: default 20000, at most 100000"`
	Version  string   `json:"version,omitempty" jsonschema:"read this earlier version instead (see recent with id)"`
}

type fetchMeta struct {
	Version          string         `json:"version" jsonschema:"pass this as version to any tool that changes the note"`
	Modified         string         `json:"modified" jsonschema:"RFC 3339"`
	Tags             []string       `json:"tags"`
	Frontmatter      map[string]any `json:"frontmatter,omitempty"`
	LastWriter       string         `json:"last_writer" jsonschema:"the app that wrote this version through cortex, or external"`
	Conflict         []string       `json:"conflict,omitempty" jsonschema:"sync conflict copies of this note; tell the owner"`
	FrontmatterError string         `json:"frontmatter_error,omitempty" jsonschema:"why the frontmatter could not be parsed"`
	Size             int            `json:"size" jsonschema:"length in characters of the whole note, or of the section when one was asked for"`
	Offset           int            `json:"offset" jsonschema:"character at which text starts"`
	NextOffset       *int           `json:"next_offset,omitempty" jsonschema:"present when more text follows; pass it as offset"`
	Truncated        bool           `json:"truncated" jsonschema:"true when text is not the whole rest of the note"`
	MediaType        string         `json:"media_type,omitempty" jsonschema:"for an attachment: its type; size is then in bytes"`
	CurrentVersion   string         `json:"current_version,omitempty" jsonschema:"when an earlier version was asked for: the note's version now; edits need this one"`
}

type fetchOut struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Text     string    `json:"text"`
	URL      string    `json:"url"`
	Metadata fetchMeta `json:"metadata"`
	// Notes answers a call with ids, one per id in its order.
	Notes []fetchedNote `json:"notes,omitempty" jsonschema:"with ids: each note, or why it could not be read"`

	media []mcp.Content // an attachment as image content or a link
}

func (o fetchOut) content() []mcp.Content { return o.media }

// maxImageBytes is the largest image fetch shows as image content.
const maxImageBytes = 5 << 20

// fetchAttachment answers a fetch of a file that is not a note: an image
// a model can see as image content, anything else as its metadata and a
// link.
func (s *server) fetchAttachment(ctx context.Context, p string) (fetchOut, error) {
	a, err := s.vault.ReadAttachment(ctx, p, true, maxImageBytes)
	if err != nil {
		return fetchOut{}, err
	}
	out := fetchOut{
		ID:    a.Path,
		Title: path.Base(a.Path),
		URL:   s.noteURL(a.Path),
		Metadata: fetchMeta{
			Version:    a.Version,
			Modified:   timestamp(a.Modified),
			Tags:       []string{},
			LastWriter: externalWriter,
			Size:       int(a.Size),
			MediaType:  a.MediaType,
		},
	}
	switch {
	case vault.ViewableImage(a.MediaType) && a.Data != nil:
		out.Text = fmt.Sprintf("%s image, shown as image content", a.MediaType)
		out.media = []mcp.Content{&mcp.ImageContent{Data: a.Data, MIMEType: a.MediaType}}
		return out, nil
	case vault.ViewableImage(a.MediaType):
		out.Text = fmt.Sprintf("%s image of %d bytes, too large to show here (at most %d bytes)", a.MediaType, a.Size, maxImageBytes)
	case a.MediaType == "application/pdf":
		// Reading text out of a PDF needs a parser of a hostile format;
		// none small, pure Go and kept up is at hand (see docs), so the
		// model is told plainly rather than given a link it cannot open.
		out.Text = fmt.Sprintf("PDF of %d bytes: cortex cannot read the text of PDFs, so its content is not available here; "+
			"search the notes that link to it (links with this id) or ask the owner what it says", a.Size)
	default:
		out.Text = fmt.Sprintf("%s file of %d bytes; only PNG, JPEG, GIF and WebP images can be shown here", a.MediaType, a.Size)
	}
	size := a.Size
	out.media = []mcp.Content{&mcp.ResourceLink{URI: out.URL, Name: out.Title, MIMEType: a.MediaType, Size: &size}}
	return out, nil
}

func (s *server) fetch(ctx context.Context, c call, in fetchIn) (fetchOut, error) {
	if len(in.IDs) > 0 || in.ID == "" {
		return s.fetchMany(ctx, c, in)
	}
	if in.Offset < 0 {
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonOffsetNegative}
	}
	limit, err := clampLimit("max_chars", in.MaxChars, defaultFetchChars, maxFetchChars)
	if err != nil {
		return fetchOut{}, err
	}
	var named vault.Named
	if d, isDay, err := s.daily(ctx, in.ID); err != nil {
		return fetchOut{}, err
	} else if isDay && !d.Exists {
		return fetchOut{}, noDaily(d)
	} else if isDay {
		named.Path = d.Path
	} else if named, err = s.target(ctx, in.ID); err != nil {
		return fetchOut{}, err
	}
	if ext := path.Ext(named.Path); ext != "" && !strings.EqualFold(ext, ".md") {
		if in.Version != "" {
			return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonVersionOfFile}
		}
		return s.fetchAttachment(ctx, named.Path)
	}
	n, err := s.vault.Read(ctx, named.Path)
	if err != nil {
		return fetchOut{}, err
	}
	current, lastWriter := n.Version, ""
	if in.Version != "" && in.Version != n.Version {
		old, nv, err := s.earlier(ctx, n, in.Version)
		if err != nil {
			return fetchOut{}, err
		}
		old.Conflicts, n, lastWriter = n.Conflicts, old, nv.Writer
		if lastWriter == "" {
			lastWriter = externalWriter
		}
	} else if in.Version != "" {
		if err := checkVersionRef(in.Version); err != nil {
			return fetchOut{}, err
		}
	}
	text := n.Content
	if in.Section == "" {
		in.Section = named.Heading
	}
	if in.Section == "" && named.Block != "" {
		if text, err = vault.Block(text, named.Block); err != nil {
			return fetchOut{}, err
		}
	} else if in.Section != "" {
		if text, err = vault.Section(text, in.Section); err != nil {
			return fetchOut{}, err
		}
	}
	chunk, size, next, err := page(text, in.Offset, limit)
	if err != nil {
		return fetchOut{}, err
	}
	tags := n.Tags
	if tags == nil {
		tags = []string{}
	}
	out := fetchOut{
		ID:    n.Path,
		Title: n.Title,
		Text:  chunk,
		URL:   s.noteURL(n.Path),
		Metadata: fetchMeta{
			Version:          n.Version,
			Modified:         timestamp(n.Modified),
			Tags:             tags,
			Frontmatter:      n.Frontmatter,
			LastWriter:       lastWriter,
			Conflict:         n.Conflicts,
			FrontmatterError: n.FrontmatterError,
			Size:             size,
			Offset:           in.Offset,
			Truncated:        next > 0,
		},
	}
	if next > 0 {
		out.Metadata.NextOffset = &next
	}
	if n.Version != current {
		out.Metadata.CurrentVersion = current
	} else {
		out.Metadata.LastWriter = s.lastWriters(ctx, map[string]string{n.Path: n.Version})[n.Path]
	}
	return out, nil
}

// page returns at most limit characters of text from character offset on,
// cut after a line break when one falls in the second half of the page so
// that pages end on whole lines where they can. size is the length of text
// in characters; next is the offset of the following page, 0 when this page
// reaches the end.
func page(text string, offset, limit int) (chunk string, size, next int, err error) {
	size = utf8.RuneCountInString(text)
	if offset > size {
		return "", size, 0, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonOffsetPastEnd, Size: int64(size)}
	}
	rest := text[byteIndex(text, offset):]
	if size-offset <= limit {
		return rest, size, 0, nil
	}
	chunk = rest[:byteIndex(rest, limit)]
	if i := strings.LastIndexByte(chunk, '\n'); i >= len(chunk)/2 {
		chunk = chunk[:i+1]
	}
	return chunk, size, offset + utf8.RuneCountInString(chunk), nil
}

// byteIndex is the byte offset of character n in s (len(s) past the end).
func byteIndex(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
