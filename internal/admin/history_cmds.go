package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cortex-mcp/cortex/internal/backup"
	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// historyFlags are the flags of the history, restore, undo and changes
// commands.
type historyFlags struct {
	version, app, since, change, expect string
	include                             multiFlag
	dryRun, force, all                  bool
}

func historyCommands() []command {
	version := flagSpec{name: "version", value: "V", usage: "the version to bring back: a version as the tools show it, or a number from `cortex admin history PATH`", required: true,
		field: func(s *session) any { return &s.hist.version }}
	restoreVersion := version
	restoreVersion.required = false
	restoreVersion.usage = "restore a note: the version to bring back, as the tools show it or a number from `cortex admin history PATH`"
	dryRun := flagSpec{name: "dry-run", usage: "show what would change and change nothing",
		field: func(s *session) any { return &s.hist.dryRun }}
	app := flagSpec{name: "app", value: "NAME", usage: "the app whose changes to undo, as the journal names it",
		field: func(s *session) any { return &s.hist.app }}
	since := flagSpec{name: "since", value: "TIME", usage: "from this time on: 2006-01-02T15:04:05Z, 2006-01-02 15:04 (UTC), or a duration ago such as 2h",
		field: func(s *session) any { return &s.hist.since }}
	purgeApp := app
	purgeApp.usage = "forget the versions this app wrote, as the journal names it (with --since; instead of PATH)"
	purgeSince := since
	purgeSince.usage = "with --app: from this time on: 2006-01-02T15:04:05Z, 2006-01-02 15:04 (UTC), or a duration ago such as 2h"
	return []command{
		{name: "history", args: []string{"PATH"}, flags: []flagSpec{flagVault()}, run: historyList,
			summary: "list the stored versions of a note, newest first (back through its moves)"},
		{name: "history show", args: []string{"PATH"}, flags: []flagSpec{version, flagVault()}, run: historyShow,
			summary: "print one stored version of a note"},
		{name: "history purge", args: []string{"[PATH]"}, flags: []flagSpec{purgeApp, purgeSince, flagYes(), flagVault()}, run: historyPurge,
			summary: "forget every stored version of a note, or what one app wrote since a time (--app NAME --since TIME); the notes stay"},
		{name: "restore", args: []string{"PATH|BACKUP"}, flags: []flagSpec{restoreVersion, dryRun,
			{name: "force", usage: "restore even if the note changed since --expect", field: func(s *session) any { return &s.hist.force }},
			{name: "expect", value: "V", usage: "the note's version you looked at; a later change stops the restore", field: func(s *session) any { return &s.hist.expect }},
			{name: "vault", value: "DIR", usage: "the vault folder (for a backup: a new, empty folder to restore the notes into)",
				field: func(s *session) any { return &s.vault }}},
			run:     restore,
			summary: "write an earlier version of a note back (PATH --version V), or restore a backup into new folders (BACKUP --vault DIR --state DIR)"},
		{name: "changes", flags: []flagSpec{app, since}, run: changes,
			summary: "list journaled changes with their numbers, newest first"},
		{name: "undo", flags: []flagSpec{app, since,
			{name: "change", value: "N", usage: "undo one journaled change (its number from `cortex admin changes`)", field: func(s *session) any { return &s.hist.change }},
			dryRun,
			{name: "include", value: "PATH...", usage: "also undo this conflicting note (repeat the flag for more)", field: func(s *session) any { return &s.hist.include }},
			{name: "all", usage: "also undo every conflicting note", field: func(s *session) any { return &s.hist.all }},
			flagVault()}, run: undo,
			summary: "undo one change, or everything an app did since a time (notes changed later by others are skipped unless chosen)"},
	}
}

// openHistory opens what the history commands work on: the state
// database, the note history and the vault the server last served.
func (s *session) openHistory(ctx context.Context) (*history.Service, func(), error) {
	st, err := s.openStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	if served, err := st.LastServed(ctx); err == nil && !s.given["vault"] {
		s.vault = served.Vault
	}
	// The size cap is the server's to keep (it thins the history on its
	// next write); the owner's own restores are never refused for it.
	h, err := store.OpenHistory(ctx, s.state, store.HistoryOptions{Now: s.Now, MaxBytes: math.MaxInt64,
		FreeSpace: func() (uint64, error) { return vault.FreeSpace(s.state) }, MinFree: 64 << 20})
	if err != nil {
		st.Close()
		return nil, nil, fail("check --state (or CORTEX_STATE)", "cannot open the note history: %v", err)
	}
	v, err := vault.Open(vault.Options{Dir: s.vault, History: history.Keeper(h), Now: s.Now, MinFree: s.MinFree})
	if err != nil {
		h.Close()
		st.Close()
		return nil, nil, fail("pass --vault DIR (or set CORTEX_VAULT) to the server's vault", "cannot open the vault %s: %v", absPath(s.vault), err)
	}
	svc := history.New(history.Options{Vault: v, History: h, Journal: st, Now: s.Now})
	return svc, func() { v.Close(); h.Close(); st.Close() }, nil
}

// historyErr turns the service's and the vault's refusals into CLI errors.
func historyErr(err error) error {
	var he *history.Error
	var ve *vault.Error
	switch {
	case errors.As(err, &he):
		hint := "run `cortex admin history PATH` to see the stored versions"
		switch he.Code {
		case history.CodeConflict:
			hint = "look at the difference above; run again with --force to overwrite the newer text"
		case history.CodeUnknownChange, history.CodeNothingToUndo:
			hint = "run `cortex admin changes` to see the journaled changes and their numbers"
		case history.CodeInvalid:
			hint = "pass --change N, or --app NAME with --since TIME"
		}
		return fail(hint, "%s: %s", he.Code, lowerFirst(he.Message))
	case errors.As(err, &ve):
		return fail("check the note's path: vault-relative, with '/' between folders, ending in .md", "%s: %s", ve.Code, lowerFirst(ve.Message))
	}
	return err
}

func lowerFirst(s string) string {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func historyList(ctx context.Context, s *session, args []string) error {
	svc, done, err := s.openHistory(ctx)
	if err != nil {
		return err
	}
	defer done()
	vs, err := svc.Versions(ctx, args[0])
	if err != nil {
		return historyErr(err)
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTIME\tBY\tCHANGE\tVERSION\tSIZE\tPATH")
	for _, v := range vs {
		kind := v.Kind
		if v.Gone {
			kind += " (left this path)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, formatTime(v.Time), v.Writer, kind, v.Version, backup.Bytes(uint64(max(v.Size, 0))), v.Path)
	}
	return tw.Flush()
}

func historyShow(ctx context.Context, s *session, args []string) error {
	if s.hist.version == "" {
		return usage("pass --version V (from `cortex admin history PATH`)", "history show: --version is required")
	}
	svc, done, err := s.openHistory(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, data, err := svc.Version(ctx, args[0], s.hist.version)
	if err != nil {
		return historyErr(err)
	}
	_, err = s.Stdout.Write(data)
	return err
}

func historyPurge(ctx context.Context, s *session, args []string) error {
	var since time.Time
	what := ""
	switch {
	case len(args) == 1 && s.hist.app == "" && s.hist.since == "":
		what = "every stored version of " + args[0]
	case len(args) == 0 && s.hist.app != "" && s.hist.since != "":
		var err error
		if since, err = parseSince(s.hist.since, s.Now()); err != nil {
			return err
		}
		what = fmt.Sprintf("every version %s wrote since %s", s.hist.app, formatTime(since))
	default:
		return usage("pass a note's PATH, or --app NAME with --since TIME", "history purge: say what to forget")
	}
	if !s.yes {
		fmt.Fprintf(s.Stderr, "This forgets %s for good; the notes themselves stay.\nType \"purge\" to go on: ", what)
		line, _ := bufio.NewReader(s.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != "purge" {
			return fail("type purge at the prompt, or pass --yes", "purge cancelled; nothing was changed")
		}
	}
	svc, done, err := s.openHistory(ctx)
	if err != nil {
		return err
	}
	defer done()
	if len(args) == 0 {
		n, err := svc.PurgeApp(ctx, s.hist.app, since)
		var he *history.Error
		if errors.As(err, &he) && he.Code == history.CodeNoHistory {
			return fail("run `cortex admin changes --since TIME` to see the apps that wrote, as the journal names them", "%s: %s", he.Code, lowerFirst(he.Message))
		}
		if err != nil {
			return historyErr(err)
		}
		fmt.Fprintf(s.Stderr, "purged %d stored versions written by %s since %s; the notes themselves are unchanged\n", n, s.hist.app, formatTime(since))
		return nil
	}
	n, err := svc.Purge(ctx, args[0])
	if err != nil {
		return historyErr(err)
	}
	fmt.Fprintf(s.Stderr, "purged %d stored versions of %s; the note itself is unchanged\n", n, args[0])
	return nil
}

func restore(ctx context.Context, s *session, args []string) error {
	if s.hist.version == "" && isBackupName(args[0]) {
		return restoreBackup(ctx, s, args[0])
	}
	if s.hist.version == "" {
		return usage("to restore a note pass --version V (from `cortex admin history PATH`); to restore a backup give its .tar.gz file with --vault DIR --state DIR",
			"restore: --version is required to restore a note")
	}
	svc, done, err := s.openHistory(ctx)
	if err != nil {
		return err
	}
	defer done()
	plan, err := svc.Restore(ctx, history.RestoreRequest{Path: args[0], Version: s.hist.version, Writer: history.OwnerCLI,
		Expect: s.hist.expect, Force: s.hist.force, DryRun: s.hist.dryRun})
	if plan != nil {
		printPlan(s, plan, true)
	}
	if err != nil {
		return historyErr(err)
	}
	return nil
}

func changes(ctx context.Context, s *session, _ []string) error {
	since, err := parseSince(s.hist.since, s.Now())
	if err != nil {
		return err
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var es []store.JournalEntry
	if s.hist.app != "" {
		es, err = st.JournalOfApp(ctx, s.hist.app, since)
		for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
			es[i], es[j] = es[j], es[i]
		}
	} else {
		es, err = st.Journal(ctx, since, store.MaxJournalLimit)
	}
	if err != nil {
		return fail("check --state (or CORTEX_STATE)", "cannot read the journal: %v", err)
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTIME\tAPP\tTOOL\tNOTE\tFROM\tTO\tRESULT")
	for _, e := range es {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, formatTime(e.Time), e.App, e.Tool, e.Path, dash(e.OldVersion), dash(e.NewVersion), e.Result)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func undo(ctx context.Context, s *session, _ []string) error {
	r := history.UndoRequest{Writer: history.OwnerCLI, DryRun: s.hist.dryRun, Include: s.hist.include, All: s.hist.all}
	switch {
	case s.hist.change != "" && s.hist.app == "" && s.hist.since == "":
		id, err := strconv.ParseInt(strings.TrimPrefix(s.hist.change, "#"), 10, 64)
		if err != nil || id <= 0 {
			return usage("pass the change's number from `cortex admin changes`", "undo: --change %q is not a change number", s.hist.change)
		}
		r.Entry = id
	case s.hist.change == "" && s.hist.app != "" && s.hist.since != "":
		since, err := parseSince(s.hist.since, s.Now())
		if err != nil {
			return err
		}
		r.App, r.Since = s.hist.app, since
	default:
		return usage("pass --change N, or --app NAME with --since TIME", "undo: say what to undo")
	}
	svc, done, err := s.openHistory(ctx)
	if err != nil {
		return err
	}
	defer done()
	plan, err := svc.Undo(ctx, r)
	if plan != nil {
		printPlan(s, plan, r.DryRun)
	}
	if err != nil {
		return historyErr(err)
	}
	if n := plan.Conflicts(); n > 0 && r.DryRun {
		what := fmt.Sprintf("%d notes were", n)
		if n == 1 {
			what = "1 note was"
		}
		fmt.Fprintf(s.Stderr, "%s changed later by someone else: skipped unless you name them with --include PATH (or --all)\n", what)
	}
	return nil
}

// printPlan lists each note of the plan on stdout, and the difference each
// would make (preview) on stdout too, so that it can be piped to a pager.
func printPlan(s *session, p *history.Plan, preview bool) {
	for _, c := range p.Changes {
		state := "clean"
		if c.Conflict {
			state = "CONFLICT: " + c.Reason
		}
		switch {
		case c.Done:
			state = "done"
		case c.Error != "":
			state = c.Error
		}
		what := c.Action
		if c.From != "" {
			what += " from " + c.From
		}
		fmt.Fprintf(s.Stdout, "%s\t%s\t%s -> %s\t%s\n", c.Path, what, dash(c.Current), dash(c.Target), state)
		if preview && (c.Conflict || !c.Done) {
			fmt.Fprint(s.Stdout, indent(diff.Unified(c.Diff, 2)))
		}
	}
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

// parseSince reads --since: RFC 3339, a UTC date and time, a date, or a
// duration before now.
func parseSince(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usage("write it like 2026-12-01T14:00:00Z, \"2026-12-01 14:00\" (UTC) or 2h", "--since: %q is not a time", v)
}

// historyStatus adds the note history's size to status, when the server
// has started one (status never creates it).
func historyStatus(ctx context.Context, s *session, w io.Writer) {
	if _, err := os.Stat(filepath.Join(s.state, store.HistoryFileName)); err != nil {
		fmt.Fprintln(w, "history\tnone yet")
		return
	}
	h, err := store.OpenHistory(ctx, s.state, store.HistoryOptions{Now: s.Now})
	if err != nil {
		fmt.Fprintln(w, "history\tunavailable")
		return
	}
	defer h.Close()
	st, err := h.Stats(ctx)
	if err != nil {
		fmt.Fprintln(w, "history\tunavailable")
		return
	}
	fmt.Fprintf(w, "history\t%d versions, %s stored (%s of text)\n", st.Versions, backup.Bytes(uint64(max(st.Stored, 0))), backup.Bytes(uint64(max(st.Size, 0))))
}
