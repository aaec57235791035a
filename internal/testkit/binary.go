package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Module is cortex's module path.
const Module = "github.com/cortex-mcp/cortex"

type binary struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

var build, faultBuild binary

// Cortex returns the path of the cortex binary, built from cmd/cortex once
// per test process (CGO off and -trimpath, as released). The binary lives
// in a temporary folder that outlives the tests that share it.
func Cortex(t testing.TB) string {
	t.Helper()
	return build.get(t)
}

// CortexWithFaults is Cortex built with -tags faultinject: the variable
// CORTEX_FAULT then names points at which it kills itself (see
// internal/vault/fault_on.go).
func CortexWithFaults(t testing.TB) string {
	t.Helper()
	return faultBuild.get(t, "-tags", "faultinject")
}

func (b *binary) get(t testing.TB, flags ...string) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "cortex-test-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "cortex")
		args := append(append([]string{"build", "-trimpath"}, flags...), "-o", b.path, Module+"/cmd/cortex")
		cmd := exec.Command("go", args...) // #nosec G204 -- go build with fixed flags; the output path is our own temporary folder
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("building cortex: %v\n%s", b.err, b.out)
	}
	return b.path
}
