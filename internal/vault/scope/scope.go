// Package scope says which part of the vault an app may see and change: the
// gitignore-style patterns of --deny, --private and of each app's and token's
// scope, the Scope value that travels with a request, and the folding by
// which vault paths are compared.
//
// It works on strings only: it never opens a file and imports no other
// internal package, so that config, store-facing code, the vault and the
// web edge all read patterns the same way.
package scope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Scope is the part of the vault one app or token may use.
type Scope struct {
	// Read are the notes it may see; empty means the whole vault.
	Read Rules
	// Write are the notes it may change, always within Read. Empty means
	// the whole vault when Read is empty too (what every credential had
	// before scopes), and nothing when Read names folders: "--read Work"
	// alone is read-only. Whether it may write at all is also the
	// credential's notes:write scope, checked at the edge.
	Write Rules
	// Private lets it see notes marked private (frontmatter private: true,
	// or matching --private). Without it they do not exist for the app.
	Private bool
}

// All is the owner's view: the whole vault, private notes included.
var All = Scope{Private: true}

// Whole reports whether s has no read or write patterns.
func (s Scope) Whole() bool { return s.Read.Empty() && s.Write.Empty() }

// CanRead reports whether the vault-relative path p lies inside the scope
// (private notes aside: the vault decides what is private).
func (s Scope) CanRead(p string) bool {
	return s.Read.Empty() || s.Read.Match(p)
}

// CanWrite reports whether p may be changed: it must be readable too, so
// that write patterns never reach past the read ones.
func (s Scope) CanWrite(p string) bool {
	if s.Write.Empty() {
		return s.Read.Empty()
	}
	return s.CanRead(p) && s.Write.Match(p)
}

// ReadOnly reports whether the scope lets nothing be changed.
func (s Scope) ReadOnly() bool { return s.Write.Empty() && !s.Read.Empty() }

// MayHold reports whether the folder dir ("" the root) may hold something
// the scope can read.
func (s Scope) MayHold(dir string) bool {
	return s.Read.Empty() || s.Read.MayCover(dir)
}

// Describe is the scope in one short phrase for messages to the app and the
// admin: "the whole vault", "read Work/**; write Work/Drafts/**", with
// ", private notes included" when so. It names only the app's own patterns.
func (s Scope) Describe() string {
	var b strings.Builder
	if s.Read.Empty() {
		b.WriteString("the whole vault")
	} else {
		b.WriteString("read " + strings.Join(s.Read.Patterns(), ", "))
	}
	switch {
	case !s.Write.Empty():
		b.WriteString("; write " + strings.Join(s.Write.Patterns(), ", "))
	case !s.Read.Empty():
		b.WriteString("; write nothing")
	}
	if s.Private {
		b.WriteString(", private notes included")
	}
	return b.String()
}

// DescribeStored is Describe for a scope as Encode stored it; one that
// cannot be read is refused by the server, and says so.
func DescribeStored(v string) string {
	sc, err := Decode(v)
	if err != nil {
		return "unreadable, so refused: set it again"
	}
	return sc.Describe()
}

// Parse builds a scope from comma-separated read and write pattern lists.
func Parse(read, write string, private bool) (Scope, error) {
	r, err := ParseRules(read)
	if err != nil {
		return Scope{}, fmt.Errorf("read: %w", err)
	}
	w, err := ParseRules(write)
	if err != nil {
		return Scope{}, fmt.Errorf("write: %w", err)
	}
	return Scope{Read: r, Write: w, Private: private}, nil
}

// stored is the JSON form of a scope kept with a token or a grant.
type stored struct {
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
	Private bool     `json:"private,omitempty"`
}

// Encode is the form kept in the state database: "" for the whole vault
// without private notes (what every credential had before scopes), else a
// small JSON object.
func (s Scope) Encode() string {
	if s.Whole() && !s.Private {
		return ""
	}
	b, _ := json.Marshal(stored{Read: s.Read.Patterns(), Write: s.Write.Patterns(), Private: s.Private})
	return string(b)
}

// ErrStored is returned by Decode for a value Encode did not write.
var ErrStored = errors.New("stored scope is not readable")

// Decode reads what Encode wrote.
func Decode(v string) (Scope, error) {
	if v == "" {
		return Scope{}, nil
	}
	var st stored
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return Scope{}, fmt.Errorf("%w: %w", ErrStored, err)
	}
	r, err := ParsePatterns(st.Read)
	if err != nil {
		return Scope{}, fmt.Errorf("%w: %w", ErrStored, err)
	}
	w, err := ParsePatterns(st.Write)
	if err != nil {
		return Scope{}, fmt.Errorf("%w: %w", ErrStored, err)
	}
	return Scope{Read: r, Write: w, Private: st.Private}, nil
}

type ctxKey struct{}

// NewContext returns ctx carrying s: every vault call made with it sees the
// vault through s.
func NewContext(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext returns the scope ctx carries; ok is false when it carries
// none (the owner's own calls: the console, the admin commands).
func FromContext(ctx context.Context) (s Scope, ok bool) {
	s, ok = ctx.Value(ctxKey{}).(Scope)
	return s, ok
}
