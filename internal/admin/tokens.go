package admin

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

const nameHint = "use 1 to 64 letters, digits, '.', '_' or '-', e.g. laptop or ci-runner"

// tokenCreate prints the secret alone on stdout so that
// TOKEN=$(cortex admin token create laptop) works; the advice goes to stderr.
func tokenCreate(ctx context.Context, s *session, args []string) error {
	name := args[0]
	if !store.ValidTokenName(name) {
		return fail(nameHint, "invalid token name %q", name)
	}
	sc, err := s.newScope()
	if err != nil {
		return err
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	secret, _, err := st.CreateScopedToken(ctx, name, sc.Encode())
	if errors.Is(err, store.ErrTokenExists) {
		return fail(fmt.Sprintf("pick another name, or revoke the old token first: cortex admin token revoke %s", name),
			"a token named %q already exists", name)
	}
	if err != nil {
		return err
	}
	recordAction(ctx, s, st, "created token", name)
	fmt.Fprintln(s.Stdout, secret)
	fmt.Fprintf(s.Stderr, "created token %q. Store it now: it is shown only once and cannot be recovered.\n", name)
	fmt.Fprintf(s.Stderr, "Scope: %s (change it with: cortex admin token scope %s)\n", sc.Describe(), name)
	fmt.Fprintf(s.Stderr, "Agents send it as the header  Authorization: Bearer <token>\n")
	fmt.Fprintf(s.Stderr, "Revoke it with: cortex admin token revoke %s\n", name)
	return nil
}

func tokenList(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return err
	}
	if len(toks) == 0 {
		fmt.Fprintln(s.Stderr, "no tokens yet; create one with: cortex admin token create NAME")
		return nil
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCREATED\tLAST USED\tLAST FROM\tSCOPE")
	for _, t := range toks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, formatTime(t.Created), lastUse(t.LastUsed), lastFrom(t.LastAddr), scope.DescribeStored(t.VaultScope))
	}
	return tw.Flush()
}

func tokenRevoke(ctx context.Context, s *session, args []string) error {
	name := args[0]
	if !store.ValidTokenName(name) {
		return fail("run `cortex admin token list` to see the token names", "invalid token name %q", name)
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.RevokeToken(ctx, name)
	if errors.Is(err, store.ErrTokenNotFound) {
		return fail("run `cortex admin token list` to see the live tokens", "no live token named %q", name)
	}
	if err != nil {
		return err
	}
	recordAction(ctx, s, st, "revoked token", name)
	fmt.Fprintf(s.Stderr, "revoked token %q; agents using it are refused from their next request.\n", name)
	return nil
}

// recordAction keeps an owner action on an app or token for the console's
// Activity, as done from the CLI. The action itself is done: a failure
// here is a warning, not the command's failure.
func recordAction(ctx context.Context, s *session, st *store.Store, action, target string) {
	if err := st.RecordOwnerAction(ctx, store.OwnerAction{Action: action, Target: target, Writer: history.OwnerCLI}); err != nil {
		fmt.Fprintf(s.Stderr, "warning: could not record this in the activity: %v\n", err)
	}
}

func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
