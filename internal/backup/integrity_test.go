package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
)

// A backup's SHA-256 and signature are written beside it; verify checks
// them with the server's key, and says plainly what it could not check.
func TestChecksumAndSignature(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(data)
	if res.SHA256 != hex.EncodeToString(want[:]) {
		t.Errorf("result's sha256 %s", res.SHA256)
	}
	sumFile, err := os.ReadFile(res.Path + SumExt)
	if err != nil || string(sumFile) != res.SHA256+"  "+filepath.Base(res.Path)+"\n" {
		t.Errorf("%s: %q %v", SumExt, sumFile, err)
	}
	for _, p := range []string{res.Path + SumExt, res.Path + SigExt, filepath.Join(stateDir, store.BackupKeyName)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", p, fi, err)
		}
	}
	key, err := store.ReadBackupKey(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(p string, key []byte) (Report, error) {
		return Verify(context.Background(), p, VerifyOptions{Key: key})
	}
	if rep, err := verify(res.Path, key); err != nil || rep.Integrity != (Integrity{SHA256: res.SHA256, SumFile: true, Signature: SignedOK}) {
		t.Errorf("with the key: %+v %v", rep.Integrity, err)
	}
	if rep, err := verify(res.Path, nil); err != nil || rep.Integrity.Signature != SignedUnchecked {
		t.Errorf("without a key: %+v %v", rep.Integrity, err)
	}
	if rep, err := verify(res.Path, []byte("another server's key, 32 bytes!")); err != nil || rep.Integrity.Signature != SignedUnchecked {
		t.Errorf("with another key: %+v %v", rep.Integrity, err)
	}

	// Someone who can write to the backups' disk changes a note, and
	// writes the archive's new SHA-256 beside it; the signature, which
	// needs the key, stays the old one.
	dir := t.TempDir()
	forged := filepath.Join(dir, filepath.Base(res.Path))
	bad := replaceEntry(t, data, "vault/notes/a.md", []byte("# A, rewritten\n"))
	os.WriteFile(forged, bad, 0o600)
	badSum := sha256.Sum256(bad)
	os.WriteFile(forged+SumExt, []byte(hex.EncodeToString(badSum[:])+"  x\n"), 0o600)
	sig, _ := os.ReadFile(res.Path + SigExt)
	os.WriteFile(forged+SigExt, sig, 0o600)
	if _, err := verify(forged, key); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "signature") || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("forged archive: %v", err)
	}
	dst := t.TempDir()
	if _, err := Restore(context.Background(), forged, filepath.Join(dst, "v"), filepath.Join(dst, "s"), RestoreOptions{Key: key}); !errors.Is(err, ErrDamaged) {
		t.Errorf("restore of the forged archive: %v", err)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	// Its checksum left as it was: the SHA-256 does not match.
	os.WriteFile(forged+SumExt, sumFile, 0o600)
	if _, err := verify(forged, key); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), ".sha256 says "+res.SHA256) {
		t.Errorf("stale checksum: %v", err)
	}
	// Neither file beside it: not signed, said so.
	os.Remove(forged + SumExt)
	os.Remove(forged + SigExt)
	if rep, err := verify(forged, key); err != nil || rep.Integrity.Signature != Unsigned || rep.Integrity.SumFile {
		t.Errorf("bare archive: %+v %v", rep.Integrity, err)
	}
}

func TestPruneRemovesChecksums(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"20261201T000000Z", "20261202T000000Z"} {
		for _, ext := range []string{"", SumExt, SigExt} {
			os.WriteFile(filepath.Join(dir, Prefix+n+Ext+ext), []byte("x"), 0o600)
		}
	}
	if _, err := Prune(dir, 1); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("left %v", ents)
	}
}
