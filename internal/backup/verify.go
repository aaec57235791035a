package backup

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// scratchPrefix starts the name of verify's scratch folders.
const scratchPrefix = ".cortex-verify-"

// ErrDamaged: the backup is not complete and intact. The error's text
// names what is wrong.
var ErrDamaged = errors.New("the backup is damaged")

func damaged(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, a...))
}

// ErrTooNew: the backup was made by a cortex with a newer schema.
var ErrTooNew = errors.New("the backup was made by a newer cortex")

// Report is what Verify found in a sound backup.
type Report struct {
	Manifest Manifest
	Size     int64
	// DBs holds what each database copy holds, by name.
	DBs map[string]store.CopyReport
	// Copies are the checked database copies in the scratch folder, by
	// name; they are removed unless VerifyOptions.Keep.
	Copies map[string]string
	// Integrity: the archive's SHA-256 and what was found beside it.
	Integrity Integrity
}

// VerifyOptions configures Verify.
type VerifyOptions struct {
	// Scratch is a folder for the database copies while they are checked
	// (default: the system's temporary folder).
	Scratch string
	// Keep leaves the checked copies in Scratch (Report.Copies) for a
	// restore to install; the caller removes them.
	Keep bool
	// Key checks the backup's signature (store.ReadBackupKey); nil: a
	// signature is reported as not checked.
	Key []byte
	Limits
}

// Verify reads the whole backup: every file's size and SHA-256 against the
// manifest, nothing missing and nothing extra, the gzip checksum, the
// archive's SHA-256 and signature beside it (checkSidecars), every vault
// entry against the server's limits, then each database copy, opened
// read-only: its schema against the one cortex's migrations build, PRAGMA
// integrity_check, each under a time limit; last, copies of them are
// opened as serve opens them. Nothing is copied to scratch that would take
// its disk below opts.MinFree (ErrNoRoom). Any fault of the backup is an
// error wrapping ErrDamaged whose text names it.
func Verify(ctx context.Context, file string, opts VerifyOptions) (rep Report, err error) {
	f, err := os.Open(file) // #nosec G304 -- the owner names the backup to check
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Report{}, err
	}
	if !fi.Mode().IsRegular() {
		return Report{}, fmt.Errorf("%s is not a file", file)
	}
	opts.Limits = opts.Limits.withDefaults()
	sweepStale(opts.Scratch, scratchPrefix, opts.Now())
	scratch, err := os.MkdirTemp(opts.Scratch, scratchPrefix)
	if err != nil {
		return Report{}, fmt.Errorf("make a scratch folder: %w", err)
	}
	defer func() {
		if err != nil || !opts.Keep {
			os.RemoveAll(scratch)
		}
	}()
	rep = Report{Size: fi.Size(), DBs: map[string]store.CopyReport{}, Copies: map[string]string{}}
	var copied int64 // bytes written to scratch so far
	sum := sha256.New()
	got, m, err := readArchive(ctx, bufio.NewReaderSize(io.TeeReader(f, sum), 256<<10), func(name string, size int64, r io.Reader) (bool, error) {
		if !strings.HasPrefix(name, statePrefix) {
			return false, nil
		}
		base := strings.TrimPrefix(name, statePrefix)
		if base != store.FileName && base != store.HistoryFileName {
			return false, damaged("it holds %s, which is not one of cortex's state databases", name)
		}
		// Before a byte is copied: an archive of a few MB may expand to
		// gigabytes, and the scratch folder may share the vault's disk.
		if err := room(filepath.Dir(scratch), name, size, copied, fi.Size(), opts.Limits); err != nil {
			return false, err
		}
		copied += size
		p := filepath.Join(scratch, base)
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- our own scratch folder
		if err != nil {
			return true, err
		}
		_, err = io.Copy(scratchWriter{out}, r)
		if cerr := out.Close(); err == nil && cerr != nil {
			err = scratchError{cerr}
		}
		rep.Copies[base] = p
		return true, err
	})
	if err != nil {
		return Report{}, err
	}
	if rep.Integrity, err = checkSidecars(file, sum.Sum(nil), opts.Key); err != nil {
		return Report{}, err
	}
	if err := checkManifest(m, got); err != nil {
		return Report{}, err
	}
	rep.Manifest = *m
	if err := checkDBs(ctx, &rep, opts); err != nil {
		return Report{}, err
	}
	if _, ok := rep.Copies[store.FileName]; !ok {
		return Report{}, damaged("it holds no %s%s", statePrefix, store.FileName)
	}
	if err := openAsServed(ctx, scratch, &rep, opts.Limits); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// seen is one file read from the archive.
type seen struct {
	size int64
	sum  string
}

// readArchive reads the archive to its very end, hashing every file; each
// file goes to take first, which may consume it (and says so). It returns
// what it read and the manifest.
func readArchive(ctx context.Context, r *bufio.Reader, take func(name string, size int64, r io.Reader) (bool, error)) (map[string]seen, *Manifest, error) {
	head, err := r.Peek(10)
	if err != nil {
		return nil, nil, damaged("it is too short to be a backup (%d bytes, less than a gzip header); the archive is truncated", len(head))
	}
	// The gzip header is not covered by its checksum; cortex always writes
	// the same one, so a changed byte there is a damage too.
	if want := gzipHeader(); !bytes.Equal(head, want) {
		if head[0] != 0x1f || head[1] != 0x8b {
			return nil, nil, damaged("it is not a gzip file, so not a cortex backup")
		}
		return nil, nil, damaged("its gzip header is not the one cortex writes (a byte in its first ten was changed)")
	}
	// r is an io.ByteReader, so gzip reads no further than its stream.
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, damaged("its gzip header cannot be read: %v", err)
	}
	gz.Multistream(false)
	tr := tar.NewReader(gz)
	got := map[string]seen{}
	var m *Manifest
	// manifestErr: the manifest did not parse. The rest is still read:
	// if bytes were changed, the gzip checksum says so more plainly.
	var manifestErr error
	after := "at its start" // where the next entry begins, for messages
	h := sha256.New()
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, streamErr(err, after)
		}
		name := hdr.Name
		if m != nil || manifestErr != nil {
			return nil, nil, damaged("it holds %s after its manifest", name)
		}
		if !validName(name) {
			return nil, nil, damaged("it holds %q, a name no cortex backup holds", name)
		}
		// Held to the server's limits before a byte is read: a 1 GiB
		// "note" is refused here, not hashed.
		if rel, ok := strings.CutPrefix(strings.TrimSuffix(name, "/"), vaultPrefix); ok {
			if err := vault.CheckRestoreEntry(rel, hdr.Size, 0); err != nil {
				return nil, nil, damaged("%s %v: the server would not serve it", name, err)
			}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			got[name] = seen{size: -1}
			after = "after " + name
			continue
		case tar.TypeReg:
		default:
			return nil, nil, damaged("it holds %s, which is neither a file nor a folder", name)
		}
		if _, dup := got[name]; dup {
			return nil, nil, damaged("it holds %s twice", name)
		}
		if name == manifestName {
			body, err := io.ReadAll(io.LimitReader(tr, 256<<20))
			if err != nil {
				return nil, nil, streamErr(err, "inside "+name)
			}
			m = new(Manifest)
			if err := json.Unmarshal(body, m); err != nil {
				m, manifestErr = nil, damaged("its manifest (%s) is not the JSON cortex writes (%v): it was edited or not made by cortex", name, err)
			}
			after = "after " + name
			continue
		}
		h.Reset()
		cr := &countingReader{r: io.TeeReader(tr, h)}
		took, err := take(name, hdr.Size, cr)
		var se scratchError
		switch {
		case errors.As(err, &se):
			return nil, nil, fmt.Errorf("write a scratch copy of %s: %w", name, se.err)
		case errors.Is(err, ErrNoRoom):
			return nil, nil, err
		case err != nil && !errors.Is(err, ErrDamaged):
			return nil, nil, streamErr(err, "inside "+name)
		case err != nil:
			return nil, nil, err
		}
		if !took || cr.n < hdr.Size {
			if _, err := io.Copy(io.Discard, cr); err != nil {
				return nil, nil, streamErr(err, "inside "+name)
			}
		}
		got[name] = seen{size: cr.n, sum: hex.EncodeToString(h.Sum(nil))}
		after = "after " + name
	}
	// Past the tar's end: the rest of the gzip stream, for its checksum.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return nil, nil, streamErr(err, "just before its end")
	}
	if err := gz.Close(); err != nil {
		return nil, nil, streamErr(err, "just before its end")
	}
	if n, _ := io.Copy(io.Discard, r); n > 0 {
		return nil, nil, damaged("%d bytes follow the end of its compressed data: something was appended to it", n)
	}
	if manifestErr != nil {
		return nil, nil, manifestErr
	}
	if m == nil {
		return nil, nil, damaged("it has no manifest (it stops %s): the archive is truncated, or was not made by cortex", after)
	}
	return got, m, nil
}

// streamErr names what a read error means for the owner; where says
// where in the archive it happened ("after NAME", "inside NAME", ...).
func streamErr(err error, where string) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, ErrDamaged):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return damaged("the archive is truncated: it stops %s", where)
	case errors.Is(err, gzip.ErrChecksum):
		return damaged("bytes of the archive were changed: its compressed data fails its checksum")
	case errors.As(err, &corrupt), errors.Is(err, gzip.ErrHeader):
		return damaged("bytes of the archive were changed: its compressed data is corrupt %s", where)
	case errors.Is(err, tar.ErrHeader):
		return damaged("bytes of the archive were changed: its list of files is garbled %s", where)
	}
	return damaged("it cannot be read %s: %v", where, err)
}

// scratchWriter marks errors writing a scratch copy, which are this
// machine's (a full disk), not the backup's.
type scratchWriter struct{ w io.Writer }

func (s scratchWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = scratchError{err}
	}
	return n, err
}

type scratchError struct{ err error }

func (e scratchError) Error() string { return e.err.Error() }
func (e scratchError) Unwrap() error { return e.err }

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gzipHeader is the header compress/gzip writes with cortex's settings: no
// name, no time, the level's XFL byte and OS "unknown".
func gzipHeader() []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, level)
	w.OS = gzipOS
	w.Close()
	return buf.Bytes()[:10]
}
