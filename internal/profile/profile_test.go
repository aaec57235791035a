package profile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStart(t *testing.T) {
	stop, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	stop()

	p := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err = Start(p)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
		t.Fatalf("profile not written: %v %v", fi, err)
	}

	if _, err := Start(filepath.Join(t.TempDir(), "missing", "cpu.pprof")); err == nil {
		t.Error("a profile in a missing folder did not fail")
	}
}
