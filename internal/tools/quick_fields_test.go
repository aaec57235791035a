package tools

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
)

// decoderFields is objectFields as it was first written, on a
// json.Decoder: the reading objectFields must keep.
func decoderFields(b []byte) (map[string]json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for d.More() {
		off := d.InputOffset()
		t, err := d.Token()
		k, isKey := t.(string)
		if err != nil || !isKey {
			return nil, false
		}
		if raw := bytes.TrimLeft(b[off:d.InputOffset()], " \t\r\n,"); !plainString(raw) {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		m[k] = v
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := d.Token(); err == nil || d.More() {
		return nil, false
	}
	return m, true
}

// FuzzObjectFields: objectFields accepts only what the decoder's reading
// accepts, with the same members, and accepts every valid JSON text of at
// most maxFields members that reading accepts (the decoder also let a
// stray closing bracket follow the object; objectFields leaves such a
// body to the SDK).
func FuzzObjectFields(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x\"}" , "b":[1,{"c":"]"}], "d":null}`,
		`{"a":1,}`, `{"a":1}}`, `{"a":1} x`, `{"a":1,"a":2}`, `{"a\u0062":1}`, `{"a":tru}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"a":-1.5e3,"b":true,"c":false,"d":"\\"}`, `{"a":"x`, `{"a":{"b":}}`, `{"a":[}`, "{\"a\":1\n}\r\n",
		`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8}`, `{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, ok := objectFields(b)
		got := map[string]json.RawMessage{}
		for i := range fs.n {
			got[string(fs.keys[i])] = fs.vals[i]
		}
		want, wantOK := decoderFields(b)
		if ok && (!wantOK || !maps.EqualFunc(got, want, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })) {
			t.Fatalf("objectFields(%q) = %q, the decoder's reading %q, %v", b, got, want, wantOK)
		}
		if !ok && wantOK && json.Valid(b) && len(want) <= maxFields {
			t.Fatalf("objectFields(%q) refused what the decoder's reading accepts: %q", b, want)
		}
	})
}
