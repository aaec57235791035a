package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/store"
)

// The clients commands: apps connected by OAuth, next to the bearer tokens
// of command-line agents.

// clientCommands are the rows of the clients commands, for help and lookup.
// Their flags (--name, --redirect-uri, --secret) are parsed by runClients.
func clientCommands() []command { return clientTable(&clientOpts{}) }

type clientOpts struct {
	name      string
	redirects multiFlag
	secret    bool
}

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func clientTable(o *clientOpts) []command {
	with := func(f func(context.Context, *session, clientOpts, []string) error) func(context.Context, *session, []string) error {
		return func(ctx context.Context, s *session, args []string) error { return f(ctx, s, *o, args) }
	}
	return []command{
		{name: "clients add", args: []string{"--name NAME", "--redirect-uri URI...", "[--secret]"},
			summary: "pre-register an OAuth app (e.g. Meta AI) and print its client id (and secret, once)", run: with(clientsAdd)},
		{name: "clients list", summary: "list OAuth apps and bearer tokens with their last use and live grants", run: with(clientsList)},
		{name: "clients revoke", args: []string{"ID"}, summary: "remove an OAuth app (or bearer token): all its tokens stop at once", run: with(clientsRevoke)},
	}
}

// runClients runs args if they name a clients command and reports whether
// it did.
func runClients(ctx context.Context, env Env, args []string) (bool, error) {
	if len(args) == 0 || args[0] != "clients" {
		return false, nil
	}
	var o clientOpts
	c, rest := lookup(clientTable(&o), args)
	if c == nil {
		return true, unknown(args)
	}
	s := &session{Env: env}
	fs := flag.NewFlagSet("cortex admin "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&s.state, "state", env.StateDir, "state `DIR` holding cortex.db")
	if c.name == "clients add" {
		fs.StringVar(&o.name, "name", "", "the app's name as the owner will see it")
		fs.Var(&o.redirects, "redirect-uri", "a redirect URI of the app (repeatable)")
		fs.BoolVar(&o.secret, "secret", false, "issue a client secret (client_secret_post)")
	}
	pos, err := parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(env.Stdout, c)
		return true, nil
	}
	if err != nil {
		return true, usage(fmt.Sprintf("run `cortex admin help %s`", c.name), "%s: %v", c.name, err)
	}
	if lo, hi := countArgs(c); len(pos) < lo || len(pos) > hi {
		return true, usage(fmt.Sprintf("usage: cortex admin %s", usageLine(c)), "%s: wrong number of arguments", c.name)
	}
	if s.state == "" {
		return true, usage("pass --state DIR or set CORTEX_STATE", "no state directory given")
	}
	return true, c.run(ctx, s, pos)
}

// countArgs counts the positional arguments of c; its flags are not any.
func countArgs(c *command) (lo, hi int) {
	for _, a := range c.args {
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "[-") {
			continue
		}
		if !strings.HasPrefix(a, "[") {
			lo++
		}
		hi++
	}
	return lo, hi
}

func clientsAdd(ctx context.Context, s *session, o clientOpts, _ []string) error {
	if strings.TrimSpace(o.name) == "" || len(o.redirects) == 0 {
		return usage("example: cortex admin clients add --name \"Meta AI\" --redirect-uri https://agent.meta.ai/api/hatch/oauth/callback",
			"clients add needs --name and at least one --redirect-uri")
	}
	st, err := s.openStore(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := oauth.AddConsoleClient(ctx, st, o.name, o.redirects, o.secret)
	if errors.Is(err, oauth.ErrBadClient) {
		return fail("give an absolute redirect URI exactly as the app shows it (https, or http only on 127.0.0.1 or localhost)", "%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Stdout, c.ID)
	if c.Secret != "" {
		fmt.Fprintln(s.Stdout, c.Secret)
	}
	fmt.Fprintf(s.Stderr, "added OAuth app %q. Give the app this client id", c.Name)
	if c.Secret != "" {
		fmt.Fprint(s.Stderr, " and the secret on the second line (shown only once; only its hash is kept)")
	}
	fmt.Fprintln(s.Stderr, ".")
	fmt.Fprintf(s.Stderr, "You approve it on cortex's sign-in page when the app connects. Remove it with: cortex admin clients revoke %s\n", c.ID)
	return nil
}

func clientsList(ctx context.Context, s *session, _ clientOpts, _ []string) error {
	st, err := s.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	clients, err := st.ListOAuthClients(ctx)
	if err != nil {
		return err
	}
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return err
	}
	if len(clients) == 0 && len(toks) == 0 {
		fmt.Fprintln(s.Stderr, "no apps and no tokens yet; apps appear here when they connect")
		return nil
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tCREATED\tLAST USED\tLIVE GRANTS")
	for _, c := range clients {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", c.ID, c.Name, kindLabel(c.Kind), formatTime(c.Created), lastUse(c.LastUsed), c.LiveGrants)
	}
	for _, t := range toks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Name, "bearer token", formatTime(t.Created), lastUse(t.LastUsed), "-")
	}
	return tw.Flush()
}

func kindLabel(k string) string {
	switch k {
	case store.ClientDCR:
		return "oauth (registered)"
	case store.ClientAdmin:
		return "oauth (console)"
	case store.ClientCIMD:
		return "oauth (metadata URL)"
	}
	return k
}

func lastUse(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return formatTime(t)
}

// clientsRevoke removes an OAuth client with every grant and token it
// holds; an ID that names a live bearer token revokes that token.
func clientsRevoke(ctx context.Context, s *session, _ clientOpts, args []string) error {
	id := args[0]
	st, err := s.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.DeleteOAuthClient(ctx, id)
	if err == nil {
		fmt.Fprintf(s.Stderr, "removed OAuth app %s; its tokens are refused from their next request.\n", id)
		return nil
	}
	if !errors.Is(err, store.ErrClientNotFound) {
		return err
	}
	if store.ValidTokenName(id) {
		if err := st.RevokeToken(ctx, id); err == nil {
			fmt.Fprintf(s.Stderr, "revoked bearer token %q; agents using it are refused from their next request.\n", id)
			return nil
		} else if !errors.Is(err, store.ErrTokenNotFound) {
			return err
		}
	}
	return fail("run `cortex admin clients list` to see the IDs", "no OAuth app or live token with ID %s", strconv.Quote(id))
}
