package tools

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// fields are the members of a JSON object, in order, as objectFields
// finds them: keys (without their quotes) and values are the object's own
// bytes. A call's objects have a handful of members; one with more than
// maxFields is not read.
type fields struct {
	n    int
	keys [maxFields][]byte
	vals [maxFields]json.RawMessage
}

const maxFields = 8

// get returns the value of key k, or nil.
func (f *fields) get(k string) json.RawMessage {
	for i := range f.n {
		if string(f.keys[i]) == k {
			return f.vals[i]
		}
	}
	return nil
}

// objectFields splits a JSON object into its members, refusing anything
// but an object of at most maxFields members whose keys are plain (see
// plainString) and each there once, whose values are each valid JSON, with
// nothing but whitespace after it. Values are without the whitespace
// around them. It is a json.Decoder's reading, on the bytes themselves: a
// decoder copies the input and allocates each token, which on every call
// came to more than the answer of a small note.
func objectFields(b []byte) (f fields, ok bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return f, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return f, skipSpace(b, i+1) == len(b)
	}
	for {
		// A plain key ends at the first quote: a backslash before it
		// makes it no plain key.
		if i == len(b) || b[i] != '"' || f.n == maxFields {
			return f, false
		}
		n := bytes.IndexByte(b[i+1:], '"')
		if n < 0 || !plainString(b[i:i+n+2]) {
			return f, false
		}
		k := b[i+1 : i+n+1]
		if f.get(string(k)) != nil {
			return f, false
		}
		if i = skipSpace(b, i+n+2); i == len(b) || b[i] != ':' {
			return f, false
		}
		i = skipSpace(b, i+1)
		end := valueEnd(b, i)
		if end < 0 || !json.Valid(b[i:end]) {
			return f, false
		}
		f.keys[f.n], f.vals[f.n] = k, b[i:end:end]
		f.n++
		if i = skipSpace(b, end); i == len(b) {
			return f, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return f, skipSpace(b, i+1) == len(b)
		default:
			return f, false
		}
	}
}

// skipSpace returns the index of the first byte of b from i on that is
// not JSON whitespace, or len(b).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns where the JSON value that starts at b[i] ends, or -1
// when it does not end within b. It finds the extent only (strings with
// their escapes, brackets nested to any depth); json.Valid judges it.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return -1
			}
		default:
			if depth == 0 {
				// A number or a literal: up to what may follow a value.
				for i < len(b) && strings.IndexByte(",}] \t\r\n", b[i]) < 0 {
					i++
				}
				return i
			}
			continue
		}
		if depth == 0 {
			return i + 1
		}
	}
	return -1
}

// plainString reports whether raw is a JSON string of printable ASCII
// without escapes, which every decoder reads the same way.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// plainID returns a request id as the SDK writes it back: a plain string
// as it came, an integer in int64's range in decimal.
func plainID(raw []byte) ([]byte, bool) {
	if plainString(raw) {
		return raw, true
	}
	if len(raw) == 0 || len(raw) > 1 && raw[0] == '0' || len(raw) > 2 && raw[0] == '-' && raw[1] == '0' {
		return nil, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return nil, false
	}
	return strconv.AppendInt(nil, n, 10), true
}
