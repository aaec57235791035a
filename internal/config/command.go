package config

import (
	"errors"
	"strings"
)

// splitCommand splits a command line into words as a shell would for
// plain words and '...' or "..." quoting (a backslash escapes the next
// character outside single quotes), and nothing more: no variables, no
// globs. The container image has no shell to run it with.
func splitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case quote != 0:
			switch {
			case r == quote:
				quote = 0
			case r == '\\' && quote == '"':
				escaped = true
			default:
				w.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("the command has an unclosed quote or a trailing backslash")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
