package admin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/cortex-mcp/cortex/internal/backup"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// status prints one line per fact to stdout and carries on past a fact it
// cannot get, so that the report is as complete as possible; any such
// problem is then explained on stderr and the exit code is 1.
//
// The vault is the one the server last started with on this state (serve
// records it), so that the state folder alone is enough; --vault overrides
// it, and before any server has started CORTEX_VAULT or its default is used.
func status(ctx context.Context, s *session, _ []string) error {
	var problems []*cliError
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)

	// A state folder that cortex cannot open is the first problem told: it
	// is the likelier cause of what else the report cannot find.
	st, stateErr := s.openStore(ctx)
	if stateErr != nil {
		problems = append(problems, asCLIError(stateErr, "check --state (or CORTEX_STATE)"))
	}
	var served store.Served
	var servedErr error = store.ErrNotServed
	if stateErr == nil {
		defer st.Close()
		served, servedErr = st.LastServed(ctx)
		if servedErr == nil && !s.given["vault"] {
			s.vault = served.Vault
		}
	}

	dir := absPath(s.vault)
	switch {
	case s.vault == "":
		fmt.Fprintln(tw, "vault\t(not set)")
		problems = append(problems, fail("pass --vault DIR or set CORTEX_VAULT", "no vault directory given"))
	default:
		fmt.Fprintf(tw, "vault\t%s\n", dir)
		if n, err := countNotes(ctx, dir); err != nil {
			fmt.Fprintln(tw, "notes\tunavailable")
			problems = append(problems, fail("check --vault (or CORTEX_VAULT) and that you may read it", "cannot count notes: %v", err))
		} else {
			fmt.Fprintf(tw, "notes\t%d\n", n)
		}
		if free, err := vault.FreeSpace(dir); err != nil {
			fmt.Fprintln(tw, "free disk\tunavailable")
			problems = append(problems, fail("check --vault (or CORTEX_VAULT)", "cannot read free disk space: %v", err))
		} else {
			fmt.Fprintf(tw, "free disk\t%s\n", backup.Bytes(free))
		}
	}

	switch {
	case servedErr == nil:
		fmt.Fprintf(tw, "url\t%s\n", served.PublicURL)
		fmt.Fprintf(tw, "started\t%s\n", formatTime(served.Started))
	case errors.Is(servedErr, store.ErrNotServed) && stateErr == nil:
		fmt.Fprintln(tw, "started\tnever (no server has started on this state)")
	case !errors.Is(servedErr, store.ErrNotServed):
		fmt.Fprintln(tw, "started\tunavailable")
		problems = append(problems, fail("check --state (or CORTEX_STATE)", "cannot read what the server serves: %v", servedErr))
	}

	fmt.Fprintf(tw, "state\t%s\n", absPath(s.state))
	if stateErr != nil {
		fmt.Fprintln(tw, "tokens\tunavailable")
	} else if toks, err := st.ListTokens(ctx); err != nil {
		fmt.Fprintln(tw, "tokens\tunavailable")
		problems = append(problems, fail("check --state (or CORTEX_STATE)", "cannot read tokens: %v", err))
	} else {
		fmt.Fprintf(tw, "tokens\t%d\n", len(toks))
	}
	if stateErr == nil {
		historyStatus(ctx, s, tw)
		backupStatus(ctx, st, tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	// Report every problem; the last one becomes the command's error.
	for _, p := range problems[:max(len(problems)-1, 0)] {
		p.print(s.Stderr)
	}
	if len(problems) > 0 {
		return problems[len(problems)-1]
	}
	return nil
}

// countNotes asks the vault package, the only code that may look inside
// the vault; it lists folders only and never opens a note.
func countNotes(ctx context.Context, dir string) (int, error) {
	root, err := filepath.EvalSymlinks(dir) // the vault root itself may be a link
	if err != nil {
		return 0, err
	}
	return vault.CountNotes(ctx, root)
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
