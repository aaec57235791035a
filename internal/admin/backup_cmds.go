package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cortex-mcp/cortex/internal/backup"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

func backupCommands() []command {
	return []command{
		{name: "backup", flags: []flagSpec{
			{name: "to", value: "DIR", usage: "folder for the backup (default $CORTEX_BACKUP_DIR)",
				field: func(s *session) any { return &s.backupTo }},
			flagVault()}, run: backupCreate,
			summary: "write one dated backup (.tar.gz) of the state, the note history and the vault, while the server runs"},
		{name: "backup verify", args: []string{"FILE"}, stateless: true, run: backupVerify,
			summary: "check every file of a backup against its manifest and the databases' integrity, and say what it holds"},
	}
}

const damagedHint = "this backup cannot be restored: use another copy of it, or take a new one with `cortex admin backup`"

func backupCreate(ctx context.Context, s *session, _ []string) error {
	if s.backupTo == "" {
		return usage("pass --to DIR or set CORTEX_BACKUP_DIR", "backup: no backup folder given")
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if served, err := st.LastServed(ctx); err == nil && !s.given["vault"] {
		s.vault = served.Vault
	}
	if s.vault == "" {
		return usage("pass --vault DIR or set CORTEX_VAULT", "no vault directory given")
	}
	if fi, err := os.Stat(s.vault); err != nil || !fi.IsDir() {
		return fail("pass --vault DIR (or set CORTEX_VAULT) to the server's vault", "cannot open the vault %s", absPath(s.vault))
	}
	start := s.Now()
	res, err := backup.Create(ctx, s.backupTo, backup.Options{Vault: s.vault, State: s.state, Version: s.Version, Now: s.Now,
		MinFree: s.MinFree, FreeSpace: vault.FreeSpace})
	recordBackup(ctx, st, start, res, err)
	if errors.Is(err, backup.ErrInside) {
		return fail("choose a folder outside both, ideally on another disk", "backup not taken: %v", err)
	}
	if errors.Is(err, backup.ErrDiskLow) {
		return fail("free space on that disk, or write the backup to another disk with --to DIR", "backup not taken: %v", err)
	}
	if errors.Is(err, vault.ErrKeptChanging) {
		return fail("run the backup again when that file is not being written to (an app rewriting it all the time keeps it from being copied whole)", "backup failed, nothing was written: %v", err)
	}
	if err != nil {
		return fail("check that --to names a folder you may write to, and --vault and --state the server's folders", "backup failed, nothing was written: %v", err)
	}
	fmt.Fprintln(s.Stdout, res.Path)
	fmt.Fprintf(s.Stderr, "backed up %d notes (%d files in the vault) and %s in %s: %s\n",
		res.Manifest.Notes, len(res.Manifest.Files)-len(dbNames(res.Manifest)), strings.Join(dbNames(res.Manifest), " and "), res.Took.Round(time.Millisecond), backup.Bytes(uint64(res.Size)))
	fmt.Fprintf(s.Stderr, "sha256 %s (in %s, signed in %s)\n", res.SHA256, filepath.Base(res.Path+backup.SumExt), filepath.Base(res.Path+backup.SigExt))
	fmt.Fprintf(s.Stderr, "check it with: cortex admin backup verify %s\n", res.Path)
	return nil
}

// dbNames are the state databases a backup holds.
func dbNames(m backup.Manifest) []string {
	var names []string
	for _, f := range m.Files {
		if name, ok := strings.CutPrefix(f.Path, "state/"); ok {
			names = append(names, name)
		}
	}
	return names
}

func backupVerify(ctx context.Context, s *session, args []string) error {
	if err := checkBackupFile(args[0]); err != nil {
		return err
	}
	key := backupKey(s.state)
	rep, err := backup.Verify(ctx, args[0], backup.VerifyOptions{Key: key, Limits: backup.Limits{MinFree: s.MinFree, Now: s.Now}})
	if err != nil {
		return backupErr(args[0], err)
	}
	printReport(s.Stdout, args[0], rep, s.state)
	fmt.Fprintln(s.Stderr, "the backup is complete and intact")
	return nil
}

// checkBackupFile refuses a path that names no backup file before any
// work starts.
func checkBackupFile(file string) error {
	fi, err := os.Stat(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fail("check the backup's path (backups are named cortex-backup-TIME.tar.gz)", "no backup at %s", absPath(file))
	case err != nil:
		return fail("check that you may read the backup", "cannot read the backup %s: %v", absPath(file), err)
	case fi.IsDir():
		return fail("name one backup file in that folder (cortex-backup-TIME.tar.gz), the newest last in name order", "%s is a folder, not a backup", absPath(file))
	}
	return nil
}

// backupErr turns Verify's and Restore's refusals into CLI errors.
func backupErr(file string, err error) error {
	switch {
	case errors.Is(err, backup.ErrDamaged):
		return fail(damagedHint, "%s is damaged: %s", file, strings.TrimPrefix(err.Error(), backup.ErrDamaged.Error()+": "))
	case errors.Is(err, backup.ErrTooNew):
		return fail("install that cortex version (or a newer one) to restore this backup", "%v", err)
	case errors.Is(err, backup.ErrNoRoom):
		return fail("an archive that expands far beyond its own size was likely altered; if it is genuine, free space on that disk (verify copies into TMPDIR, restore into --state)", "%s not checked: %s", file, strings.TrimPrefix(err.Error(), backup.ErrNoRoom.Error()+": "))
	}
	return fail("check that you may read the backup and that its disk is sound", "cannot read the backup %s: %v", file, err)
}

// restoreErr turns Restore's refusals and failures into CLI errors.
func restoreErr(file string, err error) error {
	// The folders are checked first; then a missing backup is named as such.
	if !errors.Is(err, backup.ErrNotEmpty) && !errors.Is(err, backup.ErrNested) {
		if ferr := checkBackupFile(file); ferr != nil {
			return ferr
		}
	}
	switch {
	case errors.Is(err, backup.ErrDamaged), errors.Is(err, backup.ErrTooNew), errors.Is(err, backup.ErrNoRoom):
		return backupErr(file, err)
	case errors.Is(err, backup.ErrNotEmpty):
		return fail("restore into new, empty folders; a restore never writes over existing notes or state", "cannot restore into %v", err)
	case errors.Is(err, backup.ErrNested):
		return fail("name two separate new folders, e.g. --vault /srv/cortex/vault --state /var/lib/cortex", "restore: %v", err)
	}
	return fail("check that you may write to the --vault and --state folders and that their disk has room; nothing restored was left there",
		"restore failed: %v", err)
}

// backupKey is the backup key of the state folder dir, nil when it has
// none (a signature is then reported as not checked).
func backupKey(dir string) []byte {
	if dir == "" {
		return nil
	}
	key, err := store.ReadBackupKey(dir)
	if err != nil {
		return nil
	}
	return key
}

func printReport(w io.Writer, file string, rep backup.Report, keyDir string) {
	m := rep.Manifest
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "backup\t%s\n", absPath(file))
	fmt.Fprintf(tw, "size\t%s\n", backup.Bytes(uint64(max(rep.Size, 0))))
	in := rep.Integrity
	if in.SumFile {
		fmt.Fprintf(tw, "sha256\t%s (matches %s)\n", in.SHA256, filepath.Base(file+backup.SumExt))
	} else {
		fmt.Fprintf(tw, "sha256\t%s (no %s beside it to compare with)\n", in.SHA256, filepath.Base(file+backup.SumExt))
	}
	switch in.Signature {
	case backup.SignedOK:
		fmt.Fprintf(tw, "signature\tmatches: this server (key in %s) wrote it\n", absPath(keyDir))
	case backup.SignedUnchecked:
		fmt.Fprintf(tw, "signature\tnot checked: signed with a key that is not in %s (another server's, or a state folder since replaced)\n", absPath(keyDir))
	default:
		fmt.Fprintf(tw, "signature\tnone: no %s beside it, so nothing proves cortex wrote it\n", filepath.Base(file+backup.SigExt))
	}
	fmt.Fprintf(tw, "taken\t%s by cortex %s\n", formatTime(m.Created), m.Cortex)
	fmt.Fprintf(tw, "from\tvault %s, state %s\n", m.Vault, m.State)
	fmt.Fprintf(tw, "notes\t%d\n", m.Notes)
	fmt.Fprintf(tw, "files\t%d in the vault, %d folders\n", len(m.Files)-len(dbNames(m)), len(m.Dirs))
	for _, name := range []string{store.FileName, store.HistoryFileName} {
		cr, ok := rep.DBs[name]
		if !ok {
			continue
		}
		var parts []string
		for _, c := range cr.Counts {
			parts = append(parts, fmt.Sprintf("%d %s", c.N, countNoun(c)))
		}
		fmt.Fprintf(tw, "%s\tschema %d, integrity ok; %s\n", name, cr.Schema, strings.Join(parts, ", "))
	}
	tw.Flush()
}

// countNoun is c.What ("journal entries", "passkeys") in the singular
// when there is one.
func countNoun(c store.Count) string {
	if c.N != 1 {
		return c.What
	}
	if w, ok := strings.CutSuffix(c.What, "ies"); ok {
		return w + "y"
	}
	return strings.TrimSuffix(c.What, "s")
}

// restoreBackup is `cortex admin restore FILE --vault DIR --state DIR`.
func restoreBackup(ctx context.Context, s *session, file string) error {
	if s.hist.dryRun || s.hist.force || s.hist.expect != "" {
		return usage("--dry-run, --force and --expect belong to restoring a note's version (with --version)", "restore: a backup takes only --vault and --state")
	}
	if !s.given["vault"] || !s.given["state"] {
		return usage("name both new folders: cortex admin restore FILE --vault DIR --state DIR", "restore: a backup needs --vault DIR and --state DIR")
	}
	// The signature is checked with the key of this machine's server
	// ($CORTEX_STATE), which wrote the backups kept here; the new state
	// folder has none yet.
	rep, err := backup.Restore(ctx, file, s.vault, s.state, backup.RestoreOptions{Key: backupKey(s.Env.StateDir),
		Limits: backup.Limits{MinFree: s.MinFree, Now: s.Now}})
	if err != nil {
		return restoreErr(file, err)
	}
	printReport(s.Stdout, file, rep, s.Env.StateDir)
	fmt.Fprintf(s.Stderr, "restored %d notes into %s and the state into %s\nstart the server with --vault %s --state %s\n",
		rep.Manifest.Notes, absPath(s.vault), absPath(s.state), absPath(s.vault), absPath(s.state))
	return nil
}

// isBackupName reports whether a restore argument names a backup archive
// rather than a note.
func isBackupName(p string) bool {
	return strings.HasSuffix(strings.ToLower(p), backup.Ext) || strings.HasSuffix(strings.ToLower(p), ".tgz")
}

// recordBackup keeps the outcome for `cortex admin status`; a backup that
// was refused before it began (a bad --to) is not recorded.
func recordBackup(ctx context.Context, st *store.Store, start time.Time, res backup.Result, err error) {
	run := store.BackupRun{Time: start, Result: store.BackupOK, Detail: res.Path, Size: res.Size, Took: res.Took}
	switch {
	case errors.Is(err, backup.ErrInside):
		return
	case errors.Is(err, backup.ErrDiskLow):
		run.Result, run.Detail = store.BackupSkipped, err.Error()
	case err != nil:
		run.Result, run.Detail = store.BackupFailed, err.Error()
	}
	_ = st.RecordBackup(ctx, run) // the backup itself stands either way
}

// backupStatus adds the last backup's outcome to status.
func backupStatus(ctx context.Context, st *store.Store, w io.Writer) {
	last, err := st.LastBackup(ctx)
	switch {
	case errors.Is(err, store.ErrNoBackup):
		fmt.Fprintln(w, "backup	none yet (cortex admin backup, or serve --backup-dir DIR)")
		return
	case err != nil:
		fmt.Fprintln(w, "backup	unavailable")
		return
	}
	switch last.Result {
	case store.BackupOK:
		fmt.Fprintf(w, "backup	%s ok: %s (%s)\n", formatTime(last.Time), last.Detail, backup.Bytes(uint64(max(last.Size, 0))))
	default:
		fmt.Fprintf(w, "backup	%s %s: %s\n", formatTime(last.Time), last.Result, last.Detail)
		if good, err := st.LastGoodBackup(ctx); err == nil {
			fmt.Fprintf(w, "last good backup\t%s: %s\n", formatTime(good.Time), good.Detail)
		}
	}
	if last.Command != "" {
		fmt.Fprintf(w, "backup command\t%s: %s\n", last.Command, last.CommandDetail)
	}
}
