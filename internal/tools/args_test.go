package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// argsTool is a tool's input type, seen through its schema and a check
// that its fast path answers as decodeArgs does.
type argsTool struct {
	schema *jsonschema.Schema
	// same decodes raw both ways, fails t if they differ, and reports
	// whether the fast path answered.
	same func(t testing.TB, raw []byte) (fast bool)
}

func argsToolOf[In any]() argsTool { return argsToolFor(inputOf[In]()) }

func argsToolFor[In any](in *toolInput[In]) argsTool {
	return argsTool{in.schema.Schema(), func(t testing.TB, raw []byte) bool {
		t.Helper()
		want, wantErr := decodeArgs[In](raw, in.schema)
		got, gotErr := in.decode(raw)
		// decodeArgs names the first wrong argument the schema library
		// meets, in map order: with two wrong, either may be named.
		for i := 0; i < 100 && gotErr != nil && wantErr != nil && gotErr.Error() != wantErr.Error(); i++ {
			want, wantErr = decodeArgs[In](raw, in.schema)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%T from %q:\n got %+v, %v\nwant %+v, %v", want, raw, got, gotErr, want, wantErr)
		}
		if in.simple == nil {
			return false
		}
		_, fast := in.simple.decode(raw)
		return fast
	}}
}

// argsTools are the input types of every tool, by tool name.
var argsTools = map[string]argsTool{
	"search":             argsToolOf[searchIn](),
	"fetch":              argsToolOf[fetchIn](),
	"list":               argsToolOf[listIn](),
	"links":              argsToolOf[linksIn](),
	"recent":             argsToolOf[recentIn](),
	"create_note":        argsToolOf[createIn](),
	"append":             argsToolOf[appendIn](),
	"edit_note":          argsToolOf[editIn](),
	"replace_section":    argsToolOf[replaceSectionIn](),
	"update_frontmatter": argsToolOf[frontmatterIn](),
	"move_note":          argsToolOf[moveIn](),
	"delete_note":        argsToolOf[deleteIn](),
	undoTool:             argsToolOf[undoIn](),
}

// argsCases are arguments for any tool: the odd shapes a client may send.
var argsCases = []string{
	``, ` `, `null`, `{}`, ` {} `, "\t{\n}\r\n", `[]`, `[{}]`, `true`, `1`, `"id"`, `{`, `}`, `{}{}`, `{} x`,
	`{,}`, `{"id"}`, `{"id":}`, `{"id":"a",}`, `{"id" "a"}`, `{"a":{"b":[1,{"c":null}]}}`, "\xff", `{"\xff":1}`,
	`{"id":"Folder/Some note.md"}`, `{"query":"garden plan","limit":5,"lines":true}`,
}

// argsCasesFor are arguments made for the tool with schema s: every
// required argument given (the first case), then each argument (and some
// that are none) with values of every kind, left out, repeated, or spelt
// otherwise, and every argument given (the last case).
func argsCasesFor(s *jsonschema.Schema) []string {
	sample := map[string]string{"string": `"Folder/Some note.md"`, "boolean": `true`, "integer": `3`, "array": `["a"]`, "object": `{"k":"v"}`}
	type member struct{ k, v string }
	var base []member
	for _, name := range s.Required {
		base = append(base, member{name, sample[s.Properties[name].Type]})
	}
	obj := func(ms ...member) string {
		var parts []string
		for _, m := range ms {
			parts = append(parts, fmt.Sprintf("%q:%s", m.k, m.v))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	with := func(ms ...member) string { return obj(append(slices.Clone(base), ms...)...) }
	values := []string{
		`null`, `""`, `"a\u00e9\n\"b\\"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\xfe\"", "\"a\tb\"", `"x\q"`,
		`true`, `false`, `0`, `-0`, `3`, `-4`, `01`, `1.0`, `1.5`, `1e2`, `-1E0`, `123456789012345`, `-123456789012345`,
		`1234567890123456`, `9007199254740993`, `99999999999999999999`, `1e400`, `[]`, `["a"]`, `[1]`, `{}`, `{"a":1}`,
		`nul`, `tru`, `-`,
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	cases := []string{with(), obj()}
	for i := range base {
		cases = append(cases, obj(slices.Delete(slices.Clone(base), i, i+1)...))
		null := slices.Clone(base)
		null[i].v = `null`
		cases = append(cases, obj(null...))
	}
	for _, name := range append(names, "nope", strings.ToUpper(names[0]), "") {
		for _, v := range values {
			cases = append(cases, with(member{name, v}))
		}
		v := sample["string"]
		if p := s.Properties[name]; p != nil {
			v = sample[p.Type]
		}
		cases = append(cases,
			with(member{name, v}, member{name, `null`}),
			with(member{name, `null`}, member{name, v}),
			with(member{name, v}, member{name, v}),
			" \n"+strings.ReplaceAll(strings.ReplaceAll(with(member{name, v}), ",", " ,\t"), ":", "\r: ")+" ",
			with(member{name, v})+"x",
		)
		if name != "" {
			escaped := fmt.Sprintf(`"\u%04x%s"`, name[0], name[1:])
			cases = append(cases, strings.Replace(with(member{name, v}), `"`+name+`"`, escaped, 1))
		}
	}
	// Every argument at once.
	var all []member
	for _, name := range names {
		all = append(all, member{name, sample[s.Properties[name].Type]})
	}
	return append(cases, obj(all...))
}

// The fast path answers every call as decodeArgs does, the same arguments
// or the same refusal, for every tool; and it does answer the usual calls.
func TestFastArgsAsSchema(t *testing.T) {
	_, srv := buildServer(Deps{}, "", newUIClients())
	registered := append(slices.Clone(srv.names), slices.Collect(maps.Keys(srv.appOnly))...)
	slices.Sort(registered)
	if tested := slices.Sorted(maps.Keys(argsTools)); !slices.Equal(tested, registered) {
		t.Fatalf("argsTools has %q, the server registers %q", tested, registered)
	}
	for _, name := range registered {
		tool := argsTools[name]
		fast := 0
		for _, raw := range append(argsCasesFor(tool.schema), argsCases...) {
			if tool.same(t, []byte(raw)) {
				fast++
			}
		}
		// The required arguments alone, and with each simple argument.
		if fast < 2 {
			t.Errorf("%s: the fast path answered %d calls", name, fast)
		}
	}
	for _, c := range []struct{ tool, raw string }{
		{"fetch", `{"id":"Folder/Some note.md"}`},
		{"fetch", `{"id":"Plan","section":"## Budget","offset":20000,"max_chars":null}`},
		{"search", `{"query":"garden plan","limit":5,"lines":true}`},
		{"edit_note", `{"id":"a.md","version":"v1","old_text":"x","new_text":"y\n","dry_run":false}`},
	} {
		if !argsTools[c.tool].same(t, []byte(c.raw)) {
			t.Errorf("%s %s: not on the fast path", c.tool, c.raw)
		}
	}
}

// oddIn is an input type whose schemas below have what no tool's has yet.
type oddIn struct {
	N    int      `json:"n,omitempty"`
	Kind string   `json:"kind,omitempty"`
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

// The fast path keeps to what decodeArgs does with defaults, and leaves
// alone arguments whose schema may refuse a value of their type.
func TestFastArgsOtherSchemas(t *testing.T) {
	prop := func(typ string, f func(*jsonschema.Schema)) *jsonschema.Schema {
		p := &jsonschema.Schema{Type: typ}
		f(p)
		return p
	}
	none := func(*jsonschema.Schema) {}
	for _, c := range []struct {
		name  string
		props map[string]*jsonschema.Schema
		req   []string
		fast  string // arguments the fast path must answer, "" for none
		want  oddIn  // and what it must answer
	}{
		{"defaults", map[string]*jsonschema.Schema{
			"n":    prop("integer", func(p *jsonschema.Schema) { p.Default = json.RawMessage(`7`) }),
			"kind": prop("string", func(p *jsonschema.Schema) { p.Default = json.RawMessage(`"note"`) }),
			"name": prop("string", none),
			"tags": prop("array", func(p *jsonschema.Schema) { p.Items = &jsonschema.Schema{Type: "string"} }),
		}, []string{"name"}, `{"name":"x","kind":null}`, oddIn{N: 7, Kind: "note", Name: "x"}},
		{"refusing", map[string]*jsonschema.Schema{
			"n":    prop("integer", func(p *jsonschema.Schema) { p.Minimum = new(1.0) }),
			"kind": prop("string", func(p *jsonschema.Schema) { p.Enum = []any{"a", "b"} }),
			"name": prop("string", func(p *jsonschema.Schema) { p.Pattern = "^x" }),
		}, nil, `{}`, oddIn{}},
		{"required and refusing", map[string]*jsonschema.Schema{
			"n":    prop("integer", none),
			"name": prop("string", func(p *jsonschema.Schema) { p.MaxLength = new(3) }),
		}, []string{"name"}, "", oddIn{}},
		{"a default shared", map[string]*jsonschema.Schema{
			"name": prop("string", none),
			"tags": prop("array", func(p *jsonschema.Schema) {
				p.Items = &jsonschema.Schema{Type: "string"}
				p.Default = json.RawMessage(`["a"]`)
			}),
		}, nil, "", oddIn{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &jsonschema.Schema{Type: "object", Properties: c.props, Required: c.req, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
			r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
			if err != nil {
				t.Fatal(err)
			}
			in := &toolInput[oddIn]{schema: r, simple: newSimpleArgs[oddIn](r)}
			tool := argsToolFor(in)
			for _, raw := range append(argsCasesFor(s), argsCases...) {
				tool.same(t, []byte(raw))
			}
			if c.fast == "" {
				if in.simple != nil {
					t.Errorf("a fast path for %+v", in.simple.props)
				}
				return
			}
			if got, ok := in.simple.decode([]byte(c.fast)); !ok || !reflect.DeepEqual(got, c.want) {
				t.Errorf("fast path for %s: %+v, %v; want %+v", c.fast, got, ok, c.want)
			}
		})
	}
}

// Tools are told apart by their input schemas as clients see them, so
// that argsTools pairs each name with its own input type.
func TestArgsToolsMatchTheList(t *testing.T) {
	e := newEnv(t)
	res, err := e.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		listed, _ := json.Marshal(tool.InputSchema)
		ours, _ := json.Marshal(argsTools[tool.Name].schema)
		if !jsonEqual(string(listed), string(ours)) {
			t.Errorf("%s: listed input schema %s, argsTools has %s", tool.Name, listed, ours)
		}
	}
}

// FuzzFastArgs checks the fast path against decodeArgs for the tool
// numbered tool, in name order. Its seeds are the odd shapes for every
// tool, each tool's usual calls, and all of fetch's cases: a seed costs
// the fuzzer milliseconds, and TestFastArgsAsSchema tries every case.
func FuzzFastArgs(f *testing.F) {
	names := slices.Sorted(maps.Keys(argsTools))
	for i, name := range names {
		cases := argsCasesFor(argsTools[name].schema)
		seeds := append([]string{cases[0], cases[len(cases)-1]}, argsCases...)
		if name == "fetch" {
			seeds = append(seeds, cases...)
		}
		for _, raw := range seeds {
			f.Add(uint8(i), []byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		argsTools[names[int(tool)%len(names)]].same(t, raw)
	})
}

// BenchmarkDecodeArgs decodes fetch's arguments as a model sends them,
// a different note each time.
func BenchmarkDecodeArgs(b *testing.B) {
	raws := make([]json.RawMessage, 400)
	for i := range raws {
		raws[i] = json.RawMessage(fmt.Sprintf(`{"id":"Folder %d/Some note %d.md"}`, i%8, i))
	}
	in := inputOf[fetchIn]()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		args, err := in.decode(raws[i%len(raws)])
		if err != nil || args.ID == "" {
			b.Fatal(err)
		}
		i++
	}
}
