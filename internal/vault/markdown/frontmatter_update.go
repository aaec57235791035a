package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrDanglingAlias refuses an update that would replace or remove a value
// carrying an anchor (&name) that an alias (*name) elsewhere still names,
// leaving the alias without its value or with another one.
var ErrDanglingAlias = errors.New("the change would leave an alias without the value it names")

// KeyError refuses an update for what is wrong with one of its keys.
type KeyError struct {
	Key     string // empty for KeyEmptySet and KeyEmptyRemove
	Problem KeyProblem
}

// KeyProblem says what is wrong with a key of an update.
type KeyProblem int

// The problems a key of an update can have.
const (
	KeyEmptySet      KeyProblem = iota + 1 // a key to set is empty
	KeyEmptyRemove                         // a key to remove is empty
	KeySetAndRemoved                       // a key is both set and removed
	KeyValue                               // the value set cannot be written as YAML
)

func (e *KeyError) Error() string {
	switch e.Problem {
	case KeyEmptySet:
		return "a key to set is empty"
	case KeyEmptyRemove:
		return "a key to remove is empty"
	case KeySetAndRemoved:
		return fmt.Sprintf("the key %q is both set and removed", e.Key)
	}
	return fmt.Sprintf("the value for %q cannot be written as YAML", e.Key)
}

// UpdateFrontmatter sets and removes top-level frontmatter keys. Values are
// what encoding/json decodes into any (string, float64, bool, nil, []any,
// map[string]any). Other keys keep their order and comments; new keys are
// appended in sorted order; a key that is set keeps its position and its
// line comment. When the note has no block one is created at the top. The
// body (content from the old bodyStart on) is kept byte for byte, and CRLF
// notes keep CRLF line ends in the block.
//
// Removing every key leaves an empty block ("---\n---\n") rather than
// deleting it, so that a body starting with "---" never turns into
// frontmatter. With nothing to set or remove, content is returned as is.
// Malformed existing frontmatter gives a *FrontmatterError and no change.
func UpdateFrontmatter(content string, set map[string]any, remove []string) (string, error) {
	for k := range set {
		if strings.TrimSpace(k) == "" {
			return "", &KeyError{Problem: KeyEmptySet}
		}
	}
	for _, k := range remove {
		if strings.TrimSpace(k) == "" {
			return "", &KeyError{Problem: KeyEmptyRemove}
		}
		if _, ok := set[k]; ok {
			return "", &KeyError{Key: k, Problem: KeySetAndRemoved}
		}
	}
	if len(set)+len(remove) > MaxFrontmatterKeys {
		return "", errTooManyKeys
	}
	text, bodyStart, ok := Split(content)
	if len(set) == 0 && len(remove) == 0 {
		if ok {
			if _, _, err := parseYAML(text); err != nil {
				return "", err
			}
		}
		return content, nil
	}
	var root *yaml.Node
	if ok {
		var err error
		if root, _, err = parseYAML(text); err != nil {
			return "", err
		}
	}
	keep := "" // comment-only text of a block without keys, kept verbatim
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if ok && strings.TrimSpace(text) != "" && commentsOnly(text) {
			keep = strings.ReplaceAll(text, "\r\n", "\n")
			if !strings.HasSuffix(keep, "\n") {
				keep += "\n"
			}
		}
	}
	root.Style &^= yaml.FlowStyle
	for _, k := range remove {
		removeKey(root, k)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := valueNode(set[k])
		if err != nil {
			return "", &KeyError{Key: k, Problem: KeyValue}
		}
		setKey(root, k, v)
	}

	spellNulls(root, false, 0)
	var yml string
	if len(root.Content) > 0 {
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(root); err != nil {
			return "", fmt.Errorf("frontmatter cannot be written as YAML")
		}
		if err := enc.Close(); err != nil {
			return "", fmt.Errorf("frontmatter cannot be written as YAML")
		}
		yml = buf.String()
	}
	yml = keep + yml
	// What is written must read back.
	if len(yml) > MaxFrontmatterBytes {
		return "", errTooLarge
	}
	if measure(root).keys > MaxFrontmatterKeys {
		return "", errTooManyKeys
	}
	if _, _, err := parseYAML(yml); err != nil {
		// A value that carried an anchor was replaced or removed while an
		// alias elsewhere still names it.
		return "", ErrDanglingAlias
	}

	nl, closing := "\n", "---"
	if i := strings.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		nl = "\r\n"
	}
	if ok && strings.TrimRight(lastLine(content[:bodyStart]), " \t\r") == "..." {
		closing = "..."
	}
	if nl != "\n" {
		yml = strings.ReplaceAll(yml, "\n", nl)
	}
	var b strings.Builder
	b.Grow(len(yml) + len(content) - bodyStart + 16)
	b.WriteString("---" + nl)
	b.WriteString(yml)
	b.WriteString(closing + nl)
	b.WriteString(content[bodyStart:])
	out := b.String()
	if ok && !othersKept(content, out, set, remove) {
		return "", ErrDanglingAlias
	}
	return out, nil
}

// othersKept reports whether every key of before's frontmatter that is
// neither set nor removed reads the same in after's. An alias can change
// without being touched: with an anchor name used twice (&x ... &x),
// replacing or removing the later anchored value makes *x name the earlier.
func othersKept(before, after string, set map[string]any, remove []string) bool {
	old, err := ParseFrontmatter(before)
	if err != nil {
		return true // nothing decoded to keep; the update was checked as YAML
	}
	now, err := ParseFrontmatter(after)
	if err != nil {
		return false
	}
	for k, v := range old.Map {
		if _, ok := set[k]; ok || slices.Contains(remove, k) {
			continue
		}
		w, ok := now.Map[k]
		// NaN is not equal to itself; its printed form is.
		if !ok || !reflect.DeepEqual(v, w) && fmt.Sprintf("%#v", v) != fmt.Sprintf("%#v", w) {
			return false
		}
	}
	return true
}

// commentsOnly reports YAML text made of blank and comment lines only.
func commentsOnly(text string) bool {
	for l := range strings.Lines(text) {
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			return false
		}
	}
	return true
}

// lastLine returns the last line of s, which ends with the closing fence
// line (with or without its line break).
func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func removeKey(m *yaml.Node, key string) {
	c := m.Content
	out := c[:0]
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Kind == yaml.ScalarNode && c[i].Value == key {
			continue
		}
		out = append(out, c[i], c[i+1])
	}
	m.Content = out
}

func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == key {
			old := m.Content[i+1]
			v.LineComment = old.LineComment
			v.HeadComment = old.HeadComment
			v.FootComment = old.FootComment
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// valueNode encodes a JSON-like value. The YAML library panics on types it
// cannot marshal (channels, functions), so that is turned into an error.
func valueNode(v any) (n *yaml.Node, err error) {
	defer func() {
		if recover() != nil {
			n, err = nil, errors.New("unsupported value")
		}
	}()
	n = new(yaml.Node)
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return n, nil
}

// spellNulls writes "null" for empty nulls that the YAML encoder would
// otherwise emit as a quoted empty string (changing the value): those inside flow
// collections ("[a: ]"), mapping keys and anchored nodes. Plain "key:"
// values keep their empty spelling.
func spellNulls(n *yaml.Node, inFlow bool, depth int) {
	if n == nil || depth > 1000 {
		return
	}
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	for i, c := range n.Content {
		if c.Kind == yaml.ScalarNode && c.Tag == "!!null" && c.Value == "" &&
			(inFlow || c.Anchor != "" || n.Kind == yaml.MappingNode && i%2 == 0) {
			c.Value = "null"
		}
		spellNulls(c, inFlow, depth+1)
	}
}
