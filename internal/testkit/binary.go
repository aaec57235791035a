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

var build struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// Cortex returns the path of the cortex binary, built from cmd/cortex once
// per test process (CGO off and -trimpath, as released). The binary lives
// in a temporary folder that outlives the tests that share it.
func Cortex(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "cortex-test-bin-")
		if err != nil {
			build.err = err
			return
		}
		build.path = filepath.Join(dir, "cortex")
		cmd := exec.Command("go", "build", "-trimpath", "-o", build.path, Module+"/cmd/cortex") // #nosec G204 -- a fixed command; the output path is our own temporary folder
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.out, build.err = cmd.CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("building cortex: %v\n%s", build.err, build.out)
	}
	return build.path
}
