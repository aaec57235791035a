// Package backup makes, checks and restores cortex's backups: one
// self-contained .tar.gz holding consistent copies of the state databases
// (taken by internal/store with VACUUM INTO), the vault's files (read by
// internal/vault, each one checked not to have changed while read) and a
// manifest listing every file with its size and SHA-256.
//
// Why .tar.gz: the standard library writes and reads it (zstd would be a
// dependency), and any machine the archive is copied to can open it with
// `tar xzf` without cortex. Notes are text, which gzip shrinks well.
//
// It writes only archive files in the backup folder, scratch copies of the
// databases while checking one, and, when restoring, only through
// vault.Restorer and store.InstallCopy. It never opens a note itself and
// never writes into a live vault or state folder.
package backup

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Archive layout.
const (
	manifestName = "manifest.json"
	statePrefix  = "state/"
	vaultPrefix  = "vault/"
	// Ext ends every backup's file name.
	Ext = ".tar.gz"
	// Prefix starts every backup's file name.
	Prefix = "cortex-backup-"
	format = 1
	// level: gzip's fastest level; on a Raspberry Pi the CPU, not the SD
	// card, bounds a backup, and text still shrinks to about a third.
	level = gzip.BestSpeed
)

// Manifest describes a backup; it is the archive's last entry.
type Manifest struct {
	Format        int       `json:"format"`
	Cortex        string    `json:"cortex_version"`
	Created       time.Time `json:"created"`
	Schema        int       `json:"schema_version"`
	HistorySchema int       `json:"history_schema_version,omitempty"`
	Notes         int       `json:"notes"`
	// Unrecorded counts the notes whose version the databases do not
	// hold: changes made outside cortex that the server had not seen.
	Unrecorded int      `json:"unrecorded,omitempty"`
	Vault      string   `json:"vault"`
	State      string   `json:"state"`
	Dirs       []string `json:"dirs"`
	Files      []File   `json:"files"`
}

// File is one file of the archive as the manifest lists it.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Note: a note as cortex counts them (outside hidden folders).
	Note bool `json:"note,omitempty"`
}

// Options says what to back up.
type Options struct {
	Vault, State string
	Version      string // cortex's version, for the manifest
	Now          func() time.Time
	// MinFree is the floor of free space on the backup folder's disk; a
	// backup that would take it below is not started (ErrDiskLow).
	// FreeSpace reports free bytes; nil skips the check.
	MinFree   uint64
	FreeSpace func(dir string) (uint64, error)
}

// Result is a backup made by Create.
type Result struct {
	Path     string
	Size     int64
	Took     time.Duration
	Manifest Manifest
	// SHA256 is the archive's, also in Path+SumExt beside it.
	SHA256 string
}

// ErrInside: the backup folder lies inside the vault or the state folder,
// so that each backup would hold the ones before it.
var ErrInside = errors.New("the backup folder lies inside the vault or the state folder")

// inside reports whether dir is root or below it.
func inside(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ErrDiskLow: the backup would take the disk below its floor.
var ErrDiskLow = errors.New("a backup would take the disk below its free-space floor")

// Create writes a new backup into dir (created 0700 if needed) and returns
// it. The archive is written under a temporary name and renamed when
// complete, so a backup in dir is never half written; its mode is 0600.
func Create(ctx context.Context, dir string, opts Options) (res Result, err error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	start := opts.Now()
	dir = abs(dir) // the path is recorded and shown later, from anywhere
	if inside(abs(dir), abs(opts.Vault)) || inside(abs(dir), abs(opts.State)) {
		return Result{}, ErrInside
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Result{}, fmt.Errorf("create backup folder: %w", err)
	}
	if err := checkFloor(dir, opts); err != nil {
		return Result{}, err
	}
	sweepStale(dir, ".cortex-backup-", start)
	scratch, err := os.MkdirTemp(dir, ".cortex-backup-")
	if err != nil {
		return Result{}, fmt.Errorf("create backup: %w", err)
	}
	defer os.RemoveAll(scratch)

	name := Prefix + start.UTC().Format("20060102T150405Z") + Ext
	final := filepath.Join(dir, name)
	for i := 2; exists(final); i++ {
		final = filepath.Join(dir, fmt.Sprintf("%s%s-%d%s", Prefix, start.UTC().Format("20060102T150405Z"), i, Ext))
	}
	partial := filepath.Join(scratch, "archive.partial")
	out, err := os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- our own scratch folder
	if err != nil {
		return Result{}, fmt.Errorf("create backup: %w", err)
	}
	defer out.Close()

	m := Manifest{Format: format, Cortex: opts.Version, Created: start.UTC(), Vault: abs(opts.Vault), State: abs(opts.State)}
	sum := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(out, sum), 256<<10)
	gz, _ := gzip.NewWriterLevel(bw, level)
	gz.OS = gzipOS
	tw := tar.NewWriter(gz)
	w := &writer{tw: tw, m: &m, mtime: start.UTC()}

	// The vault first, then the databases: see copyConsistent.
	var notes []store.SnapshotNote
	err = vault.Snapshot(ctx, opts.Vault, vault.SnapshotOptions{}, func(f vault.SnapshotFile) error {
		if f.Dir {
			return w.addDir(f)
		}
		if f.Note {
			m.Notes++
			if f.Version != "" {
				notes = append(notes, store.SnapshotNote{Path: f.Path, Version: f.Version})
			}
		}
		if err := w.addFile(f); err != nil {
			return err
		}
		m.Files[len(m.Files)-1].Note = f.Note
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("copy the vault: %w", err)
	}
	dbs, unrecorded, err := copyConsistent(ctx, opts.State, scratch, notes)
	if err != nil {
		return Result{}, fmt.Errorf("copy the state databases: %w", err)
	}
	m.Unrecorded = unrecorded
	for _, db := range dbs {
		switch db.Name {
		case store.FileName:
			m.Schema = db.Schema
		case store.HistoryFileName:
			m.HistorySchema = db.Schema
		}
		if err := w.addDB(db); err != nil {
			return Result{}, err
		}
	}
	body, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return Result{}, err
	}
	if err := w.header(&tar.Header{Name: manifestName, Mode: 0o600, Size: int64(len(body)), ModTime: w.mtime, Typeflag: tar.TypeReg}); err != nil {
		return Result{}, err
	}
	if _, err := tw.Write(body); err != nil {
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	if err := errors.Join(tw.Close(), gz.Close(), bw.Flush()); err != nil {
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	if err := out.Sync(); err != nil {
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	fi, err := out.Stat()
	if err != nil {
		return Result{}, err
	}
	if err := out.Close(); err != nil {
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	key, err := store.BackupKey(opts.State)
	if err != nil {
		return Result{}, fmt.Errorf("sign the backup: %w", err)
	}
	digest := sum.Sum(nil)
	sidecars, err := writeSidecars(scratch, final, digest, key)
	if err != nil {
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	// The checksum and signature first: an archive in dir always has
	// them beside it.
	for name, p := range sidecars {
		if err := os.Rename(p, name); err != nil {
			return Result{}, fmt.Errorf("write backup: %w", err)
		}
	}
	if err := os.Rename(partial, final); err != nil {
		for name := range sidecars {
			os.Remove(name)
		}
		return Result{}, fmt.Errorf("write backup: %w", err)
	}
	_ = store.SyncDir(dir)
	return Result{Path: final, Size: fi.Size(), Took: opts.Now().Sub(start), Manifest: m, SHA256: hex.EncodeToString(digest)}, nil
}

// gzipOS is the gzip header's OS byte: "unknown", the same on every machine.
const gzipOS = 255

// checkFloor refuses a backup that would leave less than MinFree free. It
// expects the backup to be as large as the newest one in dir, or, with
// none yet, as large as the databases and the vault together (an upper
// bound: the archive is compressed).
func checkFloor(dir string, opts Options) error {
	if opts.FreeSpace == nil || opts.MinFree == 0 {
		return nil
	}
	free, err := opts.FreeSpace(dir)
	if err != nil {
		return fmt.Errorf("read free disk space: %w", err)
	}
	need := estimate(dir, opts)
	if free < opts.MinFree || free-opts.MinFree < need {
		return fmt.Errorf("%w: %s free, a backup needs about %s, and %s must stay free", ErrDiskLow,
			Bytes(free), Bytes(need), Bytes(opts.MinFree))
	}
	return nil
}

func estimate(dir string, opts Options) uint64 {
	if list, err := List(dir); err == nil && len(list) > 0 {
		return uint64(max(list[len(list)-1].Size, 0)) * 2 // twice: the scratch copy of the databases too
	}
	var n int64
	for _, name := range []string{store.FileName, store.HistoryFileName} {
		if fi, err := os.Stat(filepath.Join(opts.State, name)); err == nil {
			n += 2 * fi.Size()
		}
	}
	// A folder walk of the vault would cost as much as the backup; its
	// size by the notes' count is not known here, so only the databases
	// and a margin count on the first backup.
	return uint64(n) + 64<<20
}

// writer adds entries to the archive and records them in the manifest.
type writer struct {
	tw    *tar.Writer
	m     *Manifest
	mtime time.Time
	h     hash.Hash
}

func (w *writer) header(h *tar.Header) error {
	h.Format = tar.FormatPAX
	if err := w.tw.WriteHeader(h); err != nil {
		return fmt.Errorf("write backup: %w", err)
	}
	return nil
}

func (w *writer) addDB(db store.DBCopy) error {
	f, err := os.Open(db.Path)
	if err != nil {
		return fmt.Errorf("read the copy of %s: %w", db.Name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return w.addStream(statePrefix+db.Name, 0o600, w.mtime, fi.Size(), f)
}

func (w *writer) addDir(f vault.SnapshotFile) error {
	name := vaultPrefix + f.Path + "/"
	w.m.Dirs = append(w.m.Dirs, f.Path)
	return w.header(&tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: int64(f.Perm), ModTime: f.ModTime})
}

func (w *writer) addFile(f vault.SnapshotFile) error {
	var r io.Reader = f.Reader
	if f.Reader == nil {
		r = bytes.NewReader(f.Data)
		f.Size = int64(len(f.Data))
	}
	return w.addStream(vaultPrefix+f.Path, f.Perm, f.ModTime, f.Size, r)
}

func (w *writer) addStream(name string, perm fs.FileMode, mtime time.Time, size int64, r io.Reader) error {
	if err := w.header(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: int64(perm.Perm()), Size: size, ModTime: mtime}); err != nil {
		return err
	}
	if w.h == nil {
		w.h = sha256.New()
	}
	w.h.Reset()
	n, err := io.Copy(io.MultiWriter(w.tw, w.h), r)
	if err != nil {
		return fmt.Errorf("write backup: %s: %w", name, err)
	}
	if n != size {
		return fmt.Errorf("write backup: %s: %w", name, vault.ErrKeptChanging)
	}
	w.m.Files = append(w.m.Files, File{Path: name, Size: size, SHA256: hex.EncodeToString(w.h.Sum(nil))})
	return nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// Bytes renders a size with binary units, e.g. "12.3 MiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
