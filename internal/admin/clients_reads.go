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
	switch _, err := st.LiveToken(ctx, id); {
	case err == nil:
		return id, true, nil
	case !errors.Is(err, store.ErrTokenNotFound):
		return "", false, err
	}
	return id, false, nil
}

// useShown is how many notes clients show lists of those an app read and
// of those it changed, the most recent first.
const useShown = 10

// printUse ends clients show: tw holds the fields so far, to which it adds
// how many notes the app (as the journal names it) read and changed in
// the time the journal is kept, then lists the first useShown of each,
// grouped by note, and how to see the rest.
func printUse(ctx context.Context, s *session, st *store.Store, tw *tabwriter.Writer, app, id string) error {
	reads, err := st.ReadsByApp(ctx, app, time.Time{})
	if err != nil {
		return fail("check --state (or CORTEX_STATE)", "cannot read what apps read: %v", err)
	}
	writes, err := st.WritesByApp(ctx, app, time.Time{})
	if err != nil {
		return fail("check --state (or CORTEX_STATE)", "cannot read the journal: %v", err)
	}
	fmt.Fprintf(tw, "READ\t%s\nCHANGED\t%s\n", notesCount(len(reads)), notesCount(len(writes)))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(reads) > 0 {
		fmt.Fprintln(tw, "\nNOTE READ\tREADS\tLAST READ\tBY")
		for _, r := range reads[:min(len(reads), useShown)] {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Path, r.Count, formatTime(r.Last), strings.Join(r.Tools, ","))
		}
		if n := len(reads) - useShown; n > 0 {
			fmt.Fprintf(tw, "and %d more: cortex admin clients reads %s\n", n, shellQuote(id))
		}
	}
	if len(writes) > 0 {
		fmt.Fprintln(tw, "\nNOTE CHANGED\tCHANGES\tFIRST\tLAST")
		for _, w := range writes[:min(len(writes), useShown)] {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", w.Path, w.Count, formatTime(w.First), formatTime(w.Last))
		}
		if n := len(writes) - useShown; n > 0 {
			fmt.Fprintf(tw, "and %d more: cortex admin changes --app %s\n", n, shellQuote(app))
		}
	}
	return tw.Flush()
}

// notesCount is "no notes", "1 note" or "N notes".
func notesCount(n int) string {
	switch n {
	case 0:
		return "no notes"
	case 1:
		return "1 note"
	}
	return strconv.Itoa(n) + " notes"
}

// shellQuote quotes v for a POSIX shell when it holds anything but
// letters, digits and ._-:/ (an app's journal name has spaces and
// parentheses).
func shellQuote(v string) string {
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/") == "" {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
