package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in, yaml string
		body           int
		ok             bool
	}{
		{"none", "# Title\n", "", 0, false},
		{"empty content", "", "", 0, false},
		{"basic", "---\na: 1\n---\nbody", "a: 1\n", 13, true},
		{"crlf", "---\r\na: 1\r\n---\r\nbody", "a: 1\r\n", 16, true},
		{"dots close", "---\na: 1\n...\nbody", "a: 1\n", 13, true},
		{"close at eof", "---\na: 1\n---", "a: 1\n", 12, true},
		{"empty block", "---\n---\nx", "", 8, true},
		{"trailing spaces", "--- \na: 1\n---  \nx", "a: 1\n", 16, true},
		{"unclosed", "---\na: 1\n", "", 0, false},
		{"only fence", "---", "", 0, false},
		{"fence with newline only", "---\n", "", 0, false},
		{"not first line", "\n---\na: 1\n---\n", "", 0, false},
		{"four dashes", "----\na\n----\n", "", 0, false},
		{"indented close is yaml", "---\na: |\n  ---\n---\nb", "a: |\n  ---\n", 19, true},
		{"bom not skipped", "\ufeff---\na: 1\n---\n", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y, b, ok := Split(tt.in)
			if y != tt.yaml || b != tt.body || ok != tt.ok {
				t.Fatalf("Split(%q) = %q, %d, %v; want %q, %d, %v", tt.in, y, b, ok, tt.yaml, tt.body, tt.ok)
			}
		})
	}
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Frontmatter
		errLine int // -1: no error
	}{
		{"none", "# x\n", Frontmatter{}, -1},
		{"empty", "---\n---\n", Frontmatter{}, -1},
		{"comments only", "---\n# just a comment\n---\n", Frontmatter{}, -1},
		{"null", "---\n~\n---\n", Frontmatter{}, -1},
		{"full", "---\ntitle: My Note\ntags: [a, '#b', A]\naliases:\n  - Other\n  - Second\n---\n", Frontmatter{
			Map:   map[string]any{"title": "My Note", "tags": []any{"a", "#b", "A"}, "aliases": []any{"Other", "Second"}},
			Title: "My Note", Tags: []string{"a", "b"}, Aliases: []string{"Other", "Second"},
		}, -1},
		{"tag string", "---\ntag: '#x, y z'\nalias: One, Two\n---\n", Frontmatter{
			Map:  map[string]any{"tag": "#x, y z", "alias": "One, Two"},
			Tags: []string{"x", "y", "z"}, Aliases: []string{"One", "Two"},
		}, -1},
		{"number tags and non-string title", "---\ntitle: 42\ntags: [2024, x]\n---\n", Frontmatter{
			Map:  map[string]any{"title": 42, "tags": []any{2024, "x"}},
			Tags: []string{"2024", "x"},
		}, -1},
		{"non-string keys and nan", "---\n1: a\nn: .nan\ndate: 2024-01-02\nt: 2024-01-02T03:04:05Z\n---\n", Frontmatter{
			Map: map[string]any{"1": "a", "n": ".nan", "date": "2024-01-02", "t": "2024-01-02T03:04:05Z"},
		}, -1},
		{"bad yaml", "---\na: 1\nb: [\n---\nbody", Frontmatter{}, 3},
		{"duplicate key", "---\na: 1\na: 2\n---\n", Frontmatter{}, 3},
		{"not a mapping", "---\n- a\n- b\n---\n", Frontmatter{}, 2},
		{"scalar", "---\njust text\n---\n", Frontmatter{}, 2},
		{"two documents", "---\na: 1\n--- \n", Frontmatter{Map: map[string]any{"a": 1}}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFrontmatter(tt.in)
			if tt.errLine >= 0 {
				var fe *FrontmatterError
				if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidFrontmatter) {
					t.Fatalf("err = %v, want *FrontmatterError", err)
				}
				if fe.Line != tt.errLine {
					t.Errorf("line = %d, want %d (%v)", fe.Line, tt.errLine, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseFrontmatterErrorHidesContent(t *testing.T) {
	_, err := ParseFrontmatter("---\nsecret: [unclosed\nsecret: x\n---\n")
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v; want an error without content", err)
	}
}

func TestUpdateFrontmatter(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		set    map[string]any
		remove []string
		want   string
	}{
		{"create", "# Body\n", map[string]any{"b": "x", "a": 1.0}, nil, "---\na: 1\nb: x\n---\n# Body\n"},
		{"create crlf", "# Body\r\ntext\r\n", map[string]any{"a": true}, nil, "---\r\na: true\r\n---\r\n# Body\r\ntext\r\n"},
		{"keep order and comments", "---\n# head\nz: 1 # why\ny: old # keep\n---\nbody", map[string]any{"y": "new", "x": []any{"p", "q"}}, nil,
			"---\n# head\nz: 1 # why\ny: new # keep\nx:\n  - p\n  - q\n---\nbody"},
		{"remove", "---\na: 1\nb: 2\n---\nbody\n", nil, []string{"a", "missing"}, "---\nb: 2\n---\nbody\n"},
		{"remove last leaves empty block", "---\na: 1\n---\n---\nnot fm\n", nil, []string{"a"}, "---\n---\n---\nnot fm\n"},
		{"nothing to do", "no fm", nil, nil, "no fm"},
		{"dots closing kept", "---\na: 1\n...\nbody", map[string]any{"a": nil}, nil, "---\na: null\n...\nbody"},
		{"close at eof", "---\na: 1\n---", map[string]any{"b": map[string]any{"c": "d"}}, nil, "---\na: 1\nb:\n  c: d\n---\n"},
		{"comment only block kept", "---\n# note\n---\nx", map[string]any{"a": "1"}, nil, "---\n# note\na: \"1\"\n---\nx"},
		{"null document replaced", "---\n# c\n~\n---\nx", map[string]any{"a": "b"}, nil, "---\na: b\n---\nx"},
		{"flow mapping becomes block", "---\n{a: 1}\n---\n", map[string]any{"b": 2.5}, nil, "---\na: 1\nb: 2.5\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UpdateFrontmatter(tt.in, tt.set, tt.remove)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if _, err := ParseFrontmatter(got); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

func TestUpdateFrontmatterErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		set    map[string]any
		remove []string
		bad    bool // a *FrontmatterError is expected
	}{
		{"malformed", "---\na: [\n---\n", map[string]any{"a": 1.0}, nil, true},
		{"malformed even with nothing to do", "---\na: [\n---\n", nil, nil, true},
		{"not mapping", "---\n- a\n---\n", map[string]any{"a": 1.0}, nil, true},
		{"empty key", "x", map[string]any{"": 1.0}, nil, false},
		{"blank remove", "x", nil, []string{" "}, false},
		{"set and remove", "x", map[string]any{"a": 1.0}, []string{"a"}, false},
		{"unencodable", "x", map[string]any{"a": make(chan int)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := UpdateFrontmatter(tt.in, tt.set, tt.remove)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, ErrInvalidFrontmatter); got != tt.bad {
				t.Errorf("errors.Is(ErrInvalidFrontmatter) = %v, want %v (%v)", got, tt.bad, err)
			}
		})
	}
}
