package bench

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, na, err := generate(a, 300, 7)
	if err != nil {
		t.Fatal(err)
	}
	pb, nb, err := generate(b, 300, 7)
	if err != nil {
		t.Fatal(err)
	}
	if na != nb || len(pa) != len(pb) {
		t.Fatalf("sizes differ: %d %d", na, nb)
	}
	for i := range pa {
		x, _ := os.ReadFile(filepath.Join(a, pa[i]))
		y, _ := os.ReadFile(filepath.Join(b, pb[i]))
		if pa[i] != pb[i] || string(x) != string(y) {
			t.Fatalf("note %d differs", i)
		}
	}
	if avg := na / 300; avg < 1500 || avg > 20000 {
		t.Errorf("average note size %d bytes is not realistic", avg)
	}
	t.Logf("300 notes, %d bytes", na)
}
