package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/admin"
	"github.com/cortex-mcp/cortex/internal/certs"
	"github.com/cortex-mcp/cortex/internal/config"
)

func runAdmin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	set := config.FromEnv(getenv)
	return admin.Run(ctx, admin.Env{
		Stdin:    stdin,
		Stdout:   stdout,
		Stderr:   stderr,
		StateDir: set.State,
		VaultDir: set.Vault,
		// Only an explicit public URL (no default): a guessed one would
		// enrol the owner for the wrong origin (and without passkeys)
		// without a word.
		PublicURL: set.PublicURL,
		Now:       time.Now,
		Version:   version,
		BackupDir: set.BackupDir,
		MinFree:   set.MinFreeBytes(),
	}, args)
}

// healthcheck asks the local server's /healthz; the container image has no
// curl, so its healthcheck runs this. It reads the same CORTEX_* settings as
// serve, so in acme mode it asks the loopback side of the :80 listener.
func healthcheck(ctx context.Context, getenv func(string) string) error {
	set := config.FromEnv(getenv)
	u, err := certs.HealthURL(certs.Options{
		Mode:       set.TLS,
		ListenAddr: set.Listen,
		HTTPAddr:   set.HTTPAddr,
		HTTPSAddr:  set.HTTPSAddr,
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	return nil
}
