package markdown

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is the decoded YAML block at the top of a note.
type Frontmatter struct {
	Map     map[string]any // decoded YAML mapping (nil if none or empty)
	Title   string         // "title" key if a non-empty string
	Tags    []string       // "tags"/"tag": list or comma/space separated string, without '#'
	Aliases []string       // "aliases"/"alias": list or comma separated string
}

// ErrInvalidFrontmatter is wrapped by every *FrontmatterError.
var ErrInvalidFrontmatter = errors.New("invalid frontmatter")

// FrontmatterError says why a frontmatter block cannot be used. It never
// contains note content, only a line number of the note.
type FrontmatterError struct {
	Line   int    // 1-based line of the note, 0 when unknown
	Reason string // e.g. "is not valid YAML"
	// Limit is set when the block is past MaxFrontmatterBytes or
	// MaxFrontmatterKeys rather than malformed.
	Limit bool
}

func (e *FrontmatterError) Error() string {
	if e.Limit {
		return fmt.Sprintf("the frontmatter %s; shorten it", e.Reason)
	}
	if e.Line > 0 {
		return fmt.Sprintf("the frontmatter %s (line %d of the note); fix the YAML between the --- lines", e.Reason, e.Line)
	}
	return fmt.Sprintf("the frontmatter %s; fix the YAML between the --- lines", e.Reason)
}

func (e *FrontmatterError) Unwrap() error { return ErrInvalidFrontmatter }

// Split returns the raw YAML text of a leading frontmatter block and the byte
// offset where the body starts. The block opens with a "---" first line and
// closes with a "---" or "..." line (trailing spaces allowed, "\n" or "\r\n"
// line ends, the closing line may end the file). ok is false when there is
// no complete block; then bodyStart is 0. A byte order mark is not skipped.
func Split(content string) (yamlText string, bodyStart int, ok bool) {
	first, pos := nextLine(content, 0)
	if strings.TrimRight(first, " \t") != "---" || pos == len(content) && !strings.HasSuffix(content, "\n") {
		return "", 0, false
	}
	yamlStart := pos
	for pos < len(content) {
		start := pos
		var s string
		s, pos = nextLine(content, pos)
		if t := strings.TrimRight(s, " \t"); t == "---" || t == "..." {
			return content[yamlStart:start], pos, true
		}
	}
	return "", 0, false
}

// nextLine returns the line at pos without its line break and the offset of
// the following line.
func nextLine(content string, pos int) (string, int) {
	i := strings.IndexByte(content[pos:], '\n')
	if i < 0 {
		return strings.TrimSuffix(content[pos:], "\r"), len(content)
	}
	return strings.TrimSuffix(content[pos:pos+i], "\r"), pos + i + 1
}

// ParseFrontmatter decodes the frontmatter block. Without a block it returns
// a zero Frontmatter and nil. Malformed YAML, several YAML documents or a
// top level that is not a mapping give a *FrontmatterError. Mapping keys
// that are not strings are turned into strings, and values JSON cannot
// carry (NaN, ±Inf) become their YAML spelling, so Map always encodes as JSON.
func ParseFrontmatter(content string) (Frontmatter, error) {
	text, _, ok := Split(content)
	if !ok {
		return Frontmatter{}, nil
	}
	m, ok := fastMapping(text)
	if !ok {
		root, s, err := parseYAML(text)
		if err != nil || root == nil {
			return Frontmatter{}, err
		}
		if m, err = decodeMapping(root, s); err != nil {
			return Frontmatter{}, err
		}
	}
	if len(m) == 0 {
		return Frontmatter{}, nil
	}
	fm := Frontmatter{Map: m}
	if t, ok := m["title"].(string); ok {
		fm.Title = strings.TrimSpace(t)
	}
	fm.Tags = dedupeFold(append(listField(m["tags"], true), listField(m["tag"], true)...))
	fm.Aliases = dedupeFold(append(listField(m["aliases"], false), listField(m["alias"], false)...))
	return fm, nil
}

// parseYAML parses one frontmatter block into its top-level mapping node
// and measures it, refusing a block past the limits before anything is
// decoded. It returns a nil node for a block that holds only blanks and
// comments.
func parseYAML(text string) (*yaml.Node, shape, error) {
	if len(text) > MaxFrontmatterBytes {
		return nil, shape{}, errTooLarge
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, shape{}, nil
		}
		return nil, shape{}, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, shape{}, &FrontmatterError{Reason: "holds more than one YAML document"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, shape{}, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, shape{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, shape{}, &FrontmatterError{Line: root.Line + 1, Reason: "is not a list of key: value pairs"}
	}
	s := measure(root)
	if s.keys > MaxFrontmatterKeys {
		return nil, shape{}, errTooManyKeys
	}
	return root, s, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlError turns a YAML library error into a FrontmatterError without
// copying its text, which may quote note content.
func yamlError(err error) error {
	fe := &FrontmatterError{Reason: "is not valid YAML"}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			fe.Line = n + 1 // the opening "---" is line 1
		}
	}
	return fe
}

// normalize converts decoded YAML into JSON-compatible values.
func normalize(v any, depth int) any {
	if depth > 100 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e, depth+1)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e, depth+1)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e, depth+1)
		}
		return x
	case time.Time:
		if x.Equal(x.Truncate(24*time.Hour)) && x.Location() == time.UTC {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
	}
	return v
}

// listField reads a tags or aliases value: a list, or a string split on
// commas (and, for tags, on white space).
func listField(v any, tags bool) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if tags {
			s = strings.TrimLeft(s, "#")
		}
		if s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case string:
		sep := func(r rune) bool { return r == ',' }
		if tags {
			sep = func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }
		}
		for _, f := range strings.FieldsFunc(x, sep) {
			add(f)
		}
	case []any:
		for _, e := range x {
			switch e.(type) {
			case string, int, int64, uint64, float64, bool:
				add(fmt.Sprint(e))
			}
		}
	case int, int64, uint64, float64:
		add(fmt.Sprint(x))
	}
	return out
}

// dedupeFold drops case-insensitive duplicates, keeping the first spelling.
func dedupeFold(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		k := strings.ToLower(s)
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
