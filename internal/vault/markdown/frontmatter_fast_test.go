package markdown

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// fastSeeds are frontmatter blocks of the shapes notes have, and near
// misses of each that only the YAML parser may read.
var fastSeeds = []string{
	"title: \"Índice Ya Borrador Diseño\"\ntags: [dev/go, reading]\ncreated: 2020-08-05T01:47:00\n",
	"title: Plain title\naliases: [One, Two Words]\nstatus: draft\n",
	"tags:\n  - a\n  - b/c\ndate: 2024-01-31\n",
	"tags:\n- a\n- 'b c'\n- \"d\"\nnext: 1\n",
	"tags:\n\n  - a\n\n  - b\n",
	"empty:\nother: x\n",
	"n: 12\nneg: -3\nzero: 0\nbig: 123456789012345678\n",
	"b: true\nc: False\nd: NULL\ne: ~\nf: null\n",
	"list: []\nlist2: [ ]\nflow: [ a , b ]\nwords: [true, 1, null, x]\n",
	"k: 'single'\nq: \"double: with colon\"\n",
	"title: don't (maybe) v1.2/x_y\n",
	"_k-1: v\n",
	"title: Ünïcödé 日本語 текст\n",
	// Near misses.
	"n: 012\n", "n: +12\n", "n: 1.5\n", "n: 1e3\n", "n: 0x1F\n", "n: 1_000\n", "n: 1234567890123456789\n",
	"d: 2020-8-5\n", "d: 2020-08-05 01:47:00\n", "d: 2020-08-05T01:47:00Z\n", "d: 0999-01-01\n", "d: 2020-13-45\n",
	"d: 2020-02-30\n", "d: 2020-02-30T25:61:61\n",
	"b: yes\n", "b: on\n", "b: TrUe\n", "t: .inf\n", "t: .nan\n", "t: -.inf\n",
	"a: b: c\n", "a:b\n", "a : b\n", " a: b\n", "a: b # comment\n", "# comment\na: b\n",
	"a: \"esc \\\" aped\"\n", "a: 'it''s'\n", "a: \"open\n", "a: \"multi\n  line\"\n",
	"a: plain\n  continued\n", "a: plain\n - dash continued\n", "a:\n  - x\n    - y\n", "a:\n  - x\n - y\n",
	"a:\n  - [x]\n", "a:\n  - k: v\n", "a:\n  -\n", "a:\n  - \n", "- a\n- b\n",
	"a: [x, [y]]\n", "a: [x,, y]\n", "a: [x, y,]\n", "a: [x] y\n", "a: {x: 1}\n", "a: [\"x, y\"]\n", "a: ['x']\n",
	"a: &anchor v\nb: *anchor\n", "<<: {a: 1}\n", "a: !!str 1\n", "a: |\n  block\n", "a: >\n  folded\n",
	"a: x\na: y\n", "true: x\n", "null: x\n", "1: x\n", "a: x\tb\n", "a: x\r\n", "a: \"\x01\"\n", "a: \"\u0085\"\n",
	"a: \"\ufeff\"\n", "a: '\u00a0'\n", "a: x \n", "a:  spaced  \n", "a: @x\n", "a: `x`\n", "a: %x\n", "a: x%\n",
	"a: \xff\n", "", "\n\n", "a\n", "a: -\n", "a: - x\n", "a: ?x\n", "a: x?\n", "a: x!\n", "a: é́\n",
	// YAML 1.1's booleans, which YAML 1.2 and the parser read as text.
	"y: 1\nn: 1\non: 1\nyes: 1\nOff: 1\nNO: x\n", "b: y\nc: Y\nd: off\ne: On\nf: NO\n", "l: [y, n, on, off, yes, no]\n",
	"l:\n- y\n- off\n", "k: Infinity\nl: nan\nm: e5\nE: 1\n",
	"d: [2020-01-01, 2020-01-01T10:00:00]\n", "l:\n- 2020-01-01\n", "x: 1970-01-01\ny: 9999-12-31T23:59:59\n",
	"x: 123456789012345678\ny: -123456789012345678\n", "x: don't\nl: [don't, it's]\n",
	// The longest key YAML reads without a `? ` before it, and one more.
	strings.Repeat("k", 1024) + ": v\n", strings.Repeat("k", 1025) + ": v\n", strings.Repeat("k", 1025) + ":\n",
	"l:\n- " + strings.Repeat("x", 1100) + "\n", "v: " + strings.Repeat("x", 1100) + "\n",
}

// Where fastMapping reads a block, it gives what the YAML parser gives;
// and it reads the common shapes rather than declining them all.
func TestFastMappingSameAsYAML(t *testing.T) {
	read := 0
	for _, text := range fastSeeds {
		if sameAsYAML(t, text) {
			read++
		}
	}
	for _, text := range fastSeeds[:13] {
		if _, ok := fastMapping(text); !ok {
			t.Errorf("fastMapping declined a common shape:\n%s", text)
		}
	}
	if read < 13 {
		t.Errorf("fastMapping read %d of the seeds", read)
	}
}

// A note's frontmatter reads the same with the fast path as through YAML
// alone, title, tags and aliases included.
func TestParseFrontmatterFastShapes(t *testing.T) {
	content := "---\ntitle: \"Señal Idea\"\ntags:\n  - '#dev/go'\n  - Reading\n  - reading\naliases: [Señal]\n---\n# Body #inline\n"
	fm, err := ParseFrontmatter(content)
	if err != nil {
		t.Fatal(err)
	}
	if fm.Title != "Señal Idea" || !reflect.DeepEqual(fm.Tags, []string{"dev/go", "Reading"}) || !reflect.DeepEqual(fm.Aliases, []string{"Señal"}) {
		t.Fatalf("got title %q tags %q aliases %q", fm.Title, fm.Tags, fm.Aliases)
	}
}

func FuzzFastFrontmatter(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsYAML(t, text)
	})
}

// sameAsYAML checks fastMapping against the YAML parser on text and
// reports whether fastMapping read it.
func sameAsYAML(t *testing.T, text string) bool {
	t.Helper()
	got, ok := fastMapping(text)
	if !ok {
		return false
	}
	root, s, err := parseYAML(text)
	if err != nil || root == nil {
		t.Fatalf("fastMapping read %q as %#v; YAML: %v", text, got, err)
	}
	want, err := decodeMapping(root, s)
	if err != nil {
		t.Fatalf("fastMapping read %q as %#v; YAML: %v", text, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastMapping read %q as\n%#v\nYAML reads\n%#v", text, got, want)
	}
	if strings.Contains(text, "\r") {
		t.Fatalf("fastMapping read a block with a carriage return")
	}
	return true
}

// The parsed values share no memory with the note: a kept map must not
// keep the whole note alive, nor point into a buffer that is reused.
func TestFastMappingCopiesValues(t *testing.T) {
	content := "---\ntitle: Plain\nq: \"Quoted\"\ntags: [a, b]\nlist:\n  - c\n---\n" + strings.Repeat("body ", 1000)
	fm, err := ParseFrontmatter(content)
	if err != nil {
		t.Fatal(err)
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(content)))
	inside := func(s string) bool {
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return at >= lo && at < lo+uintptr(len(content))
	}
	var values []string
	for _, v := range fm.Map {
		switch x := v.(type) {
		case string:
			values = append(values, x)
		case []any:
			for _, e := range x {
				values = append(values, e.(string))
			}
		}
	}
	if len(values) != 5 {
		t.Fatalf("values %q", values)
	}
	for _, s := range values {
		if inside(s) {
			t.Errorf("%q points into the note", s)
		}
	}
}
