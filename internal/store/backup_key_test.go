package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestBackupKeyMadeOnceAndPrivate(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadBackupKey(dir); !errors.Is(err, ErrNoBackupKey) {
		t.Fatalf("read before any: %v", err)
	}
	k1, err := BackupKey(dir)
	if err != nil || len(k1) != 32 {
		t.Fatalf("key %x %v", k1, err)
	}
	fi, err := os.Stat(filepath.Join(dir, BackupKeyName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
	k2, err := BackupKey(dir)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("second call gave another key: %x %v", k2, err)
	}
	os.WriteFile(filepath.Join(dir, BackupKeyName), []byte("not hex"), 0o600)
	if _, err := ReadBackupKey(dir); err == nil {
		t.Error("a garbled key was read")
	}
}
