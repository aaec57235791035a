package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// notUTF8 returns the name of the first argument (in name order) whose
// value holds bytes that are not UTF-8 or an escaped lone surrogate
// ("\ud800"), or "" when all are valid. JSON decoding would silently turn
// either into U+FFFD, so that a note would be stored under another name or
// with other text than was sent.
func notUTF8(raw json.RawMessage) (string, bool) {
	if utf8.Valid(raw) && !loneSurrogate(raw) {
		return "", false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return "", true
	}
	names := make([]string, 0, len(args))
	for k, v := range args {
		if !utf8.Valid(v) || loneSurrogate(v) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return "", true // in a name, not a value
	}
	slices.Sort(names)
	return names[0], true
}

// loneSurrogate reports a \uD800-\uDFFF escape in JSON text that is not
// half of a surrogate pair.
func loneSurrogate(b []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return false
		}
		i += k
		if i+1 >= len(b) || b[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := hex4(b[i+2:])
		switch {
		case !ok:
			return false // not valid JSON; the decoder says so
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r < 0xDC00:
			if i+7 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
				return true
			}
			if lo, ok := hex4(b[i+8:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 12
		default:
			i += 6
		}
		if i >= len(b) {
			return false
		}
	}
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
