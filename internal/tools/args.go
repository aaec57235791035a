package tools

import (
	"bytes"
	"encoding"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolInput is what a tool needs to take its arguments: the resolved
// input schema, and the fast path when the schema allows one.
type toolInput[In any] struct {
	schema *jsonschema.Resolved
	simple *simpleArgs[In] // nil: every call takes decodeArgs
}

// decode is decodeArgs, by way of the fast path when it can be sure of
// giving the same answer.
func (t *toolInput[In]) decode(raw json.RawMessage) (In, error) {
	if t.simple != nil {
		if in, ok := t.simple.decode(raw); ok {
			return in, nil
		}
	}
	return decodeArgs[In](raw, t.schema)
}

// simpleArgs decodes the usual call, such as fetch's {"id": "Plan.md"},
// without the schema library. Checking such arguments against the schema
// and decoding them through a map and back cost about an eighth of the
// CPU of a fetch's handler, for arguments that are a few strings,
// booleans and small integers whose schemas refuse nothing of their
// type. Anything else (an unknown or repeated name, a value of another
// type, a number that is not a plain integer, a missing required
// argument, JSON it does not follow) goes to decodeArgs, which answers or
// refuses as it always has.
type simpleArgs[In any] struct {
	props    []simpleProp // sorted by name
	required uint64       // bit i: props[i] must be given
	// template is what decodeArgs gives for the required arguments alone,
	// each the zero value of its type: the defaults of everything else
	// applied. A call sets every required argument, so none of those
	// zero values is left.
	template In
}

// simpleProp is an argument of one plain JSON type.
type simpleProp struct {
	name string
	typ  string // "string", "boolean" or "integer"
}

// newSimpleArgs works out the fast path for the schema, or returns nil
// when its arguments must all go through decodeArgs.
func newSimpleArgs[In any](r *jsonschema.Resolved) *simpleArgs[In] {
	s := r.Schema()
	// The object's schema may have nothing but its properties, which of
	// them are required, and what to make of other names (the fast path
	// takes none).
	root := *s
	root.Title, root.Description = "", ""
	root.Properties, root.Required, root.AdditionalProperties, root.PropertyOrder = nil, nil, nil, nil
	if !reflect.DeepEqual(root, jsonschema.Schema{Type: "object"}) || len(s.Properties) > 64 {
		return nil
	}
	a := new(simpleArgs[In])
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if typ := simpleType(s.Properties[name]); typ != "" {
			a.props = append(a.props, simpleProp{name, typ})
		}
	}
	zero := map[string]any{"string": "", "boolean": false, "integer": 0}
	given := map[string]any{}
	for _, name := range s.Required {
		i := a.index([]byte(name))
		if i < 0 {
			return nil // a required argument the fast path never takes
		}
		a.required |= 1 << i
		given[name] = zero[a.props[i].typ]
	}
	raw, err := json.Marshal(given)
	if err != nil {
		return nil
	}
	if a.template, err = decodeArgs[In](raw, r); err != nil {
		return nil
	}
	// Every call starts from a copy of the template, so it must share
	// nothing with it; and a type that decodes itself might see the raw
	// argument differently from decodeArgs's re-encoded one.
	if !unshared(reflect.ValueOf(&a.template).Elem()) {
		return nil
	}
	return a
}

// simpleType is the type of a property whose schema refuses no value of
// that type, or "".
func simpleType(p *jsonschema.Schema) string {
	q := *p
	q.Title, q.Description, q.Comment, q.Examples, q.Default = "", "", "", nil, nil
	q.Deprecated, q.ReadOnly, q.WriteOnly = false, false, false
	switch q.Type {
	case "string", "boolean", "integer":
		if reflect.DeepEqual(q, jsonschema.Schema{Type: q.Type}) {
			return q.Type
		}
	}
	return ""
}

// unshared reports whether a copy of v shares nothing with v and nothing
// in it has a decoding method of its own, which, given the raw argument
// rather than decodeArgs's re-encoding of it, might make something else
// of it. No input type has a pointer.
func unshared(v reflect.Value) bool {
	p := reflect.PointerTo(v.Type())
	if p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return false
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if !unshared(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return false
	}
	return true
}

// index is the position of the property named name, or -1.
func (a *simpleArgs[In]) index(name []byte) int {
	for i, p := range a.props {
		if p.name == string(name) {
			return i
		}
	}
	return -1
}

// decode decodes raw if it is an object of known simple properties, each
// at most once, with a value of its type or null, and all required ones
// given; ok is false otherwise.
func (a *simpleArgs[In]) decode(raw []byte) (in In, ok bool) {
	f, ok := objectFields(raw)
	if !ok {
		return in, false
	}
	var given uint64
	for i := range f.n {
		p := a.index(f.keys[i])
		if p < 0 {
			return in, false
		}
		switch valueType(f.vals[i]) {
		case "null":
			// Absent, as for decodeArgs: decoding null into a string,
			// bool or int leaves the template's value.
		case a.props[p].typ:
			given |= 1 << p
		default:
			return in, false
		}
	}
	if given&a.required != a.required {
		return in, false
	}
	in = a.template
	// Strings are decoded as decodeArgs decodes them, escapes and invalid
	// UTF-8 (which becomes U+FFFD) alike.
	if json.Unmarshal(raw, &in) != nil {
		var zero In
		return zero, false
	}
	return in, true
}

// valueType is the JSON type of v, a valid JSON value: "integer" only for
// at most 15 digits, which a float64, as decodeArgs holds a number, keeps
// exactly; "" for an array, an object or another number.
func valueType(v []byte) string {
	switch string(v) {
	case "true", "false":
		return "boolean"
	case "null":
		return "null"
	}
	if v[0] == '"' {
		return "string"
	}
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 {
		return ""
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return "integer"
}
