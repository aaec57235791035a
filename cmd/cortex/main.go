// Command cortex serves a folder of Markdown notes to AI assistants over MCP.
// This file is wiring only: it parses arguments into a config value and hands
// it to the packages that do the work.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	// The console's time zones travel in the binary: the base that
	// `make image` assembles has no /usr/share/zoneinfo, and a zone that
	// loads in one image and not another would be a bad surprise.
	_ "time/tzdata"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// cortex writes no heap profile (CORTEX_CPU_PROFILE is CPU only), and
	// sampling for one keeps about 2 MB of stack records that count against
	// the memory limit (config.LiveMemoryLimit) as heap would.
	runtime.MemProfileRate = 0
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

const usage = `cortex serves a folder of Markdown notes to AI assistants over MCP.

usage:
  cortex serve [flags]        run the server (cortex serve --help lists the flags)
  cortex admin COMMAND ...    manage tokens and the owner on this server (cortex admin help)
  cortex healthcheck          exit 0 when the local server answers /healthz
  cortex version              print the version
`

const healthcheckUsage = `usage: cortex healthcheck

Asks the local server's /healthz over plain HTTP on loopback and exits
0 when it answers 200 OK, 1 otherwise; the container image's healthcheck
runs it. It takes no flags: it finds the server through the same
settings as cortex serve, CORTEX_TLS and CORTEX_LISTEN (with
CORTEX_TLS=acme, the loopback side of CORTEX_HTTP_ADDR).
`

// isHelp reports the words that ask a command for its help.
func isHelp(arg string) bool {
	switch arg {
	case "help", "--help", "-h", "-help":
		return true
	}
	return false
}

func run(ctx context.Context, prog string, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		if err := serve(ctx, prog, args[1:], stdout, stderr, getenv); err != nil {
			if errors.Is(err, errHelp) {
				return 0
			}
			fmt.Fprintln(stderr, "cortex:", err)
			if h := serveHint(err); h != "" {
				fmt.Fprintln(stderr, "hint:", h)
			}
			return 1
		}
		return 0
	case "admin":
		return runAdmin(ctx, args[1:], stdin, stdout, stderr, getenv)
	case "healthcheck":
		switch {
		case len(args) > 1 && isHelp(args[1]):
			fmt.Fprint(stdout, healthcheckUsage)
			return 0
		case len(args) > 1:
			fmt.Fprintf(stderr, "cortex: healthcheck: unexpected argument %q\nhint: healthcheck takes no arguments; it reads the CORTEX_* settings (run `cortex healthcheck --help`)\n", args[1])
			return 2
		}
		if err := healthcheck(ctx, getenv); err != nil {
			fmt.Fprintln(stderr, "cortex: unhealthy:", err)
			fmt.Fprintln(stderr, "hint: check that `cortex serve` runs, and give healthcheck the same CORTEX_* settings (CORTEX_TLS, CORTEX_LISTEN, CORTEX_HTTP_ADDR)")
			return 1
		}
		return 0
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "cortex", version)
		return 0
	case "help", "--help", "-h", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "cortex: unknown command %q\nhint: run `cortex help`\n", args[0])
		return 2
	}
}

// serveHint says what to do about a failure to start that carries no hint
// of its own (a configuration error prints its hint in its message).
func serveHint(err error) string {
	var ce *config.Error
	switch {
	case errors.As(err, &ce):
		return ""
	case errors.Is(err, syscall.EADDRINUSE):
		return "another program listens on that address: stop it, or choose another with --listen (CORTEX_LISTEN)"
	case errors.Is(err, store.ErrSchemaTooNew):
		return "a newer cortex has used this state folder: run that version, or point --state (CORTEX_STATE) at another folder"
	case errors.Is(err, store.ErrDamaged):
		return "restore the state from a backup (cortex admin restore FILE --vault DIR --state DIR, into empty folders), or move the damaged file aside: without cortex.db tokens, apps and the owner start over, without history.db the notes' history does"
	case errors.Is(err, fs.ErrPermission):
		return "cortex may not use that file, folder or port: check the owner and mode of --vault and --state, and use a port above 1023 unless allowed"
	}
	return ""
}
