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

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func runAdmin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return admin.Run(ctx, admin.Env{
		Stdin:    stdin,
		Stdout:   stdout,
		Stderr:   stderr,
		StateDir: orDefault(getenv("CORTEX_STATE"), config.DefaultState),
		VaultDir: orDefault(getenv("CORTEX_VAULT"), config.DefaultVault),
		// Only an explicit public URL: a guessed one would enrol the owner
		// for the wrong origin (and without passkeys) without a word.
		PublicURL: getenv("CORTEX_PUBLIC_URL"),
		Now:       time.Now,
	}, args)
}

// healthcheck asks the local server's /healthz; the container image has no
// curl, so its healthcheck runs this. It reads the same CORTEX_* settings as
// serve, so in acme mode it asks the loopback side of the :80 listener.
func healthcheck(ctx context.Context, getenv func(string) string) error {
	u, err := certs.HealthURL(certs.Options{
		Mode:       orDefault(getenv("CORTEX_TLS"), certs.ModeOff),
		PublicURL:  getenv("CORTEX_PUBLIC_URL"),
		ListenAddr: orDefault(getenv("CORTEX_LISTEN"), config.DefaultListen),
		HTTPAddr:   orDefault(getenv("CORTEX_HTTP_ADDR"), certs.DefaultHTTPAddr),
		HTTPSAddr:  getenv("CORTEX_HTTPS_ADDR"),
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
