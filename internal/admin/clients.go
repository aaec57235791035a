package admin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// The clients commands: apps connected by OAuth, next to the bearer tokens
// of command-line agents.

func clientsAdd(ctx context.Context, s *session, _ []string) error {
	if strings.TrimSpace(s.name) == "" || len(s.redirects) == 0 {
		return usage("example: cortex admin clients add --name \"Meta AI\" --redirect-uri https://agent.meta.ai/api/hatch/oauth/callback",
			"clients add needs --name and at least one --redirect-uri")
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := oauth.AddAdminClient(ctx, st, s.name, s.redirects, s.secret)
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

func clientsList(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
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
	// LIVE GRANTS stays the last column, which scripts read.
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tCREATED\tLAST USED\tLAST FROM\tSCOPE\tLIVE GRANTS")
	for _, c := range clients {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", c.ID, c.Name, kindLabel(c.Kind), formatTime(c.Created), lastUse(c.LastUsed), lastFrom(c.LastAddr), describeClient(c), c.LiveGrants)
	}
	for _, t := range toks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Name, "bearer token", formatTime(t.Created), lastUse(t.LastUsed), lastFrom(t.LastAddr), scope.DescribeStored(t.VaultScope), "-")
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

// lastFrom is the address a credential was last used from, or "-".
func lastFrom(addr string) string {
	if addr == "" {
		return "-"
	}
	return addr
}

func lastUse(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return formatTime(t)
}

// clientsRevoke removes an OAuth client with every grant and token it
// holds; an ID that names a live bearer token revokes that token.
func clientsRevoke(ctx context.Context, s *session, args []string) error {
	id := args[0]
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.DeleteOAuthClient(ctx, id)
	if err == nil {
		recordAction(ctx, s, st, "revoked app", id)
		fmt.Fprintf(s.Stderr, "removed OAuth app %s; its tokens are refused from their next request.\n", id)
		return nil
	}
	if !errors.Is(err, store.ErrClientNotFound) {
		return err
	}
	if store.ValidTokenName(id) {
		if err := st.RevokeToken(ctx, id); err == nil {
			recordAction(ctx, s, st, "revoked token", id)
			fmt.Fprintf(s.Stderr, "revoked bearer token %q; agents using it are refused from their next request.\n", id)
			return nil
		} else if !errors.Is(err, store.ErrTokenNotFound) {
			return err
		}
	}
	return fail("run `cortex admin clients list` to see the IDs", "no OAuth app or live token with ID %s", strconv.Quote(id))
}
