package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// A server that cannot start says why and what to do.
func TestServeFailureHints(t *testing.T) {
	ln := testkit.Listen(t)
	defer ln.Close()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), "cortex", []string{"serve", "--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s"),
		"--listen", ln.Addr().String()}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != 1 || !strings.Contains(stderr.String(), "address already in use") ||
		!strings.Contains(stderr.String(), "\nhint: another program listens on that address") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}
