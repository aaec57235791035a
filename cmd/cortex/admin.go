package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/admin"
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
		// The server's own default: reached at its listen address.
		PublicURL: orDefault(getenv("CORTEX_PUBLIC_URL"), "http://"+orDefault(getenv("CORTEX_LISTEN"), config.DefaultListen)),
		Now:       time.Now,
	}, args)
}

// healthcheck asks the local server's /healthz; the container image has no
// curl, so its healthcheck runs this.
func healthcheck(ctx context.Context, getenv func(string) string) error {
	addr := orDefault(getenv("CORTEX_LISTEN"), config.DefaultListen)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("CORTEX_LISTEN %q is not host:port", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answered %s", resp.Status)
	}
	return nil
}
