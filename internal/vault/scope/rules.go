package scope

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Key is the form in which vault paths are compared with patterns and with
// each other: in Unicode normal form C, lower case, with trailing dots and
// spaces of each segment dropped, because vaults synced from macOS or
// Windows live on file systems that treat such names as the same entry.
// macOS writes names decomposed (NFD) where people type them composed
// (NFC), so without normalisation a denied "Privé/" would not cover the
// same folder written by a Mac.
func Key(p string) string {
	// Normalised before and after lower-casing: case mappings of composed
	// and decomposed letters differ ("İ" lowers to "i", "İ" to "i̇").
	p = norm.NFC.String(strings.ToLower(norm.NFC.String(p)))
	if !strings.ContainsAny(p, ". ") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if t := strings.TrimRight(s, ". "); t != "" {
			segs[i] = t
		}
	}
	return strings.Join(segs, "/")
}

// ErrPattern is wrapped by every error of ParseRules.
var ErrPattern = errors.New("bad pattern")

// maxPatterns bounds a list so that matching stays cheap on every path.
const maxPatterns = 64

// Rules is an ordered list of gitignore-style patterns, relative to the vault
// root. A path matches when the last pattern that covers it (the path itself
// or a folder above it) is not negated with a leading '!'. The zero value
// holds no pattern and matches nothing; whether that means "nothing" or "the
// whole vault" is for the caller to say (see Scope).
type Rules struct {
	pats []pattern
}

type pattern struct {
	src  string   // as written, trimmed
	segs []string // folded; "**" is any number of segments
	neg  bool
}

// ParseRules reads a comma-separated list of patterns. Each pattern is
// anchored at the vault root (a leading '/' is allowed and changes nothing);
// '*' and '?' match within one name, "[a-z]" a class, '\' escapes; "**" as a
// whole segment matches any number of folders. A pattern that names a folder
// covers everything below it: "Work", "Work/" and "Work/**" are the same.
// Matching ignores case and Unicode normalisation as Key does. Empty items
// are skipped; a pattern that cannot be read is an error naming it.
func ParseRules(list string) (Rules, error) {
	return ParsePatterns(strings.Split(list, ","))
}

// ParsePatterns is ParseRules for patterns already split.
func ParsePatterns(list []string) (Rules, error) {
	var r Rules
	for _, raw := range list {
		src := strings.TrimSpace(raw)
		if src == "" {
			continue
		}
		p, err := parsePattern(src)
		if err != nil {
			return Rules{}, fmt.Errorf("%w %q: %s", ErrPattern, src, err.Error())
		}
		r.pats = append(r.pats, p)
	}
	if len(r.pats) > maxPatterns {
		return Rules{}, fmt.Errorf("%w list: more than %d patterns", ErrPattern, maxPatterns)
	}
	return r, nil
}

func parsePattern(src string) (pattern, error) {
	p := pattern{src: src}
	if !utf8.ValidString(src) {
		// No vault path holds such bytes, and the stored form could not
		// keep them.
		return p, errors.New("it is not valid UTF-8")
	}
	s := src
	if strings.HasPrefix(s, "!") {
		p.neg, s = true, s[1:]
	}
	s = strings.TrimPrefix(s, "/")
	s = strings.TrimSuffix(s, "/")
	if s == "" {
		return p, errors.New("it names no path")
	}
	if strings.Contains(s, "//") {
		return p, errors.New("it has an empty folder name, as in a//b")
	}
	for _, seg := range strings.Split(s, "/") {
		switch {
		case seg == "." || seg == "..":
			return p, errors.New("it has a . or .. folder; use paths inside the vault")
		case seg == "**":
			if n := len(p.segs); n > 0 && p.segs[n-1] == "**" {
				continue
			}
		case strings.Contains(seg, "**"):
			return p, errors.New("** matches whole folder levels only, as in Work/**/*.md; use * inside a name")
		default:
			if _, err := path.Match(seg, ""); err != nil {
				return p, errors.New("it has an unclosed [ or a trailing \\")
			}
			seg = Key(seg)
		}
		p.segs = append(p.segs, seg)
	}
	// "Work/**" is "Work": a pattern covers everything below what it names.
	for len(p.segs) > 1 && p.segs[len(p.segs)-1] == "**" {
		p.segs = p.segs[:len(p.segs)-1]
	}
	return p, nil
}

// Empty reports whether r holds no pattern.
func (r Rules) Empty() bool { return len(r.pats) == 0 }

// Patterns returns the patterns as written.
func (r Rules) Patterns() []string {
	out := make([]string, len(r.pats))
	for i, p := range r.pats {
		out[i] = p.src
	}
	return out
}

// String is the comma-separated list, as ParseRules reads it.
func (r Rules) String() string { return strings.Join(r.Patterns(), ",") }

// Match reports whether the vault-relative path p (a note, a file or a
// folder, with '/') is covered: the last pattern naming p or a folder above
// it is not negated.
func (r Rules) Match(p string) bool {
	if len(r.pats) == 0 {
		return false
	}
	return r.MatchKey(splitKey(Key(p)))
}

// MatchKey is Match for a path already folded by Key and split at '/'.
func (r Rules) MatchKey(segs []string) bool {
	in := false
	for _, pat := range r.pats {
		if pat.coversPrefix(segs) {
			in = !pat.neg
		}
	}
	return in
}

// MayCover reports whether a path inside the folder dir ("" is the root)
// can match: false means nothing below dir does, so a walk need not enter
// it and its name need not be shown.
func (r Rules) MayCover(dir string) bool {
	var segs []string
	if dir != "" {
		segs = splitKey(Key(dir))
	}
	in := false
	for _, pat := range r.pats {
		switch {
		case pat.coversPrefix(segs):
			in = !pat.neg
		case !pat.neg && pat.reachesBelow(segs):
			in = true
		}
	}
	return in
}

func splitKey(k string) []string {
	if k == "" {
		return nil
	}
	return strings.Split(k, "/")
}

// coversPrefix reports whether the pattern matches segs or one of the
// folders above it (a prefix of segs).
func (p pattern) coversPrefix(segs []string) bool {
	for n := len(segs); n >= 1; n-- {
		if matchSegs(p.segs, segs[:n]) {
			return true
		}
	}
	return false
}

// reachesBelow reports whether the pattern can match some path strictly
// below the folder segs.
func (p pattern) reachesBelow(segs []string) bool {
	return prefixSegs(p.segs, segs)
}

// matchSegs reports whether pattern segments pat match the path segments
// exactly, "**" standing for any number (zero included) of segments.
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !matchOne(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// prefixSegs reports whether the pattern can consume all of segs and still
// have something left to match below them.
func prefixSegs(pat, segs []string) bool {
	for len(segs) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if !matchOne(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(pat) > 0
}

func matchOne(pat, seg string) bool {
	if !strings.ContainsAny(pat, `*?[\`) {
		return pat == seg
	}
	ok, _ := path.Match(pat, seg)
	return ok
}
