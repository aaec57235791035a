package backup

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// ErrNotEmpty: a restore was pointed at a folder that holds something.
var ErrNotEmpty = errors.New("the folder is not empty")

// ErrNested: a restore was given one folder for the vault and the state,
// or one inside the other.
var ErrNested = errors.New("the vault and the state must be two separate folders, neither inside the other")

// Restore checks the backup in file (as Verify does) and only then writes
// it into vaultDir and stateDir, which must be empty or not exist: a
// restore never writes over live data. The vault's files are checked
// against the manifest again as they are written.
//
// A restore either completes, with every file on stable storage, or
// returns an error and removes what it wrote (and the folders it created).
// From its first write to its last, store.RestoreMarker in the state
// folder keeps the server and the admin commands from opening it, so that
// a restore cut short by a crash never leaves a state folder that passes
// for whole; cortex.db is installed last, once everything else is durable.
//
// Nothing is copied that would take a disk below opts.MinFree, and the
// signature is checked with opts.Key (see VerifyOptions).
func Restore(ctx context.Context, file, vaultDir, stateDir string, opts RestoreOptions) (Report, error) {
	return restore(ctx, file, vaultDir, stateDir, opts, store.InstallCopy)
}

// RestoreOptions configures Restore.
type RestoreOptions struct {
	// Key checks the backup's signature, as VerifyOptions.Key.
	Key []byte
	Limits
}

// restore is Restore with the step that installs the database copies
// given, so that tests can make it fail once the vault is written.
func restore(ctx context.Context, file, vaultDir, stateDir string, opts RestoreOptions, install func(src, stateDir, name string) error) (Report, error) {
	l := opts.Limits.withDefaults()
	for _, d := range []string{vaultDir, stateDir} {
		if err := checkEmpty(d); err != nil {
			return Report{}, err
		}
	}
	if v, st := abs(vaultDir), abs(stateDir); inside(v, st) || inside(st, v) {
		return Report{}, ErrNested
	}
	createdState := !exists(stateDir)
	made := missing(stateDir) // the state folder and parents it needs
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return Report{}, fmt.Errorf("create the state folder: %w", err)
	}
	var installed []string
	var rv *vault.Restorer // the vault written, until the restore is done
	fail := func(err error) (Report, error) {
		if rv != nil {
			// The vault alone would look whole: it goes too.
			if aerr := rv.Abort(); aerr != nil {
				err = errors.Join(err, fmt.Errorf("remove the restored vault: %w", aerr))
			}
		}
		for _, p := range installed {
			os.Remove(p)
		}
		if createdState {
			os.RemoveAll(stateDir)
			// The parents made for it, the deepest first, while empty
			// (the vault's Abort leaves one they share).
			for _, d := range made[1:] {
				if os.Remove(d) != nil {
					break
				}
			}
		} else {
			os.Remove(filepath.Join(stateDir, store.RestoreMarker))
		}
		return Report{}, err
	}
	// A new state folder's entry reaches the disk before anything is
	// restored, so that after a power cut the marker below is found.
	if createdState {
		if err := store.SyncDir(filepath.Dir(abs(stateDir))); err != nil {
			return fail(fmt.Errorf("create the state folder: %w", err))
		}
	}
	// Until the end, the marker keeps the server and the admin commands
	// from taking what a crash would leave here for a state.
	if err := store.MarkRestoring(stateDir); err != nil {
		return fail(fmt.Errorf("write to the state folder: %w", err))
	}
	// The scratch copies live in the new state folder, so that installing
	// them is a rename on one file system.
	rep, err := Verify(ctx, file, VerifyOptions{Scratch: stateDir, Keep: true, Key: opts.Key, Limits: l})
	if err != nil {
		return fail(err)
	}
	scratch := filepath.Dir(rep.Copies[store.FileName])
	defer os.RemoveAll(scratch)
	var files int64
	for _, f := range rep.Manifest.Files {
		if strings.HasPrefix(f.Path, vaultPrefix) {
			files += f.Size
		}
	}
	if err := room(vaultDir, "vault", files, 0, rep.Size, l); err != nil {
		return fail(err)
	}
	if rv, err = restoreVault(ctx, file, vaultDir, rep.Manifest); err != nil {
		return fail(fmt.Errorf("restore the vault: %w", err))
	}
	for _, name := range []string{store.HistoryFileName, store.FileName} {
		if p, ok := rep.Copies[name]; ok {
			if err := install(p, stateDir, name); err != nil {
				return fail(fmt.Errorf("restore %s: %w", name, err))
			}
			installed = append(installed, filepath.Join(stateDir, name))
		}
	}
	if err := store.RestoreDone(stateDir); err != nil {
		return fail(fmt.Errorf("finish the restore: %w", err))
	}
	if err := rv.Close(); err != nil {
		return rep, fmt.Errorf("restore the vault: %w", err)
	}
	return rep, nil
}

// missing lists dir and each of its parents that does not exist, the
// deepest first.
func missing(dir string) []string {
	var out []string
	for d := abs(dir); !exists(d) && filepath.Dir(d) != d; d = filepath.Dir(d) {
		out = append(out, d)
	}
	return out
}

func checkEmpty(dir string) error {
	if dir == "" {
		return errors.New("no folder given")
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		// A state folder is named as one, whatever sorts first in it.
		for _, e := range ents {
			if n := e.Name(); n == store.FileName || n == store.HistoryFileName {
				return notEmpty(dir, n)
			}
		}
		return notEmpty(dir, ents[0].Name())
	}
	return nil
}

// notEmpty says what the folder holds, and what that suggests.
func notEmpty(dir, first string) error {
	why := ""
	switch {
	case strings.HasPrefix(first, ".cortex-verify-") || first == store.RestoreMarker:
		why = ", left by a restore that did not finish: remove the folder and restore again"
	case first == store.FileName || first == store.HistoryFileName:
		why = ": it is a state folder"
	}
	return fmt.Errorf("%s: %w (it holds %s%s)", abs(dir), ErrNotEmpty, first, why)
}

// restoreVault reads the archive a second time and writes its vault files
// through the vault's Restorer, each checked against the manifest as it
// goes (the archive could have changed since Verify read it). It returns
// the Restorer with every file durable and the folder still held, for the
// caller to Close, or to Abort when a later step fails.
func restoreVault(ctx context.Context, file, vaultDir string, m Manifest) (*vault.Restorer, error) {
	want := make(map[string]File, len(m.Files))
	for _, f := range m.Files {
		want[f.Path] = f
	}
	f, err := os.Open(file) // #nosec G304 -- the owner names the backup
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs, err := vault.NewRestorer(vaultDir)
	if err != nil {
		if errors.Is(err, vault.ErrNotEmpty) {
			return nil, fmt.Errorf("%s: %w", abs(vaultDir), ErrNotEmpty)
		}
		return nil, fmt.Errorf("open the new vault folder: %w", err)
	}
	err = restoreEntries(ctx, bufio.NewReaderSize(f, 256<<10), rs, want)
	if err == nil {
		err = rs.Sync()
	}
	if err != nil {
		return nil, errors.Join(err, rs.Abort())
	}
	return rs, nil
}

func restoreEntries(ctx context.Context, r io.Reader, rs *vault.Restorer, want map[string]File) error {
	gz, err := newGzip(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	h := sha256.New()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return streamErr(err, "among the vault's files")
		}
		rel, ok := strings.CutPrefix(hdr.Name, vaultPrefix)
		if !ok {
			continue
		}
		if hdr.Typeflag == tar.TypeDir {
			if err := rs.Dir(strings.TrimSuffix(rel, "/")); err != nil {
				return err
			}
			continue
		}
		w, ok := want[hdr.Name]
		if !ok || hdr.Typeflag != tar.TypeReg {
			return damaged("it holds %s, which its manifest does not list", hdr.Name)
		}
		h.Reset()
		if err := rs.File(rel, hdr.ModTime, io.TeeReader(tr, h)); err != nil {
			return err
		}
		if hex.EncodeToString(h.Sum(nil)) != w.SHA256 {
			return damaged("%s changed since it was checked", hdr.Name)
		}
	}
}

func newGzip(r io.Reader) (io.Reader, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, damaged("its gzip header cannot be read: %v", err)
	}
	return gz, nil
}
