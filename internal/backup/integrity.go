package backup

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Beside each archive, as files of their own so that the archive's bytes
// are what they hash: its SHA-256 in the form `sha256sum -c` reads, and
// its signature, an HMAC-SHA256 of that SHA-256 with the state folder's
// backup key (store.BackupKey). The key never leaves the state folder, so
// whoever can write to the backups' disk can change an archive and its
// checksum, but not sign it.
const (
	SumExt = ".sha256"
	SigExt = ".hmac"
)

// Signature says what verify found of a backup's signature.
type Signature int

// What a backup's signature may be.
const (
	// Unsigned: no signature file beside the archive.
	Unsigned Signature = iota
	// SignedOK: signed with the key given to verify.
	SignedOK
	// SignedUnchecked: signed, but with a key verify was not given (no
	// key, or the key of another state folder).
	SignedUnchecked
)

// Integrity is what verify found beside the archive.
type Integrity struct {
	SHA256 string // the archive's, as read
	// SumFile: a SHA-256 file was beside the archive (and matched).
	SumFile   bool
	Signature Signature
}

// keyID names a key without giving it away, so that verify can tell "the
// signature does not match" from "signed with another key".
func keyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("cortex backup key id"))
	return hex.EncodeToString(m.Sum(nil))[:16]
}

func signature(key, sum []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(sum)
	return "hmac-sha256 " + keyID(key) + " " + hex.EncodeToString(m.Sum(nil)) + "\n"
}

// writeSidecars writes the SHA-256 and signature files of the archive
// that will be named final into scratch, and returns them by their final
// names, for the caller to move beside the archive.
func writeSidecars(scratch, final string, sum, key []byte) (map[string]string, error) {
	out := map[string]string{}
	body := map[string]string{
		final + SumExt: hex.EncodeToString(sum) + "  " + filepath.Base(final) + "\n",
		final + SigExt: signature(key, sum),
	}
	for name, text := range body {
		p := filepath.Join(scratch, filepath.Base(name))
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil { // #nosec G306 -- our own scratch folder
			return nil, fmt.Errorf("write %s: %w", filepath.Base(name), err)
		}
		out[name] = p
	}
	return out, nil
}

// checkSidecars compares the archive's SHA-256 sum with the files beside
// file, and its signature with key (nil: none given).
func checkSidecars(file string, sum, key []byte) (Integrity, error) {
	in := Integrity{SHA256: hex.EncodeToString(sum)}
	b, err := os.ReadFile(file + SumExt) // #nosec G304 -- beside the backup the owner named
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return in, fmt.Errorf("read %s: %w", file+SumExt, err)
	default:
		want, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		if want != in.SHA256 {
			return in, damaged("its SHA-256 is %s, and %s says %s: the archive or its checksum was changed", in.SHA256, filepath.Base(file+SumExt), want)
		}
		in.SumFile = true
	}
	b, err = os.ReadFile(file + SigExt) // #nosec G304 -- beside the backup the owner named
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return in, nil
	case err != nil:
		return in, fmt.Errorf("read %s: %w", file+SigExt, err)
	}
	f := strings.Fields(string(b))
	if len(f) != 3 || f[0] != "hmac-sha256" {
		return in, damaged("%s is not a signature cortex writes: it was changed", filepath.Base(file+SigExt))
	}
	if key == nil || f[1] != keyID(key) {
		in.Signature = SignedUnchecked
		return in, nil
	}
	if !hmac.Equal(bytes.TrimSpace(b), bytes.TrimSpace([]byte(signature(key, sum)))) {
		return in, damaged("its signature (%s) does not match: the archive is not the one this server wrote, or it was changed; do not restore it", filepath.Base(file+SigExt))
	}
	in.Signature = SignedOK
	return in, nil
}
