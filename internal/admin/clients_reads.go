package admin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/store"
)

// clientsReads prints what one app or token was shown, a line per note:
// how often, when last, and by which tools.
func clientsReads(ctx context.Context, s *session, args []string) error {
	since, err := parseSince(s.readsSince, s.Now())
	if err != nil {
		return err
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	app, known, err := appOf(ctx, st, args[0])
	if err != nil {
		return err
	}
	reads, err := st.ReadsByApp(ctx, app, since)
	if err != nil {
		return fail("check --state (or CORTEX_STATE)", "cannot read what apps read: %v", err)
	}
	if len(reads) == 0 {
		if !known {
			return fail("run `cortex admin clients list` to see the IDs", "no OAuth app, token or app with reads named %s", strconv.Quote(args[0]))
		}
		fmt.Fprintf(s.Stderr, "%s read no notes%s\n", app, sinceWords(s.readsSince))
		return nil
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NOTE\tREADS\tLAST READ\tBY")
	for _, r := range reads {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Path, r.Count, formatTime(r.Last), strings.Join(r.Tools, ","))
	}
	return tw.Flush()
}

// sinceWords is " since X" for a --since given, else what is kept.
func sinceWords(since string) string {
	if since == "" {
		return " in the time the journal is kept"
	}
	return " since " + since
}

// appOf is the name the journal and the record of reads give the app with
// this OAuth client ID, or the bearer token of this name; known says
// whether one exists. Anything else is taken as such a name itself (an
// app since removed).
func appOf(ctx context.Context, st *store.Store, id string) (app string, known bool, err error) {
	c, err := st.OAuthClient(ctx, id)
	switch {
	case err == nil:
		return oauth.AppName(c.Name, c.ID), true, nil
	case !errors.Is(err, store.ErrClientNotFound):
		return "", false, err
	}
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return "", false, err
	}
	for _, t := range toks {
		if t.Name == id {
			return id, true, nil
		}
	}
	return id, false, nil
}
