package markdown

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Limits of the frontmatter cortex decodes. They are checked before any
// value is decoded, so that a note planted with a huge block costs a
// linear pass and no more: the YAML library compares every key of a
// mapping with every other one, which made a block of 75,000 keys cost
// half a minute of CPU per read. Real frontmatter holds tens of keys.
const (
	// MaxFrontmatterBytes is the largest frontmatter block decoded.
	MaxFrontmatterBytes = 64 << 10
	// MaxFrontmatterKeys is the most mapping keys, at every depth, that a
	// decoded block may hold.
	MaxFrontmatterKeys = 1000
)

// errTooLarge and errTooManyKeys report a block past the limits.
var (
	errTooLarge = &FrontmatterError{Limit: true,
		Reason: fmt.Sprintf("is larger than %d KiB, the most cortex reads", MaxFrontmatterBytes>>10)}
	errTooManyKeys = &FrontmatterError{Limit: true,
		Reason: fmt.Sprintf("holds more than %d keys, the most cortex reads", MaxFrontmatterKeys)}
)

// shape is what one linear walk of a parsed block learns: its number of
// mapping keys, and whether it uses anchors' aliases, merge keys or keys
// that are not plain scalars, which the fast decoding leaves to the
// library.
type shape struct {
	keys  int
	plain bool
}

// measure walks the nodes of a block once. Aliases are not followed: each
// node is counted where it is written.
func measure(n *yaml.Node) shape {
	s := shape{plain: true}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 100 || s.keys > MaxFrontmatterKeys {
			s.plain = false
			return
		}
		switch n.Kind {
		case yaml.AliasNode:
			s.plain = false
			return
		case yaml.MappingNode:
			s.keys += len(n.Content) / 2
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
					s.plain = false
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return s
}

// decodeMapping decodes a top-level mapping whose shape was measured, in
// time linear in its size: each value is decoded on its own and repeated
// keys are found with a map. Blocks that are not plain (aliases, merge
// keys, complex keys) are decoded by the library as a whole, which the
// key limit bounds.
func decodeMapping(root *yaml.Node, s shape) (map[string]any, error) {
	if !s.plain {
		var raw any
		if err := root.Decode(&raw); err != nil {
			return nil, yamlError(err)
		}
		m, _ := normalize(raw, 0).(map[string]any)
		return m, nil
	}
	m := make(map[string]any, len(root.Content)/2)
	seen := make(map[string]bool, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, &FrontmatterError{Line: k.Line + 1, Reason: "is not valid YAML"}
		}
		seen[k.Value] = true
		var key, val any
		if err := k.Decode(&key); err != nil {
			return nil, yamlError(err)
		}
		if err := v.Decode(&val); err != nil {
			return nil, yamlError(err)
		}
		m[fmt.Sprint(key)] = normalize(val, 1)
	}
	return m, nil
}
