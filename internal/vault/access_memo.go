package vault

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// pathMemo remembers, for each read scope a search ran with, which indexed
// notes it lets a call see by their path (pathVisible), so that filtering
// thousands of candidates folds and matches each path once per scope
// rather than on every search: without it a token reading half the vault
// paid more for the filter than for the search. A verdict depends only on
// the path, the scope's read patterns and whether it sees private notes
// (--private is fixed for the vault), so it never goes stale.
type pathMemo struct {
	mu sync.RWMutex
	m  map[string]map[string]bool // scopeKey → path → visible
	n  int                        // verdicts held, over every scope
}

// maxPathMemo bounds the memo's memory (about 60 bytes a verdict besides
// the path, which the index holds anyway): past it, every verdict is
// dropped and learnt again.
const maxPathMemo = 200_000

// scopeKey is what a path's verdict depends on besides the path: each
// pattern with its length, so that no two lists of patterns share a key.
func scopeKey(a access) string {
	var b strings.Builder
	b.WriteString(strconv.FormatBool(a.s.Private))
	for _, p := range a.s.Read.Patterns() {
		b.WriteString(" " + strconv.Itoa(len(p)) + ":" + p)
	}
	return b.String()
}

// visibleDocs keeps the candidates the call may see: by their path through
// the memo, then, unless it sees private notes or none is known private,
// by their frontmatter.
func (v *Vault) visibleDocs(a access, x *search.Index, cands []search.Scored, nonePrivate bool) []search.Scored {
	if !a.s.Read.Empty() || !a.s.Private && !v.private.Empty() {
		cands = v.paths.keep(a, v, x, cands)
	}
	if a.s.Private || nonePrivate {
		return cands
	}
	// The index says what each note it holds said when it was indexed; a
	// mark, what a reading since said. Either saying private hides it (a
	// hit made private since is also dropped when it is read to be shown).
	m := &v.privs
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.DeleteFunc(cands, func(s search.Scored) bool {
		d := x.DocOf(s)
		mk, marked := m.m[d.Path]
		return d.Private || marked && mk.private
	})
}

// keep keeps the candidates whose path the scope lets the call see.
func (m *pathMemo) keep(a access, v *Vault, x *search.Index, cands []search.Scored) []search.Scored {
	key := scopeKey(a)
	type verdict struct {
		path string
		ok   bool
	}
	var learnt []verdict
	m.mu.RLock()
	known := m.m[key]
	cands = slices.DeleteFunc(cands, func(s search.Scored) bool {
		p := x.DocOf(s).Path
		ok, had := known[p]
		if !had {
			ok = v.pathVisible(a, p)
			learnt = append(learnt, verdict{p, ok})
		}
		return !ok
	})
	m.mu.RUnlock()
	if len(learnt) == 0 {
		return cands
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || m.n+len(learnt) > maxPathMemo {
		m.m, m.n = map[string]map[string]bool{}, 0
	}
	if m.m[key] == nil {
		m.m[key] = map[string]bool{}
	}
	for _, l := range learnt {
		if _, had := m.m[key][l.path]; !had {
			m.m[key][l.path] = l.ok
			m.n++
		}
	}
	return cands
}
