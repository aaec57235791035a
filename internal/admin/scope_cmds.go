package admin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// The scope of a token or an app: the part of the vault it may use (issue
// 19). The store keeps it encoded; these commands read and describe it.

// scopeFlags are what the scope flags of a command were given.
type scopeFlags struct {
	read, write        string
	private, noPrivate bool
	whole              bool
}

const patternHint = "patterns are relative to the vault and separated by commas, e.g. --read 'Work/**,Journal/2026-*.md' " +
	"(Work/ is the folder and everything below it; a leading ! leaves a path out); quote them for the shell"

// flagRead and flagWrite say what a pattern left out means: token create
// makes a token read-only when given --read alone, and the scope commands
// change only what they are given.
func flagRead(change bool) flagSpec {
	def := "the whole vault"
	if change {
		def = "unchanged"
	}
	return flagSpec{name: "read", value: "GLOBS", usage: "the notes it may see, comma-separated patterns such as Work/**,Journal/2026-*.md (default: " + def + ")",
		field: func(s *session) any { return &s.scope.read }}
}

func flagWrite(change bool) flagSpec {
	def := "every note it may see; with --read, none: read-only"
	if change {
		def = "unchanged"
	}
	return flagSpec{name: "write", value: "GLOBS", usage: "the notes it may change, within --read (default: " + def + ")",
		field: func(s *session) any { return &s.scope.write }}
}

func flagPrivate() flagSpec {
	return flagSpec{name: "private", usage: "let it see notes marked private (private: true, or matching the server's --private)",
		field: func(s *session) any { return &s.scope.private }}
}

// scopeChangeFlags are the flags of token scope and clients scope.
func scopeChangeFlags() []flagSpec {
	return []flagSpec{flagRead(true), flagWrite(true), flagPrivate(),
		{name: "no-private", usage: "hide notes marked private from it again",
			field: func(s *session) any { return &s.scope.noPrivate }},
		{name: "whole", usage: "drop its read and write patterns: the whole vault again",
			field: func(s *session) any { return &s.scope.whole }},
	}
}

// parseRules reads the patterns of one flag, naming the flag in the error.
func parseRules(flagName, list string) (scope.Rules, error) {
	// Stored as JSON, which turns broken UTF-8 into something else.
	if !utf8.ValidString(list) {
		return scope.Rules{}, fail("give the patterns as UTF-8 text", "--%s: the patterns are not valid UTF-8", flagName)
	}
	r, err := scope.ParseRules(list)
	if err != nil {
		return scope.Rules{}, fail(patternHint, "--%s: %v", flagName, err)
	}
	return r, nil
}

// newScope is the scope token create gives: the flags as given.
func (s *session) newScope() (scope.Scope, error) {
	read, err := parseRules("read", s.scope.read)
	if err != nil {
		return scope.Scope{}, err
	}
	write, err := parseRules("write", s.scope.write)
	if err != nil {
		return scope.Scope{}, err
	}
	return scope.Scope{Read: read, Write: write, Private: s.scope.private}, nil
}

// scopeChange reads what the flags change, before anything is opened:
// --read and --write replace their patterns, --whole drops both, --private
// and --no-private switch private notes. Nothing given is a usage error.
func (s *session) scopeChange() (func(cur scope.Scope) scope.Scope, error) {
	g := s.given
	if !g["read"] && !g["write"] && !g["private"] && !g["no-private"] && !g["whole"] {
		return nil, usage("give --read, --write, --whole, --private or --no-private; e.g. cortex admin "+s.cmd.name+" "+s.cmd.args[0]+" --read 'Work/**'",
			"%s: nothing to change", s.cmd.name)
	}
	if s.scope.whole && (g["read"] || g["write"]) {
		return nil, usage("--whole drops every pattern; give it alone, or --read and --write alone", "%s: --whole with --read or --write", s.cmd.name)
	}
	if s.scope.private && s.scope.noPrivate {
		return nil, usage("give one of them", "%s: --private with --no-private", s.cmd.name)
	}
	read, err := parseRules("read", s.scope.read)
	if err != nil {
		return nil, err
	}
	write, err := parseRules("write", s.scope.write)
	if err != nil {
		return nil, err
	}
	return func(next scope.Scope) scope.Scope {
		if s.scope.whole {
			next.Read, next.Write = scope.Rules{}, scope.Rules{}
		}
		if g["read"] {
			next.Read = read
		}
		if g["write"] {
			next.Write = write
		}
		if s.scope.private {
			next.Private = true
		}
		if s.scope.noPrivate {
			next.Private = false
		}
		return next
	}, nil
}

// describeClient describes the scopes of an app's live grants.
func describeClient(c store.OAuthClientInfo) string {
	if len(c.VaultScopes) == 0 {
		return "-"
	}
	out := make([]string, len(c.VaultScopes))
	for i, v := range c.VaultScopes {
		out[i] = scope.DescribeStored(v)
	}
	return strings.Join(out, " | ")
}

func tokenScope(ctx context.Context, s *session, args []string) error {
	name := args[0]
	if !store.ValidTokenName(name) {
		return fail("run `cortex admin token list` to see the token names", "invalid token name %q", name)
	}
	change, err := s.scopeChange()
	if err != nil {
		return err
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := setTokenScope(ctx, s, st, name, change); errors.Is(err, store.ErrTokenNotFound) {
		return fail("run `cortex admin token list` to see the live tokens", "no live token named %q", name)
	} else if err != nil {
		return err
	}
	return nil
}

// setTokenScope changes the scope of the live token called name.
func setTokenScope(ctx context.Context, s *session, st *store.Store, name string, change func(scope.Scope) scope.Scope) error {
	cur, err := st.LiveToken(ctx, name)
	if err != nil {
		return err
	}
	// An unreadable stored scope is replaced by what the flags say, from
	// nothing (no pattern, no private notes).
	base, _ := scope.Decode(cur.VaultScope)
	next := change(base)
	if err := st.SetTokenScope(ctx, name, next.Encode()); err != nil {
		return err
	}
	recordAction(ctx, s, st, "changed the scope of token", name)
	fmt.Fprintf(s.Stderr, "scope of token %q is now: %s; it applies from the token's next request.\n", name, next.Describe())
	return nil
}

// clientsScope changes the scope of every live grant of an app; an ID that
// names a live bearer token changes that token's, as clients revoke does.
func clientsScope(ctx context.Context, s *session, args []string) error {
	id := args[0]
	change, err := s.scopeChange()
	if err != nil {
		return err
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := findClient(ctx, st, id)
	if errors.Is(err, store.ErrClientNotFound) {
		if store.ValidTokenName(id) {
			if err := setTokenScope(ctx, s, st, id, change); !errors.Is(err, store.ErrTokenNotFound) {
				return err
			}
		}
		return fail("run `cortex admin clients list` to see the IDs", "no OAuth app or live token with ID %s", strconv.Quote(id))
	}
	if err != nil {
		return err
	}
	// Grants approved with different scopes get one scope, built from the
	// whole vault when the flags do not say everything.
	var base scope.Scope
	if len(c.VaultScopes) == 1 {
		base, _ = scope.Decode(c.VaultScopes[0])
	}
	next := change(base)
	n, err := st.SetClientScope(ctx, id, next.Encode())
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(s.Stderr, "app %s holds no live grant; nothing changed. You choose its scope when you approve it again.\n", id)
		return nil
	}
	recordAction(ctx, s, st, "changed the scope of app", id)
	fmt.Fprintf(s.Stderr, "scope of app %s is now: %s; it applies from the app's next request.\n", id, next.Describe())
	return nil
}

// findClient is the app with this id, with its grants' scopes and use.
func findClient(ctx context.Context, st *store.Store, id string) (store.OAuthClientInfo, error) {
	clients, err := st.ListOAuthClients(ctx)
	if err != nil {
		return store.OAuthClientInfo{}, err
	}
	for _, c := range clients {
		if c.ID == id {
			return c, nil
		}
	}
	return store.OAuthClientInfo{}, store.ErrClientNotFound
}

// clientsShow prints one app (or bearer token) as the owner's console
// shows it: what it is, its scope, its last use, and the notes it read
// and changed.
func clientsShow(ctx context.Context, s *session, args []string) error {
	id := args[0]
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	c, err := findClient(ctx, st, id)
	if err == nil {
		fmt.Fprintf(tw, "ID\t%s\nNAME\t%s\nKIND\t%s\nCREATED\t%s\nSCOPE\t%s\nLAST USED\t%s\nLAST FROM\t%s\nLIVE GRANTS\t%d\n",
			c.ID, c.Name, kindLabel(c.Kind), formatTime(c.Created), describeClient(c), lastUse(c.LastUsed), lastFrom(c.LastAddr), c.LiveGrants)
		for _, u := range c.RedirectURIs {
			fmt.Fprintf(tw, "REDIRECT\t%s\n", u)
		}
		return printUse(ctx, s, st, tw, oauth.AppName(c.Name, c.ID), id)
	}
	if !errors.Is(err, store.ErrClientNotFound) {
		return err
	}
	t, err := st.LiveToken(ctx, id)
	if err == nil {
		fmt.Fprintf(tw, "ID\t%s\nNAME\t%s\nKIND\tbearer token\nCREATED\t%s\nSCOPE\t%s\nLAST USED\t%s\nLAST FROM\t%s\n",
			t.Name, t.Name, formatTime(t.Created), scope.DescribeStored(t.VaultScope), lastUse(t.LastUsed), lastFrom(t.LastAddr))
		return printUse(ctx, s, st, tw, t.Name, id)
	}
	if !errors.Is(err, store.ErrTokenNotFound) {
		return err
	}
	return fail("run `cortex admin clients list` to see the IDs", "no OAuth app or live token with ID %s", strconv.Quote(id))
}
